# Python twin: python/src/datarim_snapshot/_session_handoff_writer.py
# Renders one session-handoff block (spec §5) from inputs validated in
# here, redacted, and cut to the room the 32768-byte cap leaves.
# ENVIRON: DR_SESSION DR_CAPTURED_BY DR_RECOMMENDED_NEXT DR_NEXT_ACTION
#          DR_CAPTURED_AT; DR_TASKS/_LEN/_NUL (the active-tasks file, see
#          datarim-rules.awk); DR_BODY_LEN DR_BODY_NUL (the body's size and
#          first NUL; its bytes before that NUL arrive on stdin); DR_OLD/_LEN/
#          _NUL (the file this block is appended to; DR_OLD_LEN empty: none)
#          and DR_OLD_NAME (its path for messages); DR_GIT_PATHS and
#          DR_GIT_FACTS (--git-state: one repository a line, its path as the
#          line shows it, and "<head>\t<branch>\t<dirty>" as git_anchor_probe
#          found them; empty: none).
# Success, exit 0, on stdout: the number of secrets redacted, LF, the
# redacted next action, LF, the active task IDs (one space apart), LF, the
# block, then ".". Refusal: one message line on stdout, exit 1.
# Needs datarim-rules.awk, datarim-redact.awk, frontmatter.awk and
# session-format.awk before it.

function refuse(msg) {
    printf "%s", msg
    exit 1
}

# Only the check of the file appended to can break a rule of the format.
function broken(msg) {
    refuse(ENVIRON["DR_OLD_NAME"] " is not a valid session handoff (" CONTEXT msg "); nothing written: start a new session")
}

function check_values(    fault, arr, n) {
    if (!is_captured_by(ENVIRON["DR_CAPTURED_BY"]))
        refuse("invalid --captured-by (want agent or operator)")
    fault = slash_command_fault(ENVIRON["DR_RECOMMENDED_NEXT"])
    if (fault != "") refuse("invalid --recommended-next: " fault)
    NEXT_ACTION = ENVIRON["DR_NEXT_ACTION"]
    n = str_bytes(NEXT_ACTION, arr)
    if (n == 0) refuse("invalid --next-action: is empty")
    if (n > SESSION_NEXT_ACTION_MAX) refuse("invalid --next-action: longer than " SESSION_NEXT_ACTION_MAX " bytes")
    fault = utf8_scan(arr, 1, n, 1, 1)
    if (fault == "utf8") refuse("invalid --next-action: is not valid UTF-8")
    if (fault != "") refuse("invalid --next-action: holds a control character")
    if (!is_timestamp(ENVIRON["DR_CAPTURED_AT"]))
        refuse("invalid --captured-at (want YYYY-MM-DDTHH:MM:SSZ, a real UTC time)")
}

# The active-tasks file: one `TASK-ID | status` per non-empty line (the
# status is checked, not stored). Sets TASKS (IDs, one space apart) and
# TASK_LINES (their frontmatter list).
function read_tasks(    t, line, text, bar, id, seen) {
    if (ENVIRON["DR_TASKS_LEN"] + 0 > 8192) refuse("--active-tasks-file is larger than 8192 bytes")
    TASKS = ""; TASK_LINES = ""
    lines_open("DR_TASKS", "--active-tasks-file", t)
    while (lines_next(t)) {
        if (IN_REFUSAL != "") refuse(IN_REFUSAL)
        line = IN_LINE
        text = substr(ENVIRON["DR_TASKS"], IN_FROM, IN_TO - IN_FROM + 1)
        if (text == "") continue
        bar = index(text, "|")
        id = bar ? substr(text, 1, bar - 1) : text
        sub(/^[ \t]+/, "", id)
        sub(/[ \t]+$/, "", id)
        if (!is_task_id(id)) refuse("--active-tasks-file line " line ": want TASK-ID | status")
        if (id in seen) refuse("--active-tasks-file line " line " repeats " id)
        seen[id] = 1
        TASKS = TASKS (TASKS == "" ? "" : " ") id
        TASK_LINES = TASK_LINES "  - " id "\n"
    }
}

