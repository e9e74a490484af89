# Python twin: python/src/datarim_snapshot/_install_hooks.py
# Merges this project's three hooks into a Claude Code settings.json or a
# Codex hooks.json (install-hooks.sh), changing no byte that is not ours.
# Load it after datarim-rules.awk and before hook-payload.awk, whose parser
# it uses (its BEGIN runs first and exits). Input: the file's bytes through
# `tr '\000\002' '\001\001'` (see hook-fields.awk). Twin of
# python/src/datarim_snapshot/_install_hooks.py (the same splice, step for step).
#
# ENVIRON: DR_SPLICE_SESSION_START, DR_SPLICE_PROMPT, DR_SPLICE_STOP (the
# hook commands); DR_SPLICE_NEW=1 when there is no file yet (read as "{}\n");
# DR_SPLICE_RUNTIME gemini for Gemini CLI's events (below), else Claude Code's.
#
# The file must be one strict JSON object (see hook-payload.awk), at most
# 1 MiB, without a repeated name in any object; "hooks", when there, an
# object; each of its SessionStart, UserPromptSubmit and Stop, when there,
# an array. An event whose groups already run our command exactly is left
# alone; otherwise one group is added to it:
#   SessionStart      {"matcher": "clear|compact|resume|fork", "hooks": [{"type": "command", "command": ..., "timeout": 10}]}
#   UserPromptSubmit  {"hooks": [{"type": "command", "command": ..., "timeout": 10}]}
#   Stop              {"hooks": [{"type": "command", "command": ..., "timeout": 30}]}
# (Gemini CLI: SessionStart without a matcher, its matchers being exact
# strings; BeforeAgent and AfterAgent for the other two; timeouts 10000,
# 10000 and 30000 ms.)
# With DR_SPLICE_SHAPE=copilot (GitHub Copilot CLI's settings.json) an event
# holds its hooks themselves, and one is added to it:
#   SessionStart      {"type": "command", "bash": ..., "timeoutSec": 10}
#   UserPromptSubmit  {"type": "command", "bash": ..., "timeoutSec": 10}
#   Stop              {"type": "command", "bash": ..., "timeoutSec": 30}
#   PreCompact        {"type": "command", "bash": <the SessionStart command>, "timeoutSec": 10}
# (an event whose entries already have our command as "bash" is left alone;
# PreCompact keeps the resume for the prompt after the compaction, which
# Copilot follows with no SessionStart).
# A missing event becomes a member of "hooks"; a missing "hooks" a member of
# the top-level object. Text goes in after the last member of the object or
# array it joins, each item led by "," and the whitespace that leads that
# container's first member, and printed as that first member is indented
# (one more level for what it holds: the step from the container's line);
# into a container on one line, on one line ({"a": 1, "b": [2]}). An empty
# container's inside is replaced by its new items, one a line, a level
# deeper than its own line (a level: the top-level object's first step, else
# two spaces). Lines added end as the file's first line does (LF or CR LF).
# Nothing else changes.
#
# Output: the names of the events added, blank-separated, on the first line;
# then, when some were added, the whole new file. Exit: 0 done; 1 not one
# strict JSON object; 2 a command holds a control character (or is not
# UTF-8); 3 over 1 MiB; 5 "hooks" is not an object; 6 an event is not an
# array (the first such name on the first line); 7 a repeated name.

# The spaces and tabs that start the line holding byte pos.
function line_indent(pos,    i, start, c) {
    i = pos
    while (i > 1 && substr(S, i - 1, 1) != "\n") i--
    start = i
    while (i < pos) {
        c = substr(S, i, 1)
        if (c != " " && c != "\t") break
        i++
    }
    return substr(S, start, i - start)
}

# The indent step of a container opened at o whose first member starts at f:
# that member's indent past the container line's; "" when there is none.
function step_of(o, f,    lead, ind, base) {
    lead = substr(S, o + 1, f - o - 1)
    if (!index(lead, "\n")) return ""
    sub(/^.*\n/, "", lead)
    base = line_indent(o)
    if (length(lead) <= length(base) || substr(lead, 1, length(base)) != base) return ""
    return substr(lead, length(base) + 1)
}

