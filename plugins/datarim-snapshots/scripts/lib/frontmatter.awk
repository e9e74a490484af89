# Python twin: python/src/datarim_snapshot/_frontmatter.py
# Reads `key: value` frontmatter the way every datarim validator does: one
# field per line, each exactly once, in the writer's order.
#
# The caller sets B[1..N] (the file's bytes, see str_bytes) and POS (the next
# byte to read), FIELDS (" name name ... ": the fields in order) and LISTS
# (" name ... ": fields whose whole line is returned because list items
# follow), and defines broken(msg), called on the first broken rule. Optional
# fields after the last one are named in ENVIRON["DR_EXTRA_KEYS"].
# Needs datarim-rules.awk.

# Next line as a string (bytes up to LF, LF dropped), or the sentinel
# "\001EOF" when no complete line is left. With TEXT_MODE set, the caller
# has set TEXT (the file's bytes, no NUL among them: B is not used) and the
# line ends are found once, by text_lines, instead of byte by byte.
function next_line(    s, j) {
    if (TEXT_MODE) return text_next_line()
    s = ""
    for (j = POS; j <= N; j++) {
        if (B[j] == 10) { POS = j + 1; return s }
        s = s CHR[B[j]]
    }
    POS = N + 1
    return "\001EOF"
}

# TEXT's line ends: LF_AT[1..NLF], the offset of each LF, ascending.
function text_lines(    n, k, at, piece) {
    n = split(TEXT, piece, "\n")
    NLF = n > 0 ? n - 1 : 0
    at = 0
    for (k = 1; k <= NLF; k++) {
        at += length(piece[k]) + 1
        LF_AT[k] = at
    }
    LF_K = 1
}

# next_line over TEXT: the first LF at or after POS (POS may move back to a
# mark, so the cursor LF_K moves both ways).
function text_next_line(    s) {
    while (LF_K > 1 && LF_AT[LF_K - 1] >= POS) LF_K--
    while (LF_K <= NLF && LF_AT[LF_K] < POS) LF_K++
    if (LF_K > NLF) {
        POS = N + 1
        return "\001EOF"
    }
    s = substr(TEXT, POS, LF_AT[LF_K] - POS)
    POS = LF_AT[LF_K] + 1
    return s
}

# The checks every artefact opens with, in this order: at most <cap> bytes,
# valid UTF-8 (B[1..ntext], the bytes before a NUL), no NUL (nul >= 0: there
# is one), then the opening "---" line; POS is left after it.
function open_frontmatter(cap, ntext, nul) {
    if (N > cap) broken("is over the " cap "-byte cap")
    if (TEXT_MODE ? !utf8_valid(TEXT) : utf8_scan(B, 1, ntext, 0, 0) != "") broken("is not valid UTF-8")
    if (nul >= 0) broken("holds a NUL byte")
    POS = 1
    if (TEXT_MODE) text_lines()
    if (next_line() != "---") broken("does not start with --- frontmatter")
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

# An optional field after the last one (never the empty key): one the
# caller's program names in OPTIONAL_KEYS (" name ... "), or one another
# artefact adds through ENVIRON["DR_EXTRA_KEYS"].
function extra_key(k) {
    return k != "" && (index(OPTIONAL_KEYS, " " k " ") > 0 || index(" " ENVIRON["DR_EXTRA_KEYS"] " ", " " k " ") > 0)
}

# Reads the line that should hold field k and returns its value (for a
# LISTS field: the whole line). SEEN[] remembers the fields read so far.
function expect_field(k,    line, key) {
    line = next_line()
    if (line == "\001EOF") broken("frontmatter is not closed")
    key = key_of(line)
    if (line == "---") broken("missing field: " k)
    if (key in SEEN) broken("duplicate field: " shown(key))
    if (!known(key)) broken("unknown field: " shown(key))
    if (key != k) broken("expected field " k ", found " shown(key))
    SEEN[k] = 1
    if (index(LISTS, " " k " ")) return line
    if (substr(line, length(k) + 1, 2) != ": " || length(line) == length(k) + 2) broken("bad " k " line")
    return substr(line, length(k) + 3)
}

# Reads the optional fields (DR_EXTRA_KEYS) up to the closing "---": their
# names in file order go to EXTRA_KEY[1..nextra], their values to EXTRA[name].
function close_frontmatter(    line, key) {
    while ((line = next_line()) != "---") {
        if (line == "\001EOF") broken("frontmatter is not closed")
        key = key_of(line)
        if (key in SEEN) broken("duplicate field: " shown(key))
        if (!extra_key(key)) broken("unknown field: " shown(key))
        SEEN[key] = 1
        EXTRA_KEY[++nextra] = key
        EXTRA[key] = substr(line, length(key) + 3)
    }
}
