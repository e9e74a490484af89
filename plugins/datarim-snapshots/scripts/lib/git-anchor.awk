# Python twin: python/src/datarim_snapshot/_git_anchor.py
# Git anchoring of a stage snapshot: the optional frontmatter fields the
# writer adds after `truncated` when the workspace root is in a git work
# tree, and the form the validator demands of them. Loaded by
# snapshot-render.awk and snapshot-validate.awk, after datarim-rules.awk.
#
#   git_head: <40 lower-case hex digits (64 in a SHA-256 repository)>
#   git_branch: "<branch>"   (absent: HEAD was detached)
#   git_dirty: true|false    (changes outside datarim/, untracked files included;
#                             absent: not checked, the index is over the limit)

# Rank of an anchor field in the writer's order (1..3), 0 for another key.
function git_field_rank(k) {
    return k == "git_head" ? 1 : k == "git_branch" ? 2 : k == "git_dirty" ? 3 : 0
}

function git_sha_ok(v) {
    return (length(v) == 40 || length(v) == 64) && v !~ /[^0-9a-f]/
}

# A branch name fit for the frontmatter: one line of UTF-8, no control character.
function git_branch_ok(v,    arr, n) {
    n = str_bytes(v, arr)
    return n > 0 && utf8_scan(arr, 1, n, 1, 0) == ""
}

# The anchor's frontmatter lines from what git reported; "" when head is not
# a commit ID. A branch that cannot be written as one clean line is left out;
# so is git_dirty when dirty is neither "true" nor "false" (not checked).
function git_anchor_lines(head, branch, dirty,    arr, n, out) {
    if (!git_sha_ok(head)) return ""
    out = "git_head: " head "\n"
    if (branch != "" && git_branch_ok(branch)) {
        n = str_bytes(branch, arr)
        out = out "git_branch: " yaml_quote(arr, 1, n) "\n"
    }
    if (dirty != "true" && dirty != "false") return out
    return out "git_dirty: " dirty "\n"
}
