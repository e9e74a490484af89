# Python twin: python/src/datarim_snapshot/_hook_payload.py
# Reads a Claude Code hook payload and prints its "source" and "cwd" members,
# one a line, then its "session_id" (an empty line when it is not such a
# string: only the pending resume of a /clear needs it). Exits 1 unless the payload is one strict JSON object (RFC 8259:
# valid UTF-8, no BOM, no NaN or Infinity, nesting at most 64 deep) whose
# "source" (or, without one, "hook_event_name" "PreCompact", printed as the
# source) and "cwd" members (the last of each name) are strings without
# control characters. The verdicts are those of Python's json.loads plus the
# same checks (its twin, hook_payload.py).
# ENVIRON: DR_PAYLOAD (the bytes before the first NUL), DR_PAYLOAD_NUL (the
# offset of that NUL, -1 when none). Needs datarim-rules.awk before it.
#
# The parser below is also the JSON reader of the other hooks
# (hook-fields.awk, transcript-tail.awk, hooks-splice.awk): loaded before this
# file, their BEGIN runs first and exits, so the BEGIN at the end of this file
# runs only for the SessionStart hook. After parse_object(1) on S (the text,
# N its length, P = 1), every member at every depth is recorded by its path:
# a top-level member by its name, a nested one as <parent path> SUBSEP <name>
# (SUBSEP <index from 0> for an array element). TYPE[path] is "string",
# "number", "true", "false", "null", "object" or "array"; STR[path] and
# BAD[path] hold a string's text and its flag (see parse_string);
# FROM[path] and UPTO[path] the first and last byte of the value's text. For
# an object or array, COUNT[path] counts its members, FIRST[path] is the first
# byte of its first member (a key's quote) and LAST[path] the last byte of
# its last member's value; ROOT_START, ROOT_END, ROOT_COUNT, ROOT_FIRST and
# ROOT_LAST hold the same for the payload object itself. DUP is 1 when some
# object repeats a name. Names that hold SUBSEP are not recorded (nor what
# they hold): a path built from one could pass for another's.

# FAIL_STATUS, when a reader sets it, replaces 1 (copilot-otel.awk: the
# messages inside a valid span).
function fail() {
    exit (FAIL_STATUS ? FAIL_STATUS : 1)
}

# read_stdin(): the standard input, read as one record (RS "\002") into S;
# returns the number of bytes read.
# write_answer(text): a turn's answer into ENVIRON["DR_HOOK_TEXT_FILE"] (the
# Stop hook's readers: transcript-tail.awk, copilot-otel.awk); exits 0, or 4
# when it cannot be written.
function write_answer(text,    file) {
    file = ENVIRON["DR_HOOK_TEXT_FILE"]
    printf "%s", text > file
    if (close(file) != 0) exit 4
    exit 0
}

function read_stdin(    part, size) {
    RS = "\002"
    size = 0
    while ((getline part) > 0) {
        size += length(part)
        S = part
    }
    return size
}

# parse_document(): S (N bytes) as one JSON object with nothing but white
# space around it, parsed from its start (see the top); fail()s otherwise.
function parse_document() {
    P = 1
    skip_ws()
    if (substr(S, P, 1) != "{") fail()
    parse_object(1, "")
    skip_ws()
    if (P <= N) fail()
}

function skip_ws(    c) {
    while (P <= N) {
        c = substr(S, P, 1)
        if (c != " " && c != "\t" && c != "\n" && c != "\r") return
        P++
    }
}

function expect(c) {
    skip_ws()
    if (substr(S, P, 1) != c) fail()
    P++
}

# A JSON value at P; sets VTYPE (see TYPE above), and VSTR and STRBAD for a
# string. The value's members are recorded below path (see the top) unless
# NOREC is set.
function parse_value(depth, path,    c, start) {
    skip_ws()
    c = substr(S, P, 1)
    start = P
    if (c == "{") { parse_object(depth + 1, path); VTYPE = "object" }
    else if (c == "[") { parse_array(depth + 1, path); VTYPE = "array" }
    else if (c == "\"") { VSTR = parse_string(); VTYPE = "string" }
    else if (substr(S, P, 4) == "true") { P += 4; VTYPE = "true" }
    else if (substr(S, P, 4) == "null") { P += 4; VTYPE = "null" }
    else if (substr(S, P, 5) == "false") { P += 5; VTYPE = "false" }
    else { parse_number(); VTYPE = "number" }
    VSTART = start
}

# Records the value just parsed (VTYPE, VSTR, STRBAD; from VSTART to P - 1) at path.
function record(path) {
    if (NOREC) return
    TYPE[path] = VTYPE; STR[path] = VSTR; BAD[path] = STRBAD
    FROM[path] = VSTART; UPTO[path] = P - 1
}

# Records what a container at path holds: its count, first and last member.
function record_members(depth, path, count, first, last, open) {
    if (NOREC) return
    if (depth == 1) {
        ROOT_START = open; ROOT_END = P - 1; ROOT_COUNT = count; ROOT_FIRST = first; ROOT_LAST = last
    } else {
        COUNT[path] = count; FIRST[path] = first; LAST[path] = last
    }
}

