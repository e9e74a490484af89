# Python twin: python/src/datarim_snapshot/_redaction.py
# The secret redactor: replaces secrets with [REDACTED] before any text
# reaches the disk. One interface for every writer (session handoff and
# stage snapshots):
#
#   redact_init()                  once, in BEGIN
#   s = redact_text(s)             a whole text (lines split on LF)
#   n = redact_lines(L, n)         L[1..n] in place; returns the new count (a
#                                  PEM block spanning lines becomes one line)
#   REDACT_COUNT                   secrets replaced so far
#
# Mirrors python/src/datarim_snapshot/_redaction.py step for step; the rules are
# listed in docs/redaction.md. Matching uses literal search
# (split on a metacharacter-free literal), single-character classes and
# explicit loops only, so that every awk and Python's re agree on every match,
# and the cost stays linear in the text. Run with LC_ALL=C; needs
# datarim-rules.awk.

function redact_init(    n, keys, i) {
    REDACTED = "[REDACTED]"
    REDACT_COUNT = 0
    REDACT_VALUE = "[^][ \t\r\"'`,;&<>(){}]"
    # Assignments whose key ends in one of these (any case) have their value redacted.
    n = split("password passwd secret token apikey api_key api-key access_key secret_key private_key", keys, " ")
    for (i = 1; i <= n; i++) REDACT_SUFFIX[keys[i]] = 1
    # Token rules: literal prefix, class of the characters after it, their
    # minimum and maximum count (0: no maximum), what must open them (a
    # regex on their first characters, or ""), and the class that may not
    # touch the token on either side.
    n = 0
    n++; RT_LIT[n] = "AKIA"; RT_BODY[n] = "[A-Z0-9]"; RT_MIN[n] = 16; RT_MAX[n] = 16; RT_HEAD[n] = ""; RT_EDGE[n] = "[A-Za-z0-9]"
    n++; RT_LIT[n] = "ASIA"; RT_BODY[n] = "[A-Z0-9]"; RT_MIN[n] = 16; RT_MAX[n] = 16; RT_HEAD[n] = ""; RT_EDGE[n] = "[A-Za-z0-9]"
    n++; RT_LIT[n] = "ghp_"; RT_BODY[n] = "[A-Za-z0-9_]"; RT_MIN[n] = 20; RT_MAX[n] = 0; RT_HEAD[n] = ""; RT_EDGE[n] = "[A-Za-z0-9_]"
    n++; RT_LIT[n] = "gho_"; RT_BODY[n] = "[A-Za-z0-9_]"; RT_MIN[n] = 20; RT_MAX[n] = 0; RT_HEAD[n] = ""; RT_EDGE[n] = "[A-Za-z0-9_]"
    n++; RT_LIT[n] = "ghs_"; RT_BODY[n] = "[A-Za-z0-9_]"; RT_MIN[n] = 20; RT_MAX[n] = 0; RT_HEAD[n] = ""; RT_EDGE[n] = "[A-Za-z0-9_]"
    n++; RT_LIT[n] = "ghu_"; RT_BODY[n] = "[A-Za-z0-9_]"; RT_MIN[n] = 20; RT_MAX[n] = 0; RT_HEAD[n] = ""; RT_EDGE[n] = "[A-Za-z0-9_]"
    n++; RT_LIT[n] = "ghr_"; RT_BODY[n] = "[A-Za-z0-9_]"; RT_MIN[n] = 20; RT_MAX[n] = 0; RT_HEAD[n] = ""; RT_EDGE[n] = "[A-Za-z0-9_]"
    n++; RT_LIT[n] = "github_pat_"; RT_BODY[n] = "[A-Za-z0-9_]"; RT_MIN[n] = 20; RT_MAX[n] = 0; RT_HEAD[n] = ""; RT_EDGE[n] = "[A-Za-z0-9_]"
    n++; RT_LIT[n] = "sk-"; RT_BODY[n] = "[A-Za-z0-9_-]"; RT_MIN[n] = 20; RT_MAX[n] = 0; RT_HEAD[n] = ""; RT_EDGE[n] = "[A-Za-z0-9_-]"
    n++; RT_LIT[n] = "xox"; RT_BODY[n] = "[A-Za-z0-9-]"; RT_MIN[n] = 10; RT_MAX[n] = 0; RT_HEAD[n] = "[a-z]-"; RT_EDGE[n] = "[A-Za-z0-9_-]"
    n++; RT_LIT[n] = "client_secret_"; RT_BODY[n] = "[A-Za-z0-9_-]"; RT_MIN[n] = 8; RT_MAX[n] = 0; RT_HEAD[n] = ""; RT_EDGE[n] = "[A-Za-z0-9_-]"
    RT_N = n
}

