# Python twin: python/src/datarim_snapshot/_session_format.py
# The session-handoff artefact (spec §5): layer headings, claim
# provenance and the whole-file check every block must pass. Shared by the
# writer (which checks a file before appending to it), the validator and the
# resume. Mirrors python/src/datarim_snapshot/_session_format.py.
#
# session_check_file(id, text, nul) judges the file's N bytes, of which
# text holds those before the first NUL (at offset nul, -1: none), and calls
# broken(msg) on the first broken rule; CONTEXT ("block 2: ") prefixes the
# frontmatter messages. On success it leaves the newest block's fields in
# LAST_RECOMMENDED, LAST_NEXT_ACTION (its text, the quoting undone) and LAST_TASKS (IDs, one
# space apart), and its body as bytes LAST_BODY_FROM..LAST_BODY_TO of TEXT, starting on
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

# The layer (1..5) whose heading line this is, or 0. A heading is "## Layer N"
# followed by the end of the line, a space or a dash (-, en or em dash), as
# the reference reads them (spec §8): "## Layer 5" alone is one, the long
# "## Layer 1 — Git State" too. A CR that ends the line (a CRLF body) is not
# part of the heading.
function session_layer(line,    k, rest) {
    if (substr(line, 1, 9) != "## Layer ") return 0
    k = substr(line, 10, 1)
    if (k !~ /^[12345]$/) return 0
    rest = substr(line, 11)
    if (rest == "" || rest == "\r") return k + 0
    rest = substr(rest, 1, 3)
    if (rest ~ /^[ -]/ || rest == "\342\200\224" || rest == "\342\200\223") return k + 0
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
    low = tolower(line)
    # No claim word anywhere (the common line): nothing to look for.
    if (low !~ /pushed|merged|deployed|green|passing/) return ""
    if (session_tagged(line)) return ""
    best = 0
    for (k = 1; k <= 5; k++) {
        p = session_word(low, SESSION_CLAIM[k])
        if (p && (!best || p < best)) { best = p; width = length(SESSION_CLAIM[k]) }
    }
    return best ? substr(line, best, width) : ""
}

# Heading order, one body line at a time: call session_headings_reset()
# before a body, session_heading_fault(line, n) on each line n ("" or why the
# heading is out of place), session_headings_missing() after the last; when a
# required heading is missing but a line looked like it, SESSION_MISSING_NOTE
# names that line and how it differs (" (line 3 ...)"), else it is "".
function session_headings_reset(    k) {
    SESSION_LAST_LAYER = 0
    for (k = 1; k <= 5; k++) { SESSION_HAS_LAYER[k] = 0; SESSION_NEAR[k] = "" }
}