# items[1..n] in brackets: one a line at ind STEP (ind: the bracket's line
# indent), or on one line when INLINE.
function wrap(lb, rb, items, n, ind,    k, out) {
    out = lb
    if (INLINE) {
        for (k = 1; k <= n; k++) out = out (k > 1 ? ", " : "") items[k]
        return out rb
    }
    for (k = 1; k <= n; k++) out = out NL ind STEP items[k] (k < n ? "," : "")
    return out NL ind rb
}

function handler(e, ind,    items) {
    items[1] = "\"type\": \"command\""
    items[2] = "\"command\": " json_string(CMD[e])
    items[3] = "\"timeout\": " TIMEOUT[e]
    return wrap("{", "}", items, 3, ind)
}

function copilot_hook(e, ind,    items) {
    items[1] = "\"type\": \"command\""
    items[2] = "\"bash\": " json_string(CMD[e])
    items[3] = "\"timeoutSec\": " TIMEOUT[e]
    return wrap("{", "}", items, 3, ind)
}

# What one event gets: a group (Claude Code, Codex) or a hook (Copilot).
function group(e, ind,    items, n, h) {
    if (COPILOT) return copilot_hook(e, ind)
    n = 0
    if (MATCHER[e] != "") items[++n] = "\"matcher\": " json_string(MATCHER[e])
    h[1] = handler(e, ind STEP STEP)
    items[++n] = "\"hooks\": " wrap("[", "]", h, 1, ind STEP)
    return wrap("{", "}", items, n, ind)
}

function event_member(e, ind,    g) {
    g[1] = group(e, ind STEP)
    return "\"" EVENT[e] "\": " wrap("[", "]", g, 1, ind)
}

# The member "hooks" holding the events listed (by number) in want[1..n].
function hooks_member(want, n, ind,    m, k) {
    for (k = 1; k <= n; k++) m[k] = event_member(want[k], ind STEP)
    return "\"hooks\": " wrap("{", "}", m, n, ind)
}

# Where items go into the container opened at o, closed at c, with count
# members, the first at first and the last ending at last. Sets INS_POS and
# INS_LEN (the bytes replaced), IND (the items' indent), STEP, INLINE, and
# PRE, SEP, POST (the text around the items: PRE item SEP item ... POST).
function place(o, c, count, first, last,    lead) {
    if (count == 0) {
        INLINE = 0
        STEP = UNIT
        IND = line_indent(o) STEP
        INS_POS = o + 1
        INS_LEN = c - o - 1
        PRE = NL IND
        SEP = "," NL IND
        POST = NL line_indent(o)
        return
    }
    lead = substr(S, o + 1, first - o - 1)
    INS_POS = last + 1
    INS_LEN = 0
    INLINE = !index(lead, "\n")
    STEP = step_of(o, first)
    if (STEP == "") STEP = UNIT
    IND = lead
    sub(/^.*\n/, "", IND)
    PRE = "," lead
    SEP = "," lead
    POST = ""
}

function insert(text) {
    NINS++
    POS[NINS] = INS_POS
    LEN[NINS] = INS_LEN
    TEXT[NINS] = text
}

# 1 when some group of the event array at path runs the event's command.
function ours_present(e, path,    i, j, g) {
    for (i = 0; i < COUNT[path]; i++) {
        if (COPILOT) {
            g = path SUBSEP i SUBSEP "bash"
            if (TYPE[g] == "string" && STR[g] == CMD[e]) return 1
            continue
        }
        g = path SUBSEP i SUBSEP "hooks"
        if (TYPE[g] != "array") continue
        for (j = 0; j < COUNT[g]; j++)
            if (TYPE[g SUBSEP j SUBSEP "command"] == "string" && STR[g SUBSEP j SUBSEP "command"] == CMD[e])
                return 1
    }
    return 0
}

