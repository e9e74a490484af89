# Decides whether a stage snapshot may be trusted (CONTRACT §3).
# ENVIRON: DR_TASK (the ID in the file name, already checked), DR_EXTRA_KEYS
#          (space-separated optional fields allowed after `truncated`),
#          DR_FILE/_LEN/_NUL: at most CAP+1 bytes of the file (datarim-rules.awk),
#          DR_EMIT_FIELDS: "1" to hand back what was validated (see emit_fields).
# Exits 0 when valid, printing nothing (or, with DR_EMIT_FIELDS, the fields);
# else prints the first broken rule on stdout and exits 2. Needs
# datarim-rules.awk and git-anchor.awk before it.

function broken(msg) {
    printf "%s", msg
    exit 2
}

# Next frontmatter line as a string (bytes up to LF, LF dropped), or the
# sentinel "\001EOF" when no complete line is left.
function next_line(    s, j) {
    s = ""
    for (j = POS; j <= N; j++) {
        if (B[j] == 10) { POS = j + 1; return s }
        s = s CHR[B[j]]
    }
    POS = N + 1
    return "\001EOF"
}

# Printable form of a key for a message: controls become "?".
function shown(s) {
    gsub(/[\001-\037\177]/, "?", s)
    return s
}

function key_of(line,    c) {
    c = index(line, ":")
    return c ? substr(line, 1, c - 1) : line
}

function known(k) {
    return k != "" && (index(FIELDS, " " k " ") > 0 || extra_key(k))
}

# An optional field after truncated: the git anchor's (git-anchor.awk), or
# one another artefact adds (never the empty key).
function extra_key(k) {
    return git_field_rank(k) > 0 || (k != "" && index(" " ENVIRON["DR_EXTRA_KEYS"] " ", " " k " ") > 0)
}

# Checks the value of a git anchor field; returns it, a branch unquoted.
function check_git_field(k, v) {
    if (k == "git_head" && !git_sha_ok(v)) broken("bad git_head")
    if (k == "git_dirty" && v != "true" && v != "false") broken("bad git_dirty")
    if (k == "git_branch") {
        v = unquoted(v, "bad git_branch")
        if (!git_branch_ok(v)) broken("bad git_branch")
    }
    return v
}

# Reads the line that should hold field k and returns its value.
function expect_field(k,    line, key) {
    line = next_line()
    if (line == "\001EOF") broken("frontmatter is not closed")
    key = key_of(line)
    if (line == "---") broken("missing field: " k)
    if (key in SEEN) broken("duplicate field: " shown(key))
    if (!known(key)) broken("unknown field: " shown(key))
    if (key != k) broken("expected field " k ", found " shown(key))
    SEEN[k] = 1
    if (k == "options") return line
    if (substr(line, length(k) + 1, 2) != ": " || length(line) == length(k) + 2) broken("bad " k " line")
    return substr(line, length(k) + 3)
}

# Checks one options item; returns its text with the YAML quoting undone.
function check_option_item(line, n) {
    if (substr(line, 1, 4) != "  - ") broken("bad options item " n)
    return unquoted(substr(line, 5), "bad options item " n)
}

# s must be a non-empty double-quoted string as yaml_quote writes it (only
# \ and " escaped; UTF-8 without control characters, tab allowed); returns
# its text, else breaks with msg.
function unquoted(s, msg,    arr, m, i, b, esc, text) {
    if (substr(s, 1, 1) != "\"" || length(s) < 3 || substr(s, length(s)) != "\"") broken(msg)
    m = str_bytes(substr(s, 2, length(s) - 2), arr)
    esc = 0
    text = ""
    for (i = 1; i <= m; i++) {
        b = arr[i]
        if (esc) { if (b != 92 && b != 34) broken(msg); esc = 0; text = text CHR[b] }
        else if (b == 92) esc = 1
        else if (b == 34) broken(msg)
        else text = text CHR[b]
    }
    if (esc) broken(msg)
    if (utf8_scan(arr, 1, m, 1, 1) != "") broken(msg)
    return text
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
        if (items == 0) broken("options is not a list")
    } else if (line != "options: []") broken("options is not a list")

    size = expect_field("size_bytes")
    if (size !~ /^[1-9][0-9]*$/) broken("bad size_bytes")
    truncated = expect_field("truncated")
    if (truncated != "true" && truncated != "false") broken("bad truncated")

    while ((line = next_line()) != "---") {
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
    if (next_line() != "") broken("no blank line after the frontmatter")
    if (size + 0 != N) broken("size_bytes is " size " but the file has " N " bytes")
    if (truncated == "true") {
        m = length(MARKER)
        if (N - POS + 1 < m) broken("truncated is true but the body does not end with the truncation marker")
        tail = ""
        for (i = N - m + 1; i <= N; i++) tail = tail CHR[B[i]]
        if (tail != MARKER) broken("truncated is true but the body does not end with the truncation marker")
    }
    if (ENVIRON["DR_EMIT_FIELDS"] == "1") emit_fields()
    exit 0
}
