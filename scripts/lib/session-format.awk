# The session-handoff artefact (CONTRACT §5): layer headings, claim
# provenance and the whole-file check every block must pass. Shared by the
# writer (which checks a file before appending to it), the validator and the
# resume. Mirrors python/src/datarim_snapshot/session_format.py.
#
# session_check_file(id, ntext, nul) judges the file's N bytes, of which
# B[1..ntext] are those before the first NUL (at offset nul, -1: none), and calls
# broken(msg) on the first broken rule; CONTEXT ("block 2: ") prefixes the
# frontmatter messages. On success it leaves the newest block's fields in
# LAST_RECOMMENDED, LAST_NEXT_ACTION (still quoted) and LAST_TASKS (IDs, one
# space apart), and its body as B[LAST_BODY_FROM..LAST_BODY_TO], starting on
# file line LAST_BODY_LINE. Needs datarim-rules.awk and frontmatter.awk.

function session_init(    k) {
    SESSION_CAP = 32768
    SESSION_MARKER = "<!-- session-truncated: Layer-3/4 content dropped to honour 32 KB cap -->"
    SESSION_NEXT_ACTION_MAX = 4096
    split("Git State|Active Tasks|Related Files|Open Questions|Failed Approaches", SESSION_LAYER_NAME, "|")
    for (k = 1; k <= 5; k++) SESSION_HEADING[k] = "## Layer " k " \342\200\224 " SESSION_LAYER_NAME[k]
    split("pushed merged deployed green passing", SESSION_CLAIM, " ")
    SESSION_FIELDS = " artifact schema_version session_id captured_at captured_by recommended_next next_action active_tasks "
}

# The layer (1..5) whose heading line this is, or 0. A CR that ends the line
# (a CRLF body) is not part of the heading.
function session_layer(line,    k) {
    if (substr(line, 1, 9) != "## Layer ") return 0
    sub(/\r$/, "", line)
    for (k = 1; k <= 5; k++) if (line == SESSION_HEADING[k]) return k
    return 0
}

function session_is_word_char(c) {
    return c != "" && c ~ /^[A-Za-z0-9_]$/
}

# Position of the first occurrence of w in low that is a whole word (no
# letter, digit or underscore touches it), or 0.
function session_word(low, w,    P, n, k, p) {
    n = occurrences(low, w, P)
    for (k = 1; k <= n; k++) {
        p = P[k]
        if (p > 1 && session_is_word_char(substr(low, p - 1, 1))) continue
        if (session_is_word_char(substr(low, p + length(w), 1))) continue
        return p
    }
    return 0
}

# 1 when line holds a provenance tag: verified:, assumed: or unverified:
# (what the replay shows for a failed probe, so a line carried over from a
# replay stays tagged), each as a whole word: nothing of [A-Za-z0-9_] just
# before it ("xverified:" is no tag).
function session_tagged(line,    T, t, n, k, P) {
    split("verified: assumed: unverified:", T, " ")
    for (t = 1; t <= 3; t++) {
        n = occurrences(line, T[t], P)
        for (k = 1; k <= n; k++)
            if (P[k] == 1 || !session_is_word_char(substr(line, P[k] - 1, 1))) return 1
    }
    return 0
}

# The claim word (as written) of a line that claims pushed, merged,
# deployed, green or passing (whole word, any case) without a provenance
# tag (session_tagged); "" when the line is fine.
function session_untagged_claim(line,    low, k, p, best, width) {
    if (session_tagged(line)) return ""
    low = tolower(line)
    best = 0
    for (k = 1; k <= 5; k++) {
        p = session_word(low, SESSION_CLAIM[k])
        if (p && (!best || p < best)) { best = p; width = length(SESSION_CLAIM[k]) }
    }
    return best ? substr(line, best, width) : ""
}

# Heading order, one body line at a time: call session_headings_reset()
# before a body, session_heading_fault(line) on each line ("" or why the
# heading is out of place), session_headings_missing() after the last.
function session_headings_reset(    k) {
    SESSION_LAST_LAYER = 0
    for (k = 1; k <= 5; k++) SESSION_HAS_LAYER[k] = 0
}

function session_heading_fault(line,    k) {
    k = session_layer(line)
    if (!k) return ""
    if (k <= SESSION_LAST_LAYER) return "\"" SESSION_HEADING[k] "\" repeats or is out of order"
    SESSION_LAST_LAYER = k
    SESSION_HAS_LAYER[k] = 1
    return ""
}