BEGIN {
    rules_init()
    CMD[1] = ENVIRON["DR_SPLICE_SESSION_START"]
    CMD[2] = ENVIRON["DR_SPLICE_PROMPT"]
    CMD[3] = ENVIRON["DR_SPLICE_STOP"]
    COPILOT = ENVIRON["DR_SPLICE_SHAPE"] == "copilot"
    NEV = 3
    if (COPILOT) { NEV = 4; CMD[4] = CMD[1] }
    for (e = 1; e <= 3; e++) if (utf8_scan(B, 1, str_bytes(CMD[e], B), 1, 0) != "") exit 2
    size = 0
    if (ENVIRON["DR_SPLICE_NEW"] == "1") S = "{}\n"
    else size = read_stdin()
    if (size > 1048576) exit 3
    N = length(S)
    if (!utf8_valid(S)) exit 1
    parse_document()
    if (DUP) exit 7

    if (ENVIRON["DR_SPLICE_RUNTIME"] == "gemini") {
        EVENT[1] = "SessionStart"; MATCHER[1] = ""; TIMEOUT[1] = 10000
        EVENT[2] = "BeforeAgent"; MATCHER[2] = ""; TIMEOUT[2] = 10000
        EVENT[3] = "AfterAgent"; MATCHER[3] = ""; TIMEOUT[3] = 30000
    } else {
        EVENT[1] = "SessionStart"; MATCHER[1] = "clear|compact|resume|fork"; TIMEOUT[1] = 10
        EVENT[2] = "UserPromptSubmit"; MATCHER[2] = ""; TIMEOUT[2] = 10
        EVENT[3] = "Stop"; MATCHER[3] = ""; TIMEOUT[3] = 30
        EVENT[4] = "PreCompact"; MATCHER[4] = ""; TIMEOUT[4] = 10
    }
    UNIT = ROOT_COUNT ? step_of(ROOT_START, ROOT_FIRST) : ""
    if (UNIT == "") UNIT = "  "
    # A file whose first line ends in CR LF gets CR LF in what is added.
    NL = match(S, /\n/) && substr(S, RSTART - 1, 1) == "\r" ? "\r\n" : "\n"

    added = ""
    NINS = 0
    if (!("hooks" in TYPE)) {
        for (e = 1; e <= NEV; e++) { want[e] = e; added = added (e > 1 ? " " : "") EVENT[e] }
        place(ROOT_START, ROOT_END, ROOT_COUNT, ROOT_FIRST, ROOT_LAST)
        insert(PRE hooks_member(want, NEV, IND) POST)
    } else {
        if (TYPE["hooks"] != "object") exit 5
        n = 0
        for (e = 1; e <= NEV; e++) {
            path = "hooks" SUBSEP EVENT[e]
            if (!(path in TYPE)) { missing[++n] = e; continue }
            if (TYPE[path] != "array") { print EVENT[e]; exit 6 }
            if (ours_present(e, path)) continue
            place(FROM[path], UPTO[path], COUNT[path], FIRST[path], LAST[path])
            insert(PRE group(e, IND) POST)
            adds[e] = 1
        }
        if (n) {
            place(FROM["hooks"], UPTO["hooks"], COUNT["hooks"], FIRST["hooks"], LAST["hooks"])
            text = PRE
            for (k = 1; k <= n; k++) text = text (k > 1 ? SEP : "") event_member(missing[k], IND)
            insert(text POST)
            for (k = 1; k <= n; k++) adds[missing[k]] = 1
        }
        for (e = 1; e <= NEV; e++) if (adds[e]) added = added (added != "" ? " " : "") EVENT[e]
    }
    printf "%s\n", added
    if (!NINS) exit 0
    # Splice from the first position on (positions never overlap).
    for (i = 1; i <= NINS; i++) order[i] = i
    for (i = 2; i <= NINS; i++)
        for (j = i; j > 1 && POS[order[j - 1]] > POS[order[j]]; j--) {
            t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
        }
    at = 1
    for (i = 1; i <= NINS; i++) {
        k = order[i]
        printf "%s%s", substr(S, at, POS[k] - at), TEXT[k]
        at = POS[k] + LEN[k]
    }
    printf "%s", substr(S, at)
    exit 0
}
