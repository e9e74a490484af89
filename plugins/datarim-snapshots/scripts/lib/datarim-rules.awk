# Python twin: python/src/datarim_snapshot/_rules.py
# Byte-level rules shared by every datarim awk program (run with LC_ALL=C,
# so a string is a string of bytes). File contents arrive through ENVIRON as
# read by dr_read_prefix: the bytes before the first NUL, the number of
# bytes read, and the offset of that NUL (-1 when there is none).
#
# Mirrors python/src/datarim_snapshot/_rules.py; the conformance corpus pins
# that both give the same verdict and message for the same input.

function rules_init(    i) {
    for (i = 1; i < 256; i++) {
        CHR[i] = sprintf("%c", i)
        ORD[CHR[i]] = i
    }
    STAGES = " init prd plan design do qa verify compliance archive edit publish write dream doctor optimize auto "
    CAP = 8192
    MARKER = "\n<!-- snapshot-truncated, full response in session jsonl -->\n"
    # The marker the reference writer ends a cut body with ("ответ см."):
    # read, never written (spec §8).
    REFERENCE_MARKER = "\n<!-- snapshot-truncated, full \320\276\321\202\320\262\320\265\321\202 \321\201\320\274. session jsonl -->\n"
    # A byte-order mark opening an input file is an encoding signature, not
    # text: no part of its first line (nor of a body). Elsewhere U+FEFF is a
    # format character, refused by is_control.
    BOM = "\357\273\277"
}

# string -> arr[1..n] of byte values; returns n.
function str_bytes(s, arr,    n, i) {
    n = length(s)
    for (i = 1; i <= n; i++) arr[i] = ORD[substr(s, i, 1)]
    return n
}

# Length of the UTF-8 character that starts at arr[i] (arr[i..to] being
# available), or 0 when no valid one starts there; sets UTF8_CP to its code
# point. Overlong forms, surrogates and code points past U+10FFFF are invalid.
function utf8_char(arr, i, to,    b, need, cp, lo, hi, k, c) {
    b = arr[i]
    lo = 128; hi = 191
    if (b < 128) { UTF8_CP = b; return 1 }
    else if (b >= 194 && b <= 223) { need = 1; cp = b - 192 }
    else if (b == 224) { need = 2; cp = 0; lo = 160 }
    else if (b >= 225 && b <= 236) { need = 2; cp = b - 224 }
    else if (b == 237) { need = 2; cp = 13; hi = 159 }
    else if (b >= 238 && b <= 239) { need = 2; cp = b - 224 }
    else if (b == 240) { need = 3; cp = 0; lo = 144 }
    else if (b >= 241 && b <= 243) { need = 3; cp = b - 240 }
    else if (b == 244) { need = 3; cp = 4; hi = 143 }
    else return 0
    for (k = 1; k <= need; k++) {
        if (i + k > to) return 0
        c = arr[i + k]
        if (k == 1) { if (c < lo || c > hi) return 0 }
        else if (c < 128 || c > 191) return 0
        cp = cp * 64 + (c - 128)
    }
    UTF8_CP = cp
    return need + 1
}

# The lines of an input file (--options-file, --active-tasks-file) as
# dr_read_prefix read it: ENVIRON[env] its bytes before any NUL,
# ENVIRON[env "_NUL"] that NUL's offset or -1. lines_open(env, flag, B) once
# (B gets the bytes), then while (lines_next(B)): IN_FROM..IN_TO holds the
# line's bytes (no BOM opening the file, no CR of a CRLF; empty when IN_TO <
# IN_FROM), IN_LINE its number, IN_REFUSAL why the file is refused at this
# line (not UTF-8, a control character, the NUL), or "".
function lines_open(env, flag, B) {
    IN_N = str_bytes(ENVIRON[env], B)
    IN_NUL = ENVIRON[env "_NUL"] + 0
    IN_FLAG = flag
    IN_LINE = 0
    IN_AT = substr(ENVIRON[env], 1, 3) == BOM ? 4 : 1
    IN_DONE = 0
}

function lines_next(B,    i, fault) {
    if (IN_DONE) return 0
    i = IN_AT
    while (i <= IN_N && B[i] != 10) i++
    IN_LINE++
    IN_FROM = IN_AT
    IN_TO = i - 1
    if ((i <= IN_N || IN_NUL < 0) && IN_TO >= IN_FROM && B[IN_TO] == 13) IN_TO--
    fault = utf8_scan(B, IN_FROM, IN_TO, 1, 1)
    if (fault == "" && i > IN_N && IN_NUL >= 0) fault = "nul"
    IN_REFUSAL = ""
    if (fault == "utf8") IN_REFUSAL = IN_FLAG " line " IN_LINE " is not valid UTF-8"
    else if (fault != "") IN_REFUSAL = IN_FLAG " line " IN_LINE " holds a control character"
    IN_AT = i + 1
    IN_DONE = i > IN_N
    return 1
}

