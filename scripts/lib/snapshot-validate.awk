# Decides whether a stage snapshot may be trusted (CONTRACT §3).
# ENVIRON: DR_TASK (the ID in the file name, already checked), DR_EXTRA_KEYS
#          (space-separated optional fields allowed after `truncated`),
#          DR_FILE/_LEN/_NUL: at most CAP+1 bytes of the file (datarim-rules.awk).
# Prints nothing and exits 0 when valid; else the first broken rule on
# stdout and exit 2. Needs datarim-rules.awk and frontmatter.awk before it.

function broken(msg) {
    printf "%s", msg
    exit 2
}

function check_option_item(line, n) {
    if (substr(line, 1, 4) != "  - " || length(line) < 8 || !yaml_quoted_ok(substr(line, 5)))
        broken("bad options item " n)
}

BEGIN {
    rules_init()
    FIELDS = " task_id artifact schema_version stage command captured_at captured_by recommended_next options size_bytes truncated "
    LISTS = " options "
    N = ENVIRON["DR_FILE_LEN"] + 0
    if (N > CAP) broken("is over the " CAP "-byte cap")
    fault = utf8_scan(B, 1, str_bytes(ENVIRON["DR_FILE"], B), 0, 0)
    if (fault != "") broken("is not valid UTF-8")
    if (ENVIRON["DR_FILE_NUL"] + 0 >= 0) broken("holds a NUL byte")
    POS = 1
    if (next_line() != "---") broken("does not start with --- frontmatter")

    v = expect_field("task_id")
    if (v != ENVIRON["DR_TASK"]) broken("task_id " shown(v) " does not match the file name")
    if (expect_field("artifact") != "stage-snapshot") broken("artifact is not stage-snapshot")
    if (expect_field("schema_version") != "1") broken("schema_version is not 1")
    if (!is_stage(expect_field("stage"))) broken("bad stage")
    fault = slash_command_fault(expect_field("command"))
    if (fault != "") broken("bad command: " fault)
    if (!is_timestamp(expect_field("captured_at"))) broken("bad captured_at")
    if (!is_captured_by(expect_field("captured_by"))) broken("bad captured_by")
    fault = slash_command_fault(expect_field("recommended_next"))
    if (fault != "") broken("bad recommended_next: " fault)

    line = expect_field("options")
    if (line == "options:") {
        items = 0
        while (1) {
            mark = POS
            line = next_line()
            if (substr(line, 1, 2) != "  ") { POS = mark; break }
            check_option_item(line, ++items)
        }
        if (items == 0) broken("options is not a list")
    } else if (line != "options: []") broken("options is not a list")

    size = expect_field("size_bytes")
    if (size !~ /^[1-9][0-9]*$/) broken("bad size_bytes")
    truncated = expect_field("truncated")
    if (truncated != "true" && truncated != "false") broken("bad truncated")

    close_frontmatter(" " ENVIRON["DR_EXTRA_KEYS"] " ")
    if (next_line() != "") broken("no blank line after the frontmatter")
    if (size + 0 != N) broken("size_bytes is " size " but the file has " N " bytes")
    if (truncated == "true") {
        m = length(MARKER)
        if (N - POS + 1 < m) broken("truncated is true but the body does not end with the truncation marker")
        tail = ""
        for (i = N - m + 1; i <= N; i++) tail = tail CHR[B[i]]
        if (tail != MARKER) broken("truncated is true but the body does not end with the truncation marker")
    }
    exit 0
}
