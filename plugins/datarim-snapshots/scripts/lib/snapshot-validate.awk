# Python twin: python/src/datarim_snapshot/_snapshot_validator.py
# Decides whether a stage snapshot may be trusted (spec §3).
# ENVIRON: DR_TASK (the ID in the file name, already checked), DR_EXTRA_KEYS
#          (space-separated optional fields allowed after `truncated`),
#          DR_FILE/_LEN/_NUL: at most CAP+1 bytes of the file (datarim-rules.awk),
#          DR_EMIT_FIELDS: "1" to hand back what was validated (see emit_fields).
# Exits 0 when valid, printing nothing (or, with DR_EMIT_FIELDS, the fields);
# else prints the first broken rule on stdout and exits 2. Needs
# datarim-rules.awk, git-anchor.awk and frontmatter.awk before it.
#
# DR_BATCH=list|doctor judges many files in one process (snapshot-list and
# doctor; snapshot_batch in snapshot-validator.sh): stdin holds one record a
# file, in the order to report them, and the output is that reader's rows
# (see batch_main). Every verdict is judge_snapshot's, as for one file.

# The first broken rule: for one file, printed, and the program exits 2; in
# a batch, kept in FAULT (the judge returns as soon as it is set).
function broken(msg) {
    if (FAULT == "") FAULT = msg
    if (BATCH) return 1
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
function body_ends_with(marker,    m) {
    m = length(marker)
    if (N - POS + 1 < m) return 0
    return substr(TEXT, N - m + 1) == marker
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

# judge_snapshot(task, text, len, nul): the verdict on one file (text: its
# bytes before the first NUL, len: the bytes read, nul: that NUL's offset or
# -1). Returns "" when valid, with the fields set for emit_fields; else the
# first broken rule.
function judge_snapshot(task, text, len, nul,    v, fault, line, mark, key, rank, last_rank) {
    FAULT = ""
    split("", SEEN)
    split("", OPT)
    split("", EXTRA)
    split("", EXTRA_KEY)
    nextra = 0
    items = 0
    TEXT_MODE = 1
    TEXT = text
    N = len + 0
    open_frontmatter(CAP, length(text), nul + 0)
    if (FAULT != "") return FAULT

    v = expect_field("task_id")
    if (FAULT != "") return FAULT
    if (v != task) return broken_text("task_id " shown(v) " does not match the file name")
    if (expect_field("artifact") != "stage-snapshot" && FAULT == "") broken("artifact is not stage-snapshot")
    if (FAULT != "") return FAULT
    if (expect_field("schema_version") != "1" && FAULT == "") broken("schema_version is not 1")
    if (FAULT != "") return FAULT
    STAGE = expect_field("stage")
    if (FAULT != "") return FAULT
    if (!is_stage(STAGE)) return broken_text("bad stage")
    COMMAND = expect_field("command")
    if (FAULT != "") return FAULT
    fault = slash_command_fault(COMMAND)
    if (fault != "") return broken_text("bad command: " fault)
    CAPTURED_AT = expect_field("captured_at")
    if (FAULT != "") return FAULT
    if (!is_timestamp(CAPTURED_AT)) return broken_text("bad captured_at")
    CAPTURED_BY = expect_field("captured_by")
    if (FAULT != "") return FAULT
    if (!is_captured_by(CAPTURED_BY)) return broken_text("bad captured_by")
    NEXT = expect_field("recommended_next")
    if (FAULT != "") return FAULT
    fault = slash_command_fault(NEXT)
    if (fault != "") return broken_text("bad recommended_next: " fault)

    line = expect_field("options")
    if (FAULT != "") return FAULT
    if (line == "options:") {
        while (1) {
            mark = POS
            line = next_line()
            if (substr(line, 1, 2) != "  ") { POS = mark; break }
            items++
            OPT[items] = check_option_item(line, items)
            if (FAULT != "") return FAULT
        }
        # No item before the next key: the empty list the reference writes.
    } else if (line != "options: []") return broken_text("options is not a list")

    size = expect_field("size_bytes")
    if (FAULT != "") return FAULT
    if (size !~ /^[1-9][0-9]*$/) return broken_text("bad size_bytes")
    truncated = expect_field("truncated")
    if (FAULT != "") return FAULT
    if (truncated != "true" && truncated != "false") return broken_text("bad truncated")

    # Releases of 2026-05-25 to 2026-06-19 glued the closing "---" to the
    # body's first line ("---**TUNE-0254 ...") and counted the frontmatter of
    # "size_bytes: 8192" and "truncated: true": with "truncated: false" and a
    # size of four digits that is one byte short (spec §8). That terminator is
    # the body's start, and that size is theirs; nothing else is let through
    # (those releases wrote no git field, so after one it is no terminator).
    glued = 0
    last_rank = 0
    while (1) {
        mark = POS
        if ((line = next_line()) == "---") break
        if (substr(line, 1, 3) == "---" && !last_rank) { glued = 1; POS = mark + 3; break }
        if (line == "\001EOF") return broken_text("frontmatter is not closed")
        key = key_of(line)
        if (key in SEEN) return broken_text("duplicate field: " shown(key))
        if (!extra_key(key)) return broken_text("unknown field: " shown(key))
        rank = git_field_rank(key)
        if (rank > 0 && rank < last_rank) return broken_text("git fields out of order at " key)
        if (rank > 0) last_rank = rank
        if (substr(line, length(key) + 1, 2) != ": " || length(line) == length(key) + 2) return broken_text("bad " shown(key) " line")
        SEEN[key] = 1
        EXTRA_KEY[++nextra] = key
        EXTRA[key] = substr(line, length(key) + 3)
        if (rank > 0) EXTRA[key] = check_git_field(key, EXTRA[key])
        if (FAULT != "") return FAULT
    }
    if (!glued && next_line() != "") return broken_text("no blank line after the frontmatter")
    if (size + 0 != N && !(glued && truncated == "false" && size + 1 == N && size + 0 >= 1000))
        return broken_text("size_bytes is " size " but the file has " N " bytes")
    if (truncated == "true" && !body_ends_with(MARKER) && !body_ends_with(REFERENCE_MARKER))
        return broken_text("truncated is true but the body does not end with the truncation marker")
    return ""
}

# broken(msg), returning the fault (for one file, it exits instead).
function broken_text(msg) {
    broken(msg)
    return FAULT
}

# A message or value fit for one TAB-separated field of a row.
function cell_text(s) {
    gsub(/\t/, "?", s)
    return s
}

# doctor_shown (doctor.sh): C0 and DEL as "?".
function doctor_text(s) {
    gsub(/[\001-\037\177]/, "?", s)
    return s
}

# Reads a batch (DR_BATCH) from stdin: per file one header line, then for
# "F" its text and a LF:
#   F <TAB> <id> <TAB> <len> <TAB> <nul> <TAB> <text-bytes>   (then the text)
#   S <TAB> <id> <TAB> <message>      dr_artifact_state refused it
#   I <TAB> <name>                    a name no task ID can be (shown form)
# (<id>: the name without ".snapshot.md", only letters, digits and "-"), and
# prints, for list, snapshot-list's rows ("<task>\tvalid\t<stage>\t
# <captured_at>\t<next>" or "<task>\t<reason>\t\t\t"), a name that is not
# a task ID left out; for doctor, its first line the newest valid
# captured_at (maybe empty), then doctor.sh's records of each file (such a
# name "ignored") and its problems.
function batch_main(mode,    head, f, want, text, line, got, fault, name, newest, out, k) {
    newest = ""
    k = 0
    while ((getline head) > 0) {
        split(head, f, "\t")
        fault = ""
        if (f[1] == "F") {
            want = f[5] + 0
            text = ""
            got = 0
            while (1) {
                if ((getline line) <= 0) exit 2
                text = got ? text "\n" line : line
                got = 1
                if (length(text) >= want) break
            }
        }
        name = f[1] == "I" ? f[2] : f[2] ".snapshot.md"
        if (f[1] == "I" || !is_task_id(f[2])) {
            if (mode != "list") OUT[++k] = "file\tsnapshots\t" name "\tignored\tits name is not a task ID: no reader looks at it"
            continue
        }
        if (f[1] == "F") fault = judge_snapshot(f[2], text, f[3], f[4])
        else fault = substr(head, length(f[2]) + 4)
        if (mode == "list") {
            if (fault == "") OUT[++k] = f[2] "\tvalid\t" STAGE "\t" CAPTURED_AT "\t" NEXT
            else OUT[++k] = f[2] "\t" cell_text(fault) "\t\t\t"
        } else if (fault == "") {
            OUT[++k] = "file\tsnapshots\t" name "\tvalid\t" doctor_text(STAGE ", " CAPTURED_AT)
            if (CAPTURED_AT > newest) newest = CAPTURED_AT
        } else {
            OUT[++k] = "file\tsnapshots\t" name "\tinvalid\t" doctor_text(fault)
            OUT[++k] = "problem\t" doctor_text("datarim/snapshots/" name " " fault)
        }
    }
    if (mode == "doctor") printf "%s\n", newest
    for (out = 1; out <= k; out++) printf "%s\n", OUT[out]
}

BEGIN {
    rules_init()
    FIELDS = " task_id artifact schema_version stage command captured_at captured_by recommended_next options size_bytes truncated "
    LISTS = " options "
    OPTIONAL_KEYS = " git_head git_branch git_dirty "
    if (ENVIRON["DR_BATCH"] != "") {
        BATCH = 1
        batch_main(ENVIRON["DR_BATCH"])
        exit 0
    }
    judge_snapshot(ENVIRON["DR_TASK"], ENVIRON["DR_FILE"], ENVIRON["DR_FILE_LEN"], ENVIRON["DR_FILE_NUL"])
    if (ENVIRON["DR_EMIT_FIELDS"] == "1") emit_fields()
    exit 0
}