# Scans arr[from..to] as UTF-8. Returns "" when clean, else the first fault:
# "nul", "utf8" (bad or incomplete sequence), or "control" when ctl is set
# and a code point is not allowed in a one-line YAML value (see is_control).
# tab_ok lets TAB through.
function utf8_scan(arr, from, to, ctl, tab_ok,    i, len) {
    i = from
    while (i <= to) {
        if (arr[i] == 0) return "nul"
        len = utf8_char(arr, i, to)
        if (!len) return "utf8"
        if (ctl && is_control(UTF8_CP, tab_ok)) return "control"
        i += len
    }
    return ""
}

# 1 when s (bytes; run with LC_ALL=C) is valid UTF-8 as Python's strict decoding
# reads it: removing every well-formed multibyte sequence (RFC 3629: no
# overlong form, surrogate or code point past U+10FFFF) leaves no byte of
# 0x80 or more. One regex pass: far cheaper than utf8_scan on long text.
function utf8_valid(s) {
    if (s !~ /[\200-\377]/) return 1
    # No sequence holds an ASCII byte: each run of them as one space leaves
    # the long pattern below a far shorter string to try at every byte.
    gsub(/[\001-\177]+/, " ", s)
    gsub(/[\302-\337][\200-\277]|\340[\240-\277][\200-\277]|[\341-\354\356\357][\200-\277][\200-\277]|\355[\200-\237][\200-\277]|\360[\220-\277][\200-\277][\200-\277]|[\361-\363][\200-\277][\200-\277][\200-\277]|\364[\200-\217][\200-\277][\200-\277]/, "", s)
    return s !~ /[\200-\377]/
}

# Positions of the non-overlapping occurrences of lit in s, left to right,
# into P[1..]; returns their number. lit must hold no regex metacharacter.
function occurrences(s, lit, P,    parts, n, k, pos, width) {
    n = split(s, parts, lit)
    width = length(lit)
    pos = 0
    for (k = 1; k < n; k++) {
        pos += length(parts[k])
        P[k] = pos + 1
        pos += width
    }
    return n > 0 ? n - 1 : 0
}

# Length of the run of characters of class re (one bracket expression) that
# starts at position at of s.
function span(s, at, re,    total, chunk) {
    total = 0
    while (1) {
        chunk = substr(s, at + total, 256)
        if (chunk == "" || !match(chunk, "^" re "+")) return total
        total += RLENGTH
        if (RLENGTH < 256) return total
    }
}

# The code points refused wherever control characters are, the same set as
# _CONTROL_OR_TAB in python/src/datarim_snapshot/_rules.py (which lists them by
# name; docs/hardening.md, "Invisible characters"): C0 (tab optional), DEL,
# C1, LINE/PARAGRAPH SEPARATOR, U+FFFE/F, and the format characters
# (general category Cf, Unicode 15.1): bidi controls, zero-width ones, the
# BOM, tag characters. Decimal, as awk has no hex literals.
function is_control(cp, tab_ok) {
    if (cp == 9) return !tab_ok
    if (cp < 32 || (cp >= 127 && cp <= 159)) return 1
    if (cp < 173) return 0
    if (cp == 8232 || cp == 8233 || cp == 65534 || cp == 65535) return 1
    if (cp < 8203)  # U+00AD, U+0600-0605, U+061C, U+06DD, U+070F, U+0890-0891, U+08E2, U+180E
        return cp == 173 || (cp >= 1536 && cp <= 1541) || cp == 1564 || cp == 1757 ||
            cp == 1807 || cp == 2192 || cp == 2193 || cp == 2274 || cp == 6158
    if (cp <= 8303)  # U+200B-200F, U+202A-202E, U+2060-2064, U+2066-206F
        return cp <= 8207 || (cp >= 8234 && cp <= 8238) || (cp >= 8288 && cp <= 8292) || cp >= 8294
    # U+FEFF, U+FFF9-FFFB, U+110BD, U+110CD, U+13430-1343F, U+1BCA0-1BCA3,
    # U+1D173-1D17A, U+E0001, U+E0020-E007F
    return cp == 65279 || (cp >= 65529 && cp <= 65531) || cp == 69821 || cp == 69837 ||
        (cp >= 78896 && cp <= 78911) || (cp >= 113824 && cp <= 113827) ||
        (cp >= 119155 && cp <= 119162) || cp == 917505 || (cp >= 917536 && cp <= 917631)
}