# c (one character or "") belongs to class re.
function redact_is(c, re) {
    return c != "" && c ~ ("^" re "$")
}

# Joins P[1..n] pairwise, so that many pieces cost n log n, not n squared.
function redact_join(P, n,    m, i) {
    if (n == 0) return ""
    while (n > 1) {
        m = 0
        for (i = 1; i <= n; i += 2) P[++m] = i < n ? P[i] P[i + 1] : P[i]
        n = m
    }
    return P[1]
}

# The pieces of a text a rule cuts its secrets out of, left to right:
# redact_begin(), redact_cut(s, at, len) for each secret (none starting
# before RQ_LAST, where the text after the last cut starts), then
# redact_end(s), the text with each secret as REDACTED.
function redact_begin() {
    RQ_N = 0
    RQ_LAST = 1
}

function redact_cut(s, at, len) {
    RQ[++RQ_N] = substr(s, RQ_LAST, at - RQ_LAST)
    RQ[++RQ_N] = REDACTED
    REDACT_COUNT++
    RQ_LAST = at + len
}

function redact_end(s) {
    if (!RQ_N) return s
    RQ[++RQ_N] = substr(s, RQ_LAST)
    return redact_join(RQ, RQ_N)
}

# Start of the first "-----<word> <label>PRIVATE KEY-----" marker in s (word:
# BEGIN or END, label: capitals, digits and spaces), or 0; REDACT_MARK_END is
# the position of its last character.
function redact_pem_marker(s, word,    P, n, k, q, run) {
    n = occurrences(s, "-----" word " ", P)
    for (k = 1; k <= n; k++) {
        q = P[k] + length(word) + 6
        run = span(s, q, "[A-Z0-9 ]")
        if (run >= 11 && substr(s, q + run - 11, 11) == "PRIVATE KEY" && substr(s, q + run, 5) == "-----") {
            REDACT_MARK_END = q + run + 4
            return P[k]
        }
    }
    return 0
}

# What a line inside a PEM block is, once the block's lead (see redact_pem)
# is taken off its start: 3 a legacy header "Proc-Type: <word>" or
# "DEK-Info: <word>", 2 one run of base64, blanks around either only (never
# inside: a line of words is prose), 1 blank, 0 neither. With end > 0, only
# line[1..end-1] is looked at, the text before an END marker (no header there).
function redact_key_line(line, lead, end,    at, run, head) {
    if (end) line = substr(line, 1, end - 1)
    at = lead != "" && substr(line, 1, length(lead)) == lead ? length(lead) + 1 : 1
    at += span(line, at, "[ \t]")
    head = 0
    if (!end && substr(line, at, 10) == "Proc-Type:") head = 10
    else if (!end && substr(line, at, 9) == "DEK-Info:") head = 9
    if (head) {
        at += head
        at += span(line, at, "[ \t]")
        run = span(line, at, "[A-Za-z0-9,-]")
        if (!run) return 0
    } else run = span(line, at, "[A-Za-z0-9+/=]")
    at += run
    at += span(line, at, "[ \t\r]")
    if (at <= length(line)) return 0
    if (head) return 3
    return run ? 2 : 1
}