# The Layer 1 lines of --git-state into GL[1..NG]:
# "repo: <path>  HEAD: <sha>  branch: <name>  status: clean|dirty", the path
# as the resume reads it back (scan_repo), "(detached)" for a detached HEAD.
function git_lines(    paths, facts, k, p, f, why, arr, n, claim) {
    NG = 0
    if (ENVIRON["DR_GIT_PATHS"] == "") return
    NG = split(ENVIRON["DR_GIT_PATHS"], paths, "\n")
    split(ENVIRON["DR_GIT_FACTS"], facts, "\n")
    for (k = 1; k <= NG; k++) {
        p = paths[k]
        n = str_bytes(p, arr)
        why = ""
        if (utf8_scan(arr, 1, n, 1, 0) != "") why = "a control character, a tab or bytes that are no UTF-8"
        else if (index(p, "  ")) why = "two spaces in a row"
        else if (index(p, "`")) why = "a backtick"
        else if (p ~ /^ / || p ~ / $/) why = "a space at either end"
        else if (tolower(p) ~ / head:/) why = "\" HEAD:\""
        if (why != "") refuse("--git-state " shown(p) " cannot be written as a Layer 1 line: its path holds " why)
        split(facts[k], f, "\t")
        GL[k] = "repo: " p "  HEAD: " f[1] "  branch: " (f[2] == "" ? "(detached)" : f[2]) \
            "  status: " (f[3] == "true" ? "dirty" : "clean")
        claim = session_untagged_claim(GL[k])
        if (claim != "")
            refuse("--git-state " shown(p) ": its Layer 1 line would hold \"" claim "\", which the claim rule reads as an untagged claim; write that line in the body with a verified: tag instead")
    }
}

# With --git-state, its lines go first in Layer 1: after the body's Layer 1
# heading, or under a new one at the top of a body that has none. A body
# whose Layer 1 already holds a repo: line is refused: the writer writes them.
function insert_git_lines(    k, layer, h, out, n, i) {
    if (!NG) return
    layer = 1; h = 0
    for (k = 1; k <= NL; k++) {
        i = session_layer(L[k])
        if (i) { layer = i; if (i == 1) h = k; continue }
        if (layer == 1 && session_repo_line(L[k]))
            refuse("--body-file line " k " gives a repo: line in Layer 1; with --git-state the writer writes those (leave them out of the body)")
    }
    n = 0
    for (k = 1; k <= h; k++) out[++n] = L[k]
    if (!h) out[++n] = SESSION_HEADING[1]
    for (i = 1; i <= NG; i++) out[++n] = GL[i]
    for (k = h + 1; k <= NL; k++) out[++n] = L[k]
    for (k = 1; k <= n; k++) L[k] = out[k]
    NL = n
}

# The body, from stdin, into L[1..NL]: valid UTF-8, no NUL, the layer
# headings in order, no line that would open a block, every claim tagged.
# With --git-state the writer supplies Layer 1's heading when it is missing.
function read_body(    line, fault, k, arr, m, nul) {
    if (ENVIRON["DR_BODY_LEN"] + 0 > BODY_MAX) refuse("--body-file is larger than " BODY_MAX " bytes")
    NL = 0
    while ((getline line) > 0) L[++NL] = line
    if (NL && substr(L[1], 1, 3) == BOM) L[1] = substr(L[1], 4)
    nul = ENVIRON["DR_BODY_NUL"] + 0
    for (k = 1; k <= NL; k++) {
        if (L[k] !~ /[\200-\377]/) continue
        m = str_bytes(L[k], arr)
        if (utf8_scan(arr, 1, m, 0, 0) != "") refuse("--body-file is not valid UTF-8")
    }
    if (nul >= 0) refuse("--body-file holds a NUL byte")
    session_headings_reset()
    for (k = 1; k <= NL; k++) {
        fault = session_heading_fault(L[k], k)
        if (fault != "") refuse("--body-file line " k ": " fault)
        if (k < NL && session_opens_block(L[k], L[k + 1]))
            refuse("--body-file line " k ": a \"---\" line followed by \"artifact:\" would read as a new block")
        fault = session_untagged_claim(L[k])
        if (fault != "") refuse("--body-file line " k " claims \"" fault "\" without a verified: or assumed: tag")
    }
    if (NG) SESSION_HAS_LAYER[1] = 1
    fault = session_headings_missing()
    if (fault != "") refuse("--body-file has no \"" fault "\" line" SESSION_MISSING_NOTE)
}

function check_old() {
    OLD_LEN = ENVIRON["DR_OLD_LEN"]
    if (OLD_LEN == "") { OLD_LEN = 0; return }
    OLD_LEN += 0
    N = OLD_LEN
    CONTEXT = ""
    session_check_file(ENVIRON["DR_SESSION"], ENVIRON["DR_OLD"], ENVIRON["DR_OLD_NUL"] + 0)
}