# A line that is no layer heading but looks like layer k's heading: sets
# SESSION_NEAR_WHY to how it differs and returns k; else returns 0. Looks
# like one: blanks, "#"s or "**" (bold), blanks, "layer" in any case, at most
# six other bytes (blanks, dashes), a digit 1..5 not followed by a digit.
function session_near_miss(line,    s, lead, hashes, bold, gap, word, sep, i, c, k) {
    # Without "layer" in any case no line looks like a heading.
    if (line !~ /[Ll][Aa][Yy][Ee][Rr]/) return 0
    sub(/\r$/, "", line)
    if (session_layer(line)) return 0
    s = line
    lead = match(s, /^[ \t]+/) ? RLENGTH : 0
    s = substr(s, lead + 1)
    hashes = 0; bold = 0
    if (substr(s, 1, 2) == "**" || substr(s, 1, 2) == "__") { bold = 1; s = substr(s, 3) }
    else if (match(s, /^#+/)) { hashes = RLENGTH; s = substr(s, RLENGTH + 1) }
    else return 0
    gap = match(s, /^[ \t]+/) ? substr(s, 1, RLENGTH) : ""
    s = substr(s, length(gap) + 1)
    word = substr(s, 1, 5)
    if (tolower(word) != "layer") return 0
    s = substr(s, 6)
    for (i = 1; i <= 7; i++) {
        c = substr(s, i, 1)
        if (c ~ /[0-9A-Za-z]/ || c == "") break
    }
    if (i > 7 || c !~ /^[1-5]$/) return 0
    sep = substr(s, 1, i - 1)
    k = c + 0
    if (substr(s, i + 1, 1) ~ /[0-9]/) return 0
    if (lead) SESSION_NEAR_WHY = "starts with blanks"
    else if (bold) SESSION_NEAR_WHY = "is bold text, not a ## heading"
    else if (hashes != 2) SESSION_NEAR_WHY = "is a level-" hashes " heading, not level 2 (##)"
    else if (gap != " ") SESSION_NEAR_WHY = gap == "" ? "has no space after ##" : "wants one space after ##"
    else if (word != "Layer") SESSION_NEAR_WHY = "spells \"" word "\" where \"Layer\" goes"
    else if (sep != " ") SESSION_NEAR_WHY = "wants one space between Layer and " k
    # "## Layer N" as it should be: what follows N is what session_layer refused.
    else SESSION_NEAR_WHY = "wants a space, a dash or the end of the line after Layer " k
    return k
}

function session_heading_fault(line, n,    k, text) {
    k = session_layer(line)
    if (!k) {
        k = session_near_miss(line)
        if (k && SESSION_NEAR[k] == "") {
            text = line
            sub(/\r$/, "", text)
            SESSION_NEAR[k] = " (line " n " \"" session_cut_line(text) "\" " SESSION_NEAR_WHY ")"
        }
        return ""
    }
    if (k <= SESSION_LAST_LAYER) return "\"" SESSION_HEADING[k] "\" repeats or is out of order"
    SESSION_LAST_LAYER = k
    SESSION_HAS_LAYER[k] = 1
    return ""
}

function session_headings_missing(    k) {
    SESSION_MISSING_NOTE = ""
    for (k = 1; k <= 5; k += 4) {
        if (SESSION_HAS_LAYER[k]) continue
        SESSION_MISSING_NOTE = SESSION_NEAR[k]
        return SESSION_HEADING[k]
    }
    return ""
}

# A line as a message shows it: control characters as "?", at most 80 bytes
# (cut at a character boundary, then "...").
function session_cut_line(line,    n) {
    line = shown(line)
    if (length(line) <= 80) return line
    n = 78
    while (n > 0 && substr(line, n, 1) ~ /[\200-\277]/) n--
    return substr(line, 1, n - 1) "..."
}

# A Layer 1 line the resume reads as a repository's (scan_repo in
# session-replay.awk): "repo:" after an optional "- " or "* ", in any case,
# then blanks and "HEAD:" somewhere after it.
function session_repo_line(line,    low) {
    if (substr(line, 1, 2) == "- " || substr(line, 1, 2) == "* ") line = substr(line, 3)
    low = tolower(line)
    return substr(low, 1, 5) == "repo:" && low ~ /[ \t]+head:/
}

# The next_action value as saved: double-quoted (what the writer writes; it
# refuses what this refuses), not empty, its escaped text at most
# SESSION_NEXT_ACTION_MAX bytes; or plain as the reference writes it (spec §8),
# the rest of the line verbatim, at most SESSION_NEXT_ACTION_MAX bytes.
function session_next_action_ok(v) {
    if (substr(v, 1, 1) != "\"") return length(v) <= SESSION_NEXT_ACTION_MAX && yaml_scalar_ok(v)
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
    LAST_NEXT_ACTION = yaml_scalar(LAST_NEXT_ACTION)
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

# session_check_input(): sets up the rules and the session tables, then
# session_check_file of the artefact in ENVIRON: DR_SESSION (its ID), DR_FILE
# (its bytes before the first NUL), DR_FILE_LEN and DR_FILE_NUL.
function session_check_input() {
    rules_init()
    session_init()
    CONTEXT = ""
    N = ENVIRON["DR_FILE_LEN"] + 0
    session_check_file(ENVIRON["DR_SESSION"], ENVIRON["DR_FILE"], ENVIRON["DR_FILE_NUL"] + 0)
}

# (The file is read as TEXT, frontmatter.awk's TEXT_MODE: its line ends are
# found once, not byte by byte.)
function session_check_file(id, text, nul,    block, line, a, b, mark, markl, fault, from, to, first, seg) {
    TEXT_MODE = 1
    TEXT = text
    open_frontmatter(SESSION_CAP, length(text), nul)
    if (substr(TEXT, N, 1) != "\n") broken("does not end with a newline")
    SESSION_LINE = 1
    block = 0
    while (1) {
        block++
        CONTEXT = "block " block ": "
        # The frontmatter's own lines: artifact .. "---" and the blank line.
        mark = POS
        session_check_frontmatter(id)
        seg = substr(TEXT, mark, POS - mark)
        SESSION_LINE += gsub(/\n/, "", seg)
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
            fault = session_heading_fault(line, SESSION_LINE)
            if (fault != "") session_broken_line(SESSION_LINE, fault)
            fault = session_untagged_claim(line)
            if (fault != "") session_broken_line(SESSION_LINE, "claims \"" fault "\" without a verified: or assumed: tag")
        }
        fault = session_headings_missing()
        if (fault != "") broken("no \"" fault "\" heading" SESSION_MISSING_NOTE)
        LAST_BODY_FROM = from
        LAST_BODY_TO = to
        LAST_BODY_LINE = first
        if (line == "\001EOF") break
    }
    CONTEXT = ""
}
