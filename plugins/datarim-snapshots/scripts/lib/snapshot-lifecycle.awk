# Python twin: python/src/datarim_snapshot/_snapshot_lifecycle.py
# Output of the snapshot lifecycle commands (snapshot-lifecycle.sh).
#
# DR_MODE=show-json   ENVIRON DR_TASK DR_PATH DR_STAGE DR_COMMAND DR_CAPTURED_AT
#                     DR_CAPTURED_BY DR_NEXT DR_OPTIONS (items, each + LF)
#                     DR_SIZE DR_TRUNCATED DR_BODY: the snapshot as one object.
# DR_MODE=list-text|list-json   ENVIRON DR_NOW (YYYY-MM-DDTHH:MM:SSZ); stdin:
#                     one row a line, "<task>\t<status>\t<stage>\t<captured_at>\t<next>"
#                     (status "valid" or the reason it is not; "" fields for
#                     an invalid one). Exits 3, printing why, when DR_NOW is bad.
# Prints the output and then "." (so a shell capture keeps final newlines).
# Needs datarim-rules.awk before it.

function show_json() {
    return "{\"task\":" json_string(ENVIRON["DR_TASK"]) \
        ",\"path\":" json_string(ENVIRON["DR_PATH"]) \
        ",\"stage\":" json_string(ENVIRON["DR_STAGE"]) \
        ",\"command\":" json_string(ENVIRON["DR_COMMAND"]) \
        ",\"captured_at\":" json_string(ENVIRON["DR_CAPTURED_AT"]) \
        ",\"captured_by\":" json_string(ENVIRON["DR_CAPTURED_BY"]) \
        ",\"recommended_next\":" json_string(ENVIRON["DR_NEXT"]) \
        ",\"options\":" json_list(ENVIRON["DR_OPTIONS"]) \
        ",\"size_bytes\":" (ENVIRON["DR_SIZE"] + 0) \
        ",\"truncated\":" (ENVIRON["DR_TRUNCATED"] == "true" ? "true" : "false") \
        ",\"body\":" json_string(ENVIRON["DR_BODY"]) "}\n"
}

# Seconds since 1970 of a checked YYYY-MM-DDTHH:MM:SSZ (days from civil).
function epoch(ts,    y, m, d, era, yoe, doy, doe) {
    y = substr(ts, 1, 4) + 0; m = substr(ts, 6, 2) + 0; d = substr(ts, 9, 2) + 0
    if (m <= 2) y--
    era = int(y / 400)
    yoe = y - era * 400
    doy = int((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1
    doe = yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy
    return (era * 146097 + doe - 719468) * 86400 + \
        substr(ts, 12, 2) * 3600 + substr(ts, 15, 2) * 60 + substr(ts, 18, 2)
}

# A whole number printed exactly whatever the awk: mawk prints one past 2^31
# through CONVFMT, in exponent form; %.0f is exact up to 2^53.
function whole(n) {
    return sprintf("%.0f", n)
}

# An age as its largest whole unit: 45s, 7m, 5h, 3d; "future" when negative.
function age_text(s) {
    if (s < 0) return "future"
    if (s < 60) return s "s"
    if (s < 3600) return int(s / 60) "m"
    if (s < 86400) return int(s / 3600) "h"
    return int(s / 86400) "d"
}

# Characters in s (valid UTF-8): bytes that do not continue a character.
function width(s,    copy) {
    copy = s
    return length(s) - gsub(/[\200-\277]/, "", copy)
}

function cell(s, w) {
    return s sprintf("%" (w - width(s)) "s", "")
}

# Reads every row (all of stdin, so the writer never meets a closed pipe).
function read_rows(    line) {
    NROWS = 0
    while ((getline line) > 0) ROWS[++NROWS] = line
}

# Prints the list (each row as it is made: no string grows with the rows).
function list_output(json,    now, n, k, f, C, W, c, line, age, valid) {
    now = epoch(ENVIRON["DR_NOW"])
    n = 0
    if (json) printf "["
    for (k = 1; k <= NROWS; k++) {
        split(ROWS[k], f, "\t")
        n++
        valid = f[2] == "valid"
        age = valid ? now - epoch(f[4]) : ""
        if (json) {
            printf "%s", (k > 1 ? "," : "") "{\"task\":" json_string(f[1]) ",\"valid\":" (valid ? "true" : "false") \
                ",\"reason\":" (valid ? "null" : json_string(f[2])) \
                ",\"stage\":" (valid ? json_string(f[3]) : "null") \
                ",\"captured_at\":" (valid ? json_string(f[4]) : "null") \
                ",\"age_seconds\":" (valid ? whole(age) : "null") \
                ",\"recommended_next\":" (valid ? json_string(f[5]) : "null") "}"
            continue
        }
        C[n, 1] = f[1]
        C[n, 2] = valid ? f[3] : "-"
        C[n, 3] = valid ? f[4] : "-"
        C[n, 4] = valid ? age_text(age) : "-"
        C[n, 5] = valid ? f[5] : "-"
        C[n, 6] = valid ? "valid" : "invalid: " f[2]
    }
    if (json) {
        printf "]\n"
        return
    }
    split("TASK STAGE CAPTURED_AT AGE RECOMMENDED_NEXT STATUS", f, " ")
    for (c = 1; c <= 6; c++) { C[0, c] = f[c]; W[c] = 0 }
    for (k = 0; k <= n; k++)
        for (c = 1; c <= 5; c++) if (width(C[k, c]) > W[c]) W[c] = width(C[k, c])
    for (k = 0; k <= n; k++) {
        line = ""
        for (c = 1; c <= 5; c++) line = line cell(C[k, c], W[c]) "  "
        printf "%s\n", line C[k, 6]
    }
}

BEGIN {
    rules_init()
    mode = ENVIRON["DR_MODE"]
    if (mode == "show-json") { printf "%s.", show_json(); exit 0 }
    read_rows()
    if (!is_timestamp(ENVIRON["DR_NOW"])) {
        printf "DATARIM_NOW must be YYYY-MM-DDTHH:MM:SSZ, a real UTC time"
        exit 3
    }
    list_output(mode == "list-json")
    printf "."
}
