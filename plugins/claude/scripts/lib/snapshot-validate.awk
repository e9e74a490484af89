# Python twin: python/src/datarim_snapshot/snapshot_validator.py
# Decides whether a stage snapshot may be trusted (spec §3).
# ENVIRON: DR_TASK (the ID in the file name, already checked), DR_EXTRA_KEYS
#          (space-separated optional fields allowed after `truncated`),
#          DR_FILE/_LEN/_NUL: at most CAP+1 bytes of the file (datarim-rules.awk),
#          DR_EMIT_FIELDS: "1" to hand back what was validated (see emit_fields).
# Exits 0 when valid, printing nothing (or, with DR_EMIT_FIELDS, the fields);
# else prints the first broken rule on stdout and exits 2. Needs
# datarim-rules.awk, git-anchor.awk and frontmatter.awk before it.

function broken(msg) {
    printf "%s", msg
    exit 2
}

# Checks the value of a git anchor field; returns it, a branch unquoted.
function check_git_field(k, v) {
    if (k == "git_head" && !git_sha_ok(v)) broken("bad git_head")
    if (k == "git_dirty" && v != "true" && v != "false") broken("bad git_dirty")
    if (k == "git_branch") {
        if (length(v) < 3 || !yaml_quoted_ok(v)) broken("bad git_branch")
        v = yaml_unquote(v)
        if (!git_branch_ok(v)) broken("bad git_branch")
    }
    return v
}

# Checks one options item, quoted or plain (spec §8); returns its text, the
# YAML quoting undone.
function check_option_item(line, n,    v) {
    v = substr(line, 5)
    if (substr(line, 1, 4) != "  - " || v == "\"\"" || !yaml_scalar_ok(v)) broken("bad options item " n)
    return yaml_scalar(v)
}

# The body (B[POS..N]) ends with marker.
function body_ends_with(marker,    m, tail, i) {
    m = length(marker)
    if (N - POS + 1 < m) return 0
    tail = ""
    for (i = N - m + 1; i <= N; i++) tail = tail CHR[B[i]]
    return tail == marker
}

# The validated fields, one "name value" line each, for a reader that must
# use exactly what was checked: stage, command, captured_at, captured_by,
# recommended_next, one "option <text>" line per item (quoting undone),
# size_bytes, truncated, "extra <key> <value>" per optional field in file
# order, and last body_offset (bytes before the body). No value holds a LF.
function emit_fields(    i) {
    printf "stage %s\ncommand %s\ncaptured_at %s\ncaptured_by %s\nrecommended_next %s\n", \
        STAGE, COMMAND, CAPTURED_AT, CAPTURED_BY, NEXT
    for (i = 1; i <= items; i++) printf "option %s\n", OPT[i]
    printf "size_bytes %s\ntruncated %s\n", size, truncated
    for (i = 1; i <= nextra; i++) printf "extra %s %s\n", EXTRA_KEY[i], EXTRA[EXTRA_KEY[i]]
    printf "body_offset %d", POS - 1
}

BEGIN {
    rules_init()
    FIELDS = " task_id artifact schema_version stage command captured_at captured_by recommended_next options size_bytes truncated "
    LISTS = " options "
    OPTIONAL_KEYS = " git_head git_branch git_dirty "
    N = ENVIRON["DR_FILE_LEN"] + 0
    open_frontmatter(CAP, str_bytes(ENVIRON["DR_FILE"], B), ENVIRON["DR_FILE_NUL"] + 0)

    v = expect_field("task_id")
    if (v != ENVIRON["DR_TASK"]) broken("task_id " shown(v) " does not match the file name")
    if (expect_field("artifact") != "stage-snapshot") broken("artifact is not stage-snapshot")
    if (expect_field("schema_version") != "1") broken("schema_version is not 1")
    STAGE = expect_field("stage")
    if (!is_stage(STAGE)) broken("bad stage")
    COMMAND = expect_field("command")
    fault = slash_command_fault(COMMAND)
    if (fault != "") broken("bad command: " fault)
    CAPTURED_AT = expect_field("captured_at")
    if (!is_timestamp(CAPTURED_AT)) broken("bad captured_at")
    CAPTURED_BY = expect_field("captured_by")
    if (!is_captured_by(CAPTURED_BY)) broken("bad captured_by")
    NEXT = expect_field("recommended_next")
    fault = slash_command_fault(NEXT)
    if (fault != "") broken("bad recommended_next: " fault)

    items = 0
    line = expect_field("options")
    if (line == "options:") {
        while (1) {
            mark = POS
            line = next_line()
            if (substr(line, 1, 2) != "  ") { POS = mark; break }
            items++
            OPT[items] = check_option_item(line, items)
        }
        # No item before the next key: the empty list the reference writes.
    } else if (line != "options: []") broken("options is not a list")

    size = expect_field("size_bytes")
    if (size !~ /^[1-9][0-9]*$/) broken("bad size_bytes")
    truncated = expect_field("truncated")
    if (truncated != "true" && truncated != "false") broken("bad truncated")

    # Releases of 2026-05-25 to 2026-06-19 glued the closing "---" to the
    # body's first line ("---**TUNE-0254 ...") and counted the frontmatter of
    # "size_bytes: 8192" and "truncated: true": with "truncated: false" and a
    # size of four digits that is one byte short (spec §8). That terminator is
    # the body's start, and that size is theirs; nothing else is let through.
    glued = 0
    while (1) {
        mark = POS
        if ((line = next_line()) == "---") break
        if (substr(line, 1, 3) == "---") { glued = 1; POS = mark + 3; break }
        if (line == "\001EOF") broken("frontmatter is not closed")
        key = key_of(line)
        if (key in SEEN) broken("duplicate field: " shown(key))
        if (!extra_key(key)) broken("unknown field: " shown(key))
        rank = git_field_rank(key)
        if (rank > 0 && rank < last_rank) broken("git fields out of order at " key)
        if (rank > 0) last_rank = rank
        if (substr(line, length(key) + 1, 2) != ": " || length(line) == length(key) + 2) broken("bad " shown(key) " line")
        SEEN[key] = 1
        EXTRA_KEY[++nextra] = key
        EXTRA[key] = substr(line, length(key) + 3)
        if (rank > 0) EXTRA[key] = check_git_field(key, EXTRA[key])
    }
    if (!glued && next_line() != "") broken("no blank line after the frontmatter")
    if (size + 0 != N && !(glued && truncated == "false" && size + 1 == N && size + 0 >= 1000))
        broken("size_bytes is " size " but the file has " N " bytes")
    if (truncated == "true" && !body_ends_with(MARKER) && !body_ends_with(REFERENCE_MARKER))
        broken("truncated is true but the body does not end with the truncation marker")
    if (ENVIRON["DR_EMIT_FIELDS"] == "1") emit_fields()
    exit 0
}