# PEM private-key blocks, whole: from the BEGIN marker to the END marker on
# the same line, or on a later line reached through key-material and blank
# lines only (redact_key_line). The text before BEGIN on its line, without
# its trailing blanks (the lead: a "> " quote, "# " or "// " comment, an
# indent), may start each later line and is kept once. With no such END, the
# BEGIN line from its marker on and the key-material lines right after it,
# up to the first blank line (one after a legacy header belongs to the block,
# as in an encrypted key). The block becomes one [REDACTED] line.
function redact_pem(L, n,    M, m, i, j, p, e, t, line, pre, lead, rest, found, last, kind, gap, after) {
    m = 0
    i = 1
    while (i <= n) {
        line = L[i]
        p = redact_pem_marker(line, "BEGIN")
        if (!p) { M[++m] = line; i++; continue }
        pre = substr(line, 1, p - 1)
        t = length(pre)
        while (t > 0 && (substr(pre, t, 1) == " " || substr(pre, t, 1) == "\t")) t--
        lead = substr(pre, 1, t)
        rest = substr(line, REDACT_MARK_END + 1)
        REDACT_COUNT++
        if (redact_pem_marker(rest, "END")) {
            L[i] = pre REDACTED substr(rest, REDACT_MARK_END + 1)
            continue
        }
        found = 0
        last = i
        gap = 0
        after = 2
        for (j = i + 1; j <= n; j++) {
            e = redact_pem_marker(L[j], "END")
            if (e && redact_key_line(L[j], lead, e)) { found = 1; break }
            kind = redact_key_line(L[j], lead, 0)
            if (!kind) break
            if (kind == 1) {
                if (after != 3) gap = 1
                continue
            }
            after = kind
            if (!gap) last = j
        }
        if (found) {
            L[j] = pre REDACTED substr(L[j], REDACT_MARK_END + 1)
            i = j
            continue
        }
        M[++m] = pre REDACTED
        i = last + 1
    }
    for (i = 1; i <= m; i++) L[i] = M[i]
    return m
}

# Width of an optional quote at position at of s: 1 for " or ', 2 for \" or
# \' (JSON inside a string), else 0.
function redact_quote(s, at,    c) {
    c = substr(s, at, 1)
    if (c == "\"" || c == "'") return 1
    if (c != "\\") return 0
    c = substr(s, at + 1, 1)
    return c == "\"" || c == "'" ? 2 : 0
}

# The credential of an Authorization (or Proxy-Authorization) header, any
# case: "authorization", an optional closing quote, blanks, ":" or "=",
# blanks, an optional opening quote, the scheme "bearer" or "basic", at least
# one blank, then a run of A-Za-z0-9._~+/=- (only the run is replaced). So
# the header, a JSON or dict entry and an assignment are all caught.
function redact_authorization(s,    low, P, n, k, j, run, sp, c) {
    low = tolower(s)
    n = occurrences(low, "authorization", P)
    redact_begin()
    for (k = 1; k <= n; k++) {
        if (P[k] < RQ_LAST) continue
        j = P[k] + 13
        j += redact_quote(s, j)
        j += span(s, j, "[ \t]")
        c = substr(s, j, 1)
        if (c != ":" && c != "=") continue
        j++
        j += span(s, j, "[ \t]")
        j += redact_quote(s, j)
        if (substr(low, j, 6) == "bearer") j += 6
        else if (substr(low, j, 5) == "basic") j += 5
        else continue
        sp = span(s, j, "[ \t]")
        if (!sp) continue
        j += sp
        run = span(s, j, "[A-Za-z0-9._~+/=-]")
        if (!run) continue
        redact_cut(s, j, run)
    }
    return redact_end(s)
}

# Tokens recognised by their prefix (token rule r of redact_init).
function redact_tokens(s, r,    P, n, k, p, q, run) {
    n = occurrences(s, RT_LIT[r], P)
    redact_begin()
    for (k = 1; k <= n; k++) {
        p = P[k]
        if (p < RQ_LAST) continue
        if (p > 1 && redact_is(substr(s, p - 1, 1), RT_EDGE[r])) continue
        q = p + length(RT_LIT[r])
        if (RT_HEAD[r] != "" && !match(substr(s, q, length(RT_HEAD[r])), "^" RT_HEAD[r])) continue
        run = span(s, q, RT_BODY[r])
        if (run < RT_MIN[r] || (RT_MAX[r] && run > RT_MAX[r])) continue
        if (redact_is(substr(s, q + run, 1), RT_EDGE[r])) continue
        redact_cut(s, p, q + run - p)
    }
    return redact_end(s)
}

