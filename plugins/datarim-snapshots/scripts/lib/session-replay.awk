# Python twin: python/src/datarim_snapshot/_session_replay.py
# The resume of a session handoff (spec §5), in two phases around the
# git probes that bash runs between them. Mirrors
# python/src/datarim_snapshot/_session_replay.py.
# ENVIRON: DR_SESSION (the ID in the file name, already checked),
#          DR_FILE/_LEN/_NUL: at most SESSION_CAP+1 bytes of the artefact,
#          DR_PHASE: "scan" or "render"; for render, DR_FAILED: the body line
#          numbers whose probe failed, one space apart.
# scan: validates the whole file (invalid: the first broken rule on stdout,
#   exit 2), then prints what the newest block asks to re-verify, one TAB-
#   separated record a line: "R <line> <sha> <repo-path>" (Layer 1),
#   "U <line> <file-line> <text>" (a Layer 1 repo/HEAD line it cannot read),
#   "C <line> <sha>" and "P <line> <sha>" (a verified: claim of pushed or
#   merged work; see scan_claim), "F <line> <path>" (Layer 3); <line> counts
#   the block's body lines. Before them one line for the render phase:
#   "<from> <to> <cta>", the newest block's body (bytes from..to) and the
#   recommended CTA.
# render: ENVIRON DR_BODY, that line; prints the CTA, LF, the newest block's
#   body with verified: turned into unverified: on the failed lines, then ".".
#   The file is not validated a second time (the scan did).
# Needs datarim-rules.awk, frontmatter.awk and session-format.awk before it.

function broken(msg) {
    printf "%s", CONTEXT msg
    exit 2
}

# A path a probe may use: 1 to 4096 bytes, no control character.
function path_ok(p) {
    return p != "" && length(p) <= 4096 && p !~ /[\001-\037\177]/
}

function sha_ok(s) {
    return length(s) >= 7 && length(s) <= 40 && s ~ /^[0-9a-fA-F]+$/
}

# Position of the first whole-word "verified:" tag in line, or 0.
function verified_at(line,    P, n, k) {
    n = occurrences(line, "verified:", P)
    for (k = 1; k <= n; k++)
        if (P[k] == 1 || !session_is_word_char(substr(line, P[k] - 1, 1))) return P[k]
    return 0
}

# Layer 1: "repo: <path>  HEAD: <sha>" (the keys in any case, blanks before
# HEAD:, anything after the SHA; backticks stripped, an optional "- " or "* "
# before). The path ends at two blanks, a tab or the blanks before HEAD:.
# A repo/HEAD line that cannot be read is reported, never skipped: "U" with its
# file line and its printable text.
function scan_repo(line, n,    low, rest, at, path, sha, cut, tab) {
    if (substr(line, 1, 2) == "- " || substr(line, 1, 2) == "* ") low = tolower(substr(line, 3))
    else low = tolower(line)
    if (substr(low, 1, 5) != "repo:" || !match(low, /[ \t]+head:/)) return
    rest = substr(line, length(line) - length(low) + 6)
    at = RSTART - 5
    path = substr(rest, 1, at - 1)
    sha = substr(rest, at + RLENGTH)
    sub(/^[ \t]+/, "", path)
    cut = index(path, "  ")
    tab = index(path, "\t")
    if (tab && (!cut || tab < cut)) cut = tab
    if (cut) path = substr(path, 1, cut - 1)
    sub(/^[ \t]+/, "", sha)
    if (match(sha, /[ \t]/)) sha = substr(sha, 1, RSTART - 1)
    gsub(/`/, "", path)
    gsub(/`/, "", sha)
    if (path_ok(path) && sha_ok(sha)) printf "R\t%d\t%s\t%s\n", n, sha, path
    else printf "U\t%d\t%d\t%s\n", n, LAST_BODY_LINE + n - 1, shown(line)
}

# A verified: line that claims pushed or merged work: each SHA-like word (7
# to 40 hex digits). "C" for one that mixes digits and letters; "P" for one
# of digits only or letters only (a date, a PR number), a claim only when git
# knows a commit by that name.
function scan_claim(line, n,    low, words, m, k) {
    if (!verified_at(line)) return
    low = tolower(line)
    if (!session_word(low, "pushed") && !session_word(low, "merged")) return
    m = split(line, words, /[^A-Za-z0-9_]+/)
    for (k = 1; k <= m; k++) {
        if (!sha_ok(words[k])) continue
        printf "%s\t%d\t%s\n", (words[k] ~ /[0-9]/ && words[k] ~ /[a-fA-F]/) ? "C" : "P", n, words[k]
    }
}

# Layer 3: "- <path> [note]" (the path is the first word, backticks stripped).
function scan_file(line, n,    path, cut) {
    if (substr(line, 1, 2) != "- ") return
    path = substr(line, 3)
    cut = match(path, /[ \t]/)
    if (cut) path = substr(path, 1, cut - 1)
    gsub(/`/, "", path)
    if (path_ok(path)) printf "F\t%d\t%s\n", n, path
}

# Body lines of the newest block into BODY[1..NB].
function body_lines(    line) {
    POS = LAST_BODY_FROM
    NB = 0
    while (POS <= LAST_BODY_TO) BODY[++NB] = next_line()
}

function downgrade(line,    out, p) {
    out = ""
    while ((p = verified_at(line))) {
        out = out substr(line, 1, p - 1) "unverified:"
        line = substr(line, p + 9)
    }
    return out line
}

BEGIN {
    if (ENVIRON["DR_PHASE"] == "render") render()
    session_check_input()
    body_lines()
    if (ENVIRON["DR_PHASE"] == "scan") {
        # First line: where the newest block's body lies, and its CTA, for
        # the render phase (which so reads the file no second time).
        cta = LAST_RECOMMENDED
        if (!index(cta, " ") && LAST_TASKS != "") {
            split(LAST_TASKS, tasks, " ")
            cta = cta " " tasks[1]
        }
        printf "%d %d %s | %s\n", LAST_BODY_FROM, LAST_BODY_TO, cta, LAST_NEXT_ACTION
        # Text before the Layer 1 heading counts as Layer 1.
        layer = 1
        for (i = 1; i <= NB; i++) {
            k = session_layer(BODY[i])
            if (k) { layer = k; continue }
            # A CR that ends the line (a CRLF body) is no part of a path or SHA.
            line = BODY[i]
            sub(/\r$/, "", line)
            if (layer == 1) scan_repo(line, i)
            if (layer == 3) scan_file(line, i)
            scan_claim(line, i)
        }
        exit 0
    }
}

# The render phase: DR_BODY ("<from> <to> <cta>", the scan's first line) and
# the same DR_FILE; the file was validated by the scan.
function render(    head, failed, k, i) {
    rules_init()
    session_init()
    head = ENVIRON["DR_BODY"]
    LAST_BODY_FROM = substr(head, 1, index(head, " ") - 1) + 0
    head = substr(head, index(head, " ") + 1)
    LAST_BODY_TO = substr(head, 1, index(head, " ") - 1) + 0
    head = substr(head, index(head, " ") + 1)
    TEXT_MODE = 1
    TEXT = ENVIRON["DR_FILE"]
    N = length(TEXT)
    text_lines()
    body_lines()
    split(ENVIRON["DR_FAILED"], failed, " ")
    for (k in failed) FAILED[failed[k]] = 1
    printf "%s\n", head
    for (i = 1; i <= NB; i++) printf "%s\n", (i in FAILED) ? downgrade(BODY[i]) : BODY[i]
    printf "."
    exit 0
}
