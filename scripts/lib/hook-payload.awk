# Reads a Claude Code hook payload and prints its "source" and "cwd" members,
# one a line. Exits 1 unless the payload is one strict JSON object (RFC 8259:
# valid UTF-8, no BOM, no NaN or Infinity, nesting at most 64 deep) whose
# "source" and "cwd" members (the last of each name) are strings without
# control characters. The verdicts are those of Python's json.loads plus the
# same checks (python/src/datarim_snapshot/hook.py).
# ENVIRON: DR_PAYLOAD (the bytes before the first NUL), DR_PAYLOAD_NUL (the
# offset of that NUL, -1 when none). Needs datarim-rules.awk before it.

function fail() {
    exit 1
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

# A JSON value at P; sets VTYPE ("string" or "other"), and VSTR and STRBAD
# for a string.
function parse_value(depth,    c) {
    skip_ws()
    c = substr(S, P, 1)
    VTYPE = "other"
    if (c == "{") parse_object(depth + 1)
    else if (c == "[") parse_array(depth + 1)
    else if (c == "\"") { VSTR = parse_string(); VTYPE = "string" }
    else if (substr(S, P, 4) == "true" || substr(S, P, 4) == "null") P += 4
    else if (substr(S, P, 5) == "false") P += 5
    else parse_number()
    if (c == "{" || c == "[") VTYPE = "other"
}

function parse_object(depth,    key, c) {
    if (depth > 64) fail()
    P++
    skip_ws()
    if (substr(S, P, 1) == "}") { P++; return }
    while (1) {
        skip_ws()
        if (substr(S, P, 1) != "\"") fail()
        key = parse_string()
        # A key holding U+0000 or a lone surrogate names no member we read
        # (json.loads keeps those characters; awk strings cannot).
        if (STRBAD) key = "\001" key
        expect(":")
        parse_value(depth)
        if (depth == 1) { TYPE[key] = VTYPE; STR[key] = VSTR; BAD[key] = STRBAD }
        skip_ws()
        c = substr(S, P, 1)
        P++
        if (c == "}") return
        if (c != ",") fail()
    }
}

function parse_array(depth,    c) {
    if (depth > 64) fail()
    P++
    skip_ws()
    if (substr(S, P, 1) == "]") { P++; return }
    while (1) {
        parse_value(depth)
        skip_ws()
        c = substr(S, P, 1)
        P++
        if (c == "]") return
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
    P = 1
    skip_ws()
    if (substr(S, P, 1) != "{") fail()
    parse_object(1)
    skip_ws()
    if (P <= N) fail()
    if (!usable("source") || !usable("cwd")) fail()
    printf "%s\n%s", STR["source"], STR["cwd"]
}