# Reason a --command / --recommended-next value is refused, or "".
function slash_command_fault(s,    arr, n, fault) {
    fault = ""
    # Printable ASCII alone is clean: the byte scan only for other bytes.
    if (s ~ /[^ -~]/) {
        n = str_bytes(s, arr)
        fault = utf8_scan(arr, 1, n, 1, 0)
    }
    if (fault == "nul" || fault == "control") return "holds a control character"
    if (fault == "utf8") return "is not valid UTF-8"
    if (substr(s, 1, 1) != "/") return "must start with /"
    if (index(s, ": ") || index(s, " #") || s ~ /[: ]$/) return "would break the YAML frontmatter (': ', ' #', or a trailing ':' or space)"
    return ""
}

function is_stage(s) {
    return s != "" && s !~ / / && index(STAGES, " " s " ") > 0
}

function is_captured_by(s) {
    return s == "agent" || s == "operator"
}

# YYYY-MM-DDTHH:MM:SSZ naming a real UTC second (no leap second).
function is_timestamp(s,    y, m, d, dim) {
    if (s !~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z$/) return 0
    y = substr(s, 1, 4) + 0; m = substr(s, 6, 2) + 0; d = substr(s, 9, 2) + 0
    if (y < 1 || m < 1 || m > 12 || d < 1) return 0
    dim = substr("312831303130313130313031", 2 * m - 1, 2) + 0
    if (m == 2 && (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))) dim = 29
    if (d > dim) return 0
    return substr(s, 12, 2) + 0 <= 23 && substr(s, 15, 2) + 0 <= 59 && substr(s, 18, 2) + 0 <= 59
}

# arr[from..to] as a double-quoted YAML string: only \ and " are escaped,
# which is enough once control characters have been refused.
function yaml_quote(arr, from, to,    i, b, out) {
    out = "\""
    for (i = from; i <= to; i++) {
        b = arr[i]
        if (b == 92) out = out "\\\\"
        else if (b == 34) out = out "\\\""
        else out = out CHR[b]
    }
    return out "\""
}

# s is one double-quoted YAML string as yaml_quote writes it: escapes \\ and
# \" only, and valid UTF-8 without control characters (tab aside) inside.
function yaml_quoted_ok(s,    arr, m, i, b, esc, inner) {
    if (length(s) < 2 || substr(s, 1, 1) != "\"" || substr(s, length(s)) != "\"") return 0
    # No escape, no quote, printable ASCII or tab inside: well-formed and clean.
    inner = substr(s, 2, length(s) - 2)
    if (inner !~ /[^\t -~]/ && !index(inner, "\\") && !index(inner, "\"")) return 1
    m = str_bytes(inner, arr)
    esc = 0
    for (i = 1; i <= m; i++) {
        b = arr[i]
        if (esc) { if (b != 92 && b != 34) return 0; esc = 0 }
        else if (b == 92) esc = 1
        else if (b == 34) return 0
    }
    return !esc && utf8_scan(arr, 1, m, 1, 1) == ""
}

# The value of a string that passed yaml_quoted_ok.
function yaml_unquote(s,    out, i, n, c) {
    out = ""
    n = length(s)
    for (i = 2; i < n; i++) {
        c = substr(s, i, 1)
        if (c == "\\") { i++; c = substr(s, i, 1) }
        out = out c
    }
    return out
}

# s is a frontmatter value as a reader takes it (spec §8): a double-quoted
# string (yaml_quoted_ok), or the plain form the reference writes, the rest of
# the line verbatim: not empty, not starting with ", valid UTF-8 without
# control characters (tab aside). yaml_scalar(s) is its text.
function yaml_scalar_ok(s,    arr, m) {
    if (substr(s, 1, 1) == "\"") return yaml_quoted_ok(s)
    if (s != "" && s !~ /[^\t -~]/) return 1
    m = str_bytes(s, arr)
    return m > 0 && utf8_scan(arr, 1, m, 1, 1) == ""
}

function yaml_scalar(s) {
    return substr(s, 1, 1) == "\"" ? yaml_unquote(s) : s
}

# The task-ID rule of dr_task_id_ok (datarim-common.sh), for awk programs.
function is_task_id(s) {
    return length(s) <= 128 && s ~ /^[A-Z][A-Z0-9-]+-[0-9][0-9][0-9][0-9][0-9]?(-[A-Za-z0-9]+)*$/
}