function session_headings_missing() {
    if (!SESSION_HAS_LAYER[1]) return SESSION_HEADING[1]
    if (!SESSION_HAS_LAYER[5]) return SESSION_HEADING[5]
    return ""
}

# The next_action value as saved (double-quoted): not empty, its escaped text
# at most SESSION_NEXT_ACTION_MAX bytes. The writer refuses what this refuses.
function session_next_action_ok(v) {
    return v != "\"\"" && length(v) <= SESSION_NEXT_ACTION_MAX + 2 && yaml_quoted_ok(v)
}

# A "---" line followed by one starting "artifact:" opens a block.
function session_opens_block(line, next_one) {
    return line == "---" && substr(next_one, 1, 9) == "artifact:"
}

# Next line of B, counting file lines in SESSION_LINE.
function session_line(    line) {
    line = next_line()
    if (line != "\001EOF") SESSION_LINE++
    return line
}

function session_broken_line(n, msg) {
    CONTEXT = ""
    broken("line " n " " msg)
}

function session_check_frontmatter(id,    v, line, items, mark, item) {
    split("", SEEN)
    FIELDS = SESSION_FIELDS
    LISTS = " active_tasks "
    if (expect_field("artifact") != "session-handoff") broken("artifact is not session-handoff")
    if (expect_field("schema_version") != "1") broken("schema_version is not 1")
    v = expect_field("session_id")
    if (v != id) broken("session_id " shown(v) " does not match the file name")
    if (!is_timestamp(expect_field("captured_at"))) broken("bad captured_at")
    if (!is_captured_by(expect_field("captured_by"))) broken("bad captured_by")
    LAST_RECOMMENDED = expect_field("recommended_next")
    v = slash_command_fault(LAST_RECOMMENDED)
    if (v != "") broken("bad recommended_next: " v)
    LAST_NEXT_ACTION = expect_field("next_action")
    if (!session_next_action_ok(LAST_NEXT_ACTION)) broken("bad next_action")
    line = expect_field("active_tasks")
    LAST_TASKS = ""
    if (line == "active_tasks:") {
        items = 0
        split("", TASK_SEEN)
        while (1) {
            mark = POS
            item = next_line()
            if (substr(item, 1, 2) != "  ") { POS = mark; break }
            items++
            v = substr(item, 5)
            if (substr(item, 1, 4) != "  - " || !is_task_id(v)) broken("bad active_tasks item " items)
            if (v in TASK_SEEN) broken("active_tasks item " items " repeats " v)
            TASK_SEEN[v] = 1
            LAST_TASKS = LAST_TASKS (items > 1 ? " " : "") v
        }
        if (items == 0) broken("active_tasks is not a list")
    } else if (line != "active_tasks: []") broken("active_tasks is not a list")
    close_frontmatter()
    if (next_line() != "") broken("no blank line after the frontmatter")
}

function session_check_file(id, ntext, nul,    block, line, a, b, mark, markl, fault, from, to, first) {
    open_frontmatter(SESSION_CAP, ntext, nul)
    if (B[N] != 10) broken("does not end with a newline")
    SESSION_LINE = 1
    block = 0
    while (1) {
        block++
        CONTEXT = "block " block ": "
        # The frontmatter's own lines: artifact .. "---" and the blank line.
        mark = POS
        session_check_frontmatter(id)
        for (a = mark; a < POS; a++) if (B[a] == 10) SESSION_LINE++
        from = POS
        first = SESSION_LINE + 1
        session_headings_reset()
        while (1) {
            mark = POS
            markl = SESSION_LINE
            line = session_line()
            if (line == "\001EOF") { to = N; break }
            if (line == "") {
                a = session_line()
                b = next_line()
                if (session_opens_block(a, b)) {
                    POS = POS - length(b) - 1
                    to = mark - 1
                    break
                }
                POS = mark + 1
                SESSION_LINE = markl + 1
                continue
            }
            fault = session_heading_fault(line)
            if (fault != "") session_broken_line(SESSION_LINE, fault)
            fault = session_untagged_claim(line)
            if (fault != "") session_broken_line(SESSION_LINE, "claims \"" fault "\" without a verified: or assumed: tag")
        }
        fault = session_headings_missing()
        if (fault != "") broken("no \"" fault "\" heading")
        LAST_BODY_FROM = from
        LAST_BODY_TO = to
        LAST_BODY_LINE = first
        if (line == "\001EOF") break
    }
    CONTEXT = ""
}