# Line index of the heading after layer k's (layer 5's always exists).
function next_heading(k,    j) {
    for (j = k + 1; j <= 5; j++) if (H[j]) return H[j]
}

# Cuts layers 3, 4, then 2 (each keeping its heading and its leading whole
# lines, then the marker) until TOTAL fits in room; refuses when even that
# is not enough.
function fit(room,    order, o, k, a, b, i, size, base, acc, marker) {
    marker = length(SESSION_MARKER) + 1
    split("3 4 2", order, " ")
    for (o = 1; o <= 3; o++) {
        if (TOTAL <= room) return
        k = order[o]
        if (!H[k]) continue
        a = H[k] + 1
        b = next_heading(k) - 1
        size = 0
        for (i = a; i <= b; i++) size += length(L[i]) + 1
        if (size <= marker) continue
        base = TOTAL - size + marker
        acc = 0
        KEEP_TO[k] = a - 1
        for (i = a; i <= b; i++) {
            if (base + acc + length(L[i]) + 1 > room) break
            acc += length(L[i]) + 1
            KEEP_TO[k] = i
        }
        DROP_TO[k] = b
        TOTAL = base + acc
    }
    if (TOTAL <= room) return
    if (OLD_LEN)
        refuse("handoff not saved: " ENVIRON["DR_OLD_NAME"] " has " room " bytes left under the " SESSION_CAP \
            "-byte cap and this block needs at least " TOTAL "; start a new session")
    refuse("handoff not saved: this block needs at least " TOTAL " bytes (frontmatter, layers 1 and 5, headings), over the " \
        SESSION_CAP "-byte cap; start a new session with shorter layers 1 and 5")
}

BEGIN {
    rules_init()
    redact_init()
    session_init()
    BODY_MAX = 1048576
    check_values()
    read_tasks()
    git_lines()
    read_body()
    insert_git_lines()
    check_old()

    NL = redact_lines(L, NL)
    # A tag inside a quoted secret (api_key='abc verified: x') goes with it.
    for (k = 1; k <= NL; k++) {
        fault = session_untagged_claim(L[k])
        if (fault != "")
            refuse("--body-file: redacting a secret also removed the verified: or assumed: tag of \"" fault \
                "\" (line " k " of the redacted body); keep tags apart from secrets")
    }
    NEXT_ACTION = redact_text(NEXT_ACTION)
    str_bytes(NEXT_ACTION, arr)
    QUOTED_NEXT_ACTION = yaml_quote(arr, 1, length(NEXT_ACTION))
    # Escaping and redaction can lengthen it past what the validator reads.
    if (!session_next_action_ok(QUOTED_NEXT_ACTION))
        refuse("invalid --next-action: longer than " SESSION_NEXT_ACTION_MAX " bytes once \" and \\ are escaped and secrets redacted")
    head = "---\nartifact: session-handoff\nschema_version: 1\nsession_id: " ENVIRON["DR_SESSION"] \
        "\ncaptured_at: " ENVIRON["DR_CAPTURED_AT"] "\ncaptured_by: " ENVIRON["DR_CAPTURED_BY"] \
        "\nrecommended_next: " ENVIRON["DR_RECOMMENDED_NEXT"] \
        "\nnext_action: " QUOTED_NEXT_ACTION \
        "\nactive_tasks:" (TASK_LINES == "" ? " []\n" : "\n" TASK_LINES) "---\n\n"

    TOTAL = length(head)
    for (k = 1; k <= NL; k++) {
        TOTAL += length(L[k]) + 1
        layer = session_layer(L[k])
        if (layer) H[layer] = k
    }
    fit(SESSION_CAP - (OLD_LEN ? OLD_LEN + 1 : 0))

    printf "%d\n%s\n%s\n%s", REDACT_COUNT, NEXT_ACTION, TASKS, head
    for (k = 2; k <= 4; k++) if (k in KEEP_TO) MARK_AFTER[KEEP_TO[k]] = k
    k = 0
    for (i = 1; i <= NL; i++) {
        layer = session_layer(L[i])
        if (layer) k = layer
        if ((k in KEEP_TO) && i > KEEP_TO[k] && i <= DROP_TO[k]) continue
        printf "%s\n", L[i]
        if (i in MARK_AFTER) printf "%s\n", SESSION_MARKER
    }
    printf "."
    exit 0
}