function parse_object(depth, path,    key, c, child, count, first, last, open, skipped, seen) {
    if (depth > 64) fail()
    open = P
    P++
    skip_ws()
    count = 0
    if (substr(S, P, 1) == "}") { P++; record_members(depth, path, 0, 0, 0, open); return }
    while (1) {
        skip_ws()
        if (substr(S, P, 1) != "\"") fail()
        if (!count) first = P
        key = parse_string()
        # A key holding U+0000 or a lone surrogate names no member we read
        # (json.loads keeps those characters; awk strings cannot).
        if (STRBAD) key = "\001" key
        expect(":")
        if (key in seen) DUP = 1
        seen[key]
        child = depth == 1 ? key : path SUBSEP key
        skipped = !NOREC && index(key, SUBSEP)
        if (skipped) NOREC = 1
        parse_value(depth, child)
        record(child)
        if (skipped) NOREC = 0
        last = P - 1
        count++
        skip_ws()
        c = substr(S, P, 1)
        P++
        if (c == "}") { record_members(depth, path, count, first, last, open); return }
        if (c != ",") fail()
    }
}

function parse_array(depth, path,    c, child, count, first, last, open) {
    if (depth > 64) fail()
    open = P
    P++
    skip_ws()
    count = 0
    if (substr(S, P, 1) == "]") { P++; record_members(depth, path, 0, 0, 0, open); return }
    while (1) {
        skip_ws()
        if (!count) first = P
        child = path SUBSEP count
        parse_value(depth, child)
        record(child)
        last = P - 1
        count++
        skip_ws()
        c = substr(S, P, 1)
        P++
        if (c == "]") { record_members(depth, path, count, first, last, open); return }
        if (c != ",") fail()
    }
}

function digits(    start) {
    start = P
    while (P <= N && index("0123456789", substr(S, P, 1))) P++
    return P > start
}

function parse_number(    c) {
    if (substr(S, P, 1) == "-") P++
    c = substr(S, P, 1)
    if (c == "0") P++
    else if (c != "" && index("123456789", c)) digits()
    else fail()
    if (substr(S, P, 1) == ".") { P++; if (!digits()) fail() }
    c = substr(S, P, 1)
    if (c == "e" || c == "E") {
        P++
        c = substr(S, P, 1)
        if (c == "+" || c == "-") P++
        if (!digits()) fail()
    }
}

function hex4(at,    k, c, v, d) {
    v = 0
    for (k = 0; k < 4; k++) {
        c = substr(S, at + k, 1)
        d = index("0123456789abcdef", tolower(c))
        if (c == "" || !d) fail()
        v = v * 16 + d - 1
    }
    return v
}

# cp as UTF-8 bytes.
function utf8_encode(cp) {
    if (cp < 128) return CHR[cp]
    if (cp < 2048) return CHR[192 + int(cp / 64)] CHR[128 + cp % 64]
    if (cp < 65536) return CHR[224 + int(cp / 4096)] CHR[128 + int(cp / 64) % 64] CHR[128 + cp % 64]
    return CHR[240 + int(cp / 262144)] CHR[128 + int(cp / 4096) % 64] CHR[128 + int(cp / 64) % 64] CHR[128 + cp % 64]
}

# The string at P (which holds the opening quote), escapes decoded. STRBAD is
# set when it holds U+0000 or a lone surrogate (which no path can hold).
function parse_string(    out, start, c, cp, low) {
    P++
    STRBAD = 0
    out = ""
    start = P
    while (1) {
        if (P > N) fail()
        c = substr(S, P, 1)
        if (c == "\"") break
        if (ORD[c] < 32) fail()
        if (c != "\\") { P++; continue }
        out = out substr(S, start, P - start)
        c = substr(S, P + 1, 1)
        if (c == "\"" || c == "\\" || c == "/") out = out c
        else if (c == "b") out = out "\b"
        else if (c == "f") out = out "\f"
        else if (c == "n") out = out "\n"
        else if (c == "r") out = out "\r"
        else if (c == "t") out = out "\t"
        else if (c == "u") {
            cp = hex4(P + 2)
            P += 4
            if (cp >= 55296 && cp <= 56319 && substr(S, P + 2, 2) == "\\u") {
                low = hex4(P + 4)
                if (low >= 56320 && low <= 57343) {
                    cp = 65536 + (cp - 55296) * 1024 + (low - 56320)
                    P += 6
                }
            }
            if (cp == 0 || (cp >= 55296 && cp <= 57343)) STRBAD = 1
            else out = out utf8_encode(cp)
        } else fail()
        P += 2
        start = P
    }
    out = out substr(S, start, P - start)
    P++
    return out
}

# A member fit for use: a string, without U+0000, lone surrogates or controls.
function usable(key,    arr, n) {
    if (TYPE[key] != "string" || BAD[key]) return 0
    n = str_bytes(STR[key], arr)
    return utf8_scan(arr, 1, n, 1, 0) == ""
}

BEGIN {
    rules_init()
    S = ENVIRON["DR_PAYLOAD"]
    N = length(S)
    if (ENVIRON["DR_PAYLOAD_NUL"] + 0 >= 0) fail()
    if (utf8_scan(B, 1, str_bytes(S, B), 0, 0) != "") fail()
    parse_document()
    # A PreCompact payload (GitHub Copilot CLI's) has no source: its event
    # name stands for one.
    source = usable("source") ? STR["source"] : ""
    if (source == "" && usable("hook_event_name") && STR["hook_event_name"] == "PreCompact") source = "PreCompact"
    if (source == "" || !usable("cwd")) fail()
    printf "%s\n%s\n%s", source, STR["cwd"], usable("session_id") ? STR["session_id"] : ""
}