# key=value anywhere, "key": value (quoted key), and key: value at the start
# of a line (YAML), where the key ends in one of REDACT_SUFFIX (any case).
function redact_assignments(s,    parts, n, k, i, pos, c, j, quoted, kend, kstart, key, v, run, lead, suffix, w, yaml) {
    n = split(s, parts, /[=:]/)
    lead = span(s, 1, "[ \t-]")
    redact_begin()
    pos = 0
    for (k = 1; k < n; k++) {
        pos += length(parts[k]) + 1
        i = pos
        if (i < RQ_LAST) continue
        c = substr(s, i + 1, 1)
        if (c == "=" || c == ":" || c == "/") continue
        j = i - 1
        while (j >= 1 && (substr(s, j, 1) == " " || substr(s, j, 1) == "\t")) j--
        quoted = 0
        c = j >= 1 ? substr(s, j, 1) : ""
        if (c == "\"" || c == "'") { quoted = 1; j-- }
        kend = j
        while (j >= 1 && redact_is(substr(s, j, 1), "[A-Za-z0-9_.-]")) j--
        kstart = j + 1
        if (kstart > kend) continue
        # Only the key's last 16 characters matter: every suffix is shorter.
        w = kend - kstart + 1 > 16 ? 16 : kend - kstart + 1
        key = tolower(substr(s, kend - w + 1, w))
        suffix = 0
        for (c in REDACT_SUFFIX) if (w >= length(c) && substr(key, w - length(c) + 1) == c) suffix = 1
        if (!suffix) continue
        yaml = substr(s, i, 1) == ":" && !quoted
        if (yaml && kstart - 1 > lead) continue
        v = i + 1
        v += span(s, v, "[ \t]")
        c = substr(s, v, 1)
        # A quoted value runs to its closing quote; a bare YAML one to the end
        # of the line; any other bare one to a stop character.
        if (c == "\"" || c == "'") {
            v++
            run = span(s, v, c == "'" ? "[^']" : "[^\"]")
        } else run = span(s, v, yaml ? "[^\r]" : REDACT_VALUE)
        if (!run || substr(s, v, length(REDACTED)) == REDACTED) continue
        redact_cut(s, v, run)
    }
    return redact_end(s)
}

function redact_lines(L, n,    i, r, s) {
    n = redact_pem(L, n)
    for (i = 1; i <= n; i++) {
        s = redact_authorization(L[i])
        for (r = 1; r <= RT_N; r++) s = redact_tokens(s, r)
        L[i] = redact_assignments(s)
    }
    return n
}

# Every rule needs one of these words (any case) in the text: the key names
# and PEM labels hold "key", "pass", "secret" or "token", the header
# "authorization", and the tokens start "akia", "asia", "gh?_", "github_pat_",
# "sk-" or "xox". A text with none of them cannot hold a secret and is not
# searched further.
function redact_may_hold(s,    low) {
    low = tolower(s)
    return index(low, "key") || index(low, "pass") || index(low, "secret") || index(low, "token") ||
        index(low, "authorization") || index(low, "akia") || index(low, "asia") ||
        index(low, "ghp_") || index(low, "gho_") || index(low, "ghs_") || index(low, "ghu_") ||
        index(low, "ghr_") || index(low, "github_pat_") || index(low, "sk-") || index(low, "xox")
}

function redact_text(s,    L, n, P, i, m) {
    if (!redact_may_hold(s)) return s
    n = split(s, L, "\n")
    n = redact_lines(L, n)
    m = 0
    for (i = 1; i <= n; i++) {
        if (i > 1) P[++m] = "\n"
        P[++m] = L[i]
    }
    return redact_join(P, m)
}