# Number of decimal digits that makes header + digits + body a fixed point.
function fixed_total(fixed,    d, t) {
    d = 1
    while (1) {
        t = fixed + d
        if (length(t "") == d) return t
        d = length(t "")
    }
}

# s as a JSON string, byte for byte what Python's json.dumps(s, ensure_ascii=False)
# gives: \" \\ \b \f \n \r \t, other C0 controls as \u00xx, everything else raw.
# Linear in the length of s (a legacy document can be large): lines without
# anything to escape are copied whole, and the pieces are joined pairwise.
function json_string(s,    L, nl, P, n, k) {
    if (s !~ /["\\\001-\037]/) return "\"" s "\""
    nl = split(s, L, "\n")
    n = 0
    for (k = 1; k <= nl; k++) {
        if (k > 1) P[++n] = "\\n"
        P[++n] = (L[k] ~ /["\\\001-\037]/) ? json_escape_line(L[k]) : L[k]
    }
    return "\"" join_pieces(P, 1, n) "\""
}

# json_list(items): items, each followed by LF (the last LF ends the list),
# as a JSON array of strings.
function json_list(items,    L, n, k, out) {
    n = split(items, L, "\n")
    out = ""
    for (k = 1; k < n; k++) out = out (k > 1 ? "," : "") json_string(L[k])
    return "[" out "]"
}

# json_string's escaping of one line (no LF in it).
function json_escape_line(s,    P, n, i, len, start, c, b, e) {
    n = 0; start = 1; len = length(s)
    for (i = 1; i <= len; i++) {
        c = substr(s, i, 1)
        b = ORD[c]
        if (b >= 32 && c != "\"" && c != "\\") continue
        if (c == "\"") e = "\\\""
        else if (c == "\\") e = "\\\\"
        else if (b == 8) e = "\\b"
        else if (b == 12) e = "\\f"
        else if (b == 13) e = "\\r"
        else if (b == 9) e = "\\t"
        else e = sprintf("\\u%04x", b)
        if (i > start) P[++n] = substr(s, start, i - start)
        P[++n] = e
        start = i + 1
    }
    if (start <= len) P[++n] = substr(s, start)
    return join_pieces(P, 1, n)
}

# P[lo..hi] concatenated; pairwise, so the cost stays n log n (awk's
# `out = out x` copies out every time).
function join_pieces(P, lo, hi,    mid) {
    if (lo > hi) return ""
    if (lo == hi) return P[lo]
    mid = int((lo + hi) / 2)
    return join_pieces(P, lo, mid) join_pieces(P, mid + 1, hi)
}

# s with every invalid UTF-8 sequence replaced by U+FFFD, one per maximal
# invalid subpart: what Python's bytes.decode("utf-8", "replace") gives.
# ASCII lines are copied whole.
function utf8_repair(s,    L, nl, P, n, k) {
    if (s !~ /[\200-\377]/) return s
    nl = split(s, L, "\n")
    n = 0
    for (k = 1; k <= nl; k++) {
        if (k > 1) P[++n] = "\n"
        P[++n] = (L[k] ~ /[\200-\377]/) ? utf8_repair_line(L[k]) : L[k]
    }
    return join_pieces(P, 1, n)
}

# utf8_repair of one line, byte by byte; the lead-byte table is utf8_scan's.
function utf8_repair_line(s,    P, n, i, len, start, b, need, lo, hi, k, c, bad) {
    n = 0; start = 1; len = length(s); i = 1
    while (i <= len) {
        b = ORD[substr(s, i, 1)]
        if (b < 128) { i++; continue }
        lo = 128; hi = 191
        if (b >= 194 && b <= 223) need = 1
        else if (b == 224) { need = 2; lo = 160 }
        else if (b >= 225 && b <= 236) need = 2
        else if (b == 237) { need = 2; hi = 159 }
        else if (b >= 238 && b <= 239) need = 2
        else if (b == 240) { need = 3; lo = 144 }
        else if (b >= 241 && b <= 243) need = 3
        else if (b == 244) { need = 3; hi = 143 }
        else need = 0
        bad = 1
        if (need > 0) {
            for (k = 1; k <= need; k++) {
                if (i + k > len) break
                c = ORD[substr(s, i + k, 1)]
                if (k == 1 ? (c < lo || c > hi) : (c < 128 || c > 191)) break
            }
            if (k > need) { i += need + 1; continue }
            bad = k
        }
        if (i > start) P[++n] = substr(s, start, i - start)
        P[++n] = "\357\277\275"
        i += bad
        start = i
    }
    if (start <= len) P[++n] = substr(s, start)
    return join_pieces(P, 1, n)
}
