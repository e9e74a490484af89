# Python twin: python/src/datarim_snapshot/_snapshot_resume.py
# What a resume prints, in every format but a snapshot's plain text (which
# the shell prints itself).
#
# ENVIRON: DR_FORMAT   text (legacy only), json, or hook (SessionStart output)
#          DR_SOURCE   snapshot or legacy
#          DR_TASK     the task ID
#          DR_BUDGET   hook only: the most characters additionalContext may hold
#          DR_STAGE DR_CAPTURED_AT DR_NEXT DR_CTA DR_TRUNCATED, and DR_OPTIONS
#                      (the items, each followed by LF): a snapshot's fields
#          DR_DRIFT    a snapshot's drift facts (git_drift_facts), or empty
# stdin:   frames "<name>\n<byte length>\n<bytes>\n": for a snapshot one, the
#          resume text; for legacy one per document, named by its path.
# Prints the output and then "." (so a shell capture keeps final newlines);
# exits 1, printing nothing, when the hook budget cannot hold even the marker.
# Needs datarim-rules.awk before it (LC_ALL=C: lengths are in bytes).

# Reads every frame into NAME[1..FRAMES] and TEXT[1..FRAMES].
function read_frames(    name, want, line, P, n, size) {
    FRAMES = 0
    while ((getline name) > 0) {
        if ((getline want) <= 0) break
        n = 0
        if ((getline line) <= 0) line = ""
        P[++n] = line
        size = length(line)
        while (size < want + 0 && (getline line) > 0) {
            P[++n] = "\n"
            P[++n] = line
            size += 1 + length(line)
        }
        NAME[++FRAMES] = name
        TEXT[FRAMES] = join_pieces(P, 1, n)
        split("", P)
    }
}

# The legacy documents under plain headers, after one line saying why.
# Invalid UTF-8 becomes U+FFFD, so every format carries the same text.
function legacy_text(    P, n, k, t) {
    n = 0
    P[++n] = "No valid snapshot for " TASK "; its legacy context follows.\n"
    for (k = 1; k <= FRAMES; k++) {
        t = utf8_repair(TEXT[k])
        P[++n] = "\n==> " NAME[k] " <==\n"
        P[++n] = t
        if (t != "" && substr(t, length(t)) != "\n") P[++n] = "\n"
    }
    return join_pieces(P, 1, n)
}

function snapshot_json() {
    return "{\"source\":\"snapshot\",\"task\":" json_string(TASK) \
        ",\"stage\":" json_string(ENVIRON["DR_STAGE"]) \
        ",\"captured_at\":" json_string(ENVIRON["DR_CAPTURED_AT"]) \
        ",\"recommended_next\":" json_string(ENVIRON["DR_NEXT"]) \
        ",\"options\":" json_list(ENVIRON["DR_OPTIONS"]) \
        ",\"cta\":" json_string(ENVIRON["DR_CTA"]) \
        ",\"truncated\":" (ENVIRON["DR_TRUNCATED"] == "true" ? "true" : "false") \
        drift_json(ENVIRON["DR_DRIFT"]) \
        ",\"prompt\":" json_string(TEXT[1]) "}"
}

function json_or_null(s) {
    return s == "" ? "null" : json_string(s)
}

# ",\"drift\":{...}" for git_drift_facts's eight lines; "" when there are none
# (or git did not answer: "unchecked", which only the prompt's notice says).
function drift_json(facts,    F) {
    if (facts == "" || facts == "unchecked") return ""
    split(facts, F, "\n")
    return ",\"drift\":{\"recorded_head\":" json_string(F[1]) \
        ",\"recorded_branch\":" json_or_null(F[2]) \
        ",\"recorded_dirty\":" (F[3] == "true" || F[3] == "false" ? F[3] : "null") \
        ",\"current_head\":" json_string(F[4]) \
        ",\"current_branch\":" json_or_null(F[5]) \
        ",\"relation\":" json_string(F[6]) \
        ",\"commits_ahead\":" (F[7] == "" ? "null" : F[7] + 0) \
        ",\"commits_behind\":" (F[8] == "" ? "null" : F[8] + 0) "}"
}

function legacy_json(    P, n, k) {
    n = 0
    P[++n] = "{\"source\":\"legacy\",\"task\":" json_string(TASK)
    P[++n] = ",\"recommended_next\":null,\"options\":[],\"documents\":["
    for (k = 1; k <= FRAMES; k++) {
        P[++n] = (k > 1 ? "," : "") "{\"path\":" json_string(NAME[k])
        P[++n] = ",\"text\":" json_string(utf8_repair(TEXT[k])) "}"
    }
    P[++n] = "]}"
    return join_pieces(P, 1, n)
}

# Characters as Claude Code counts them (UTF-16 code units: a character
# beyond U+FFFF counts two) in s, which is valid UTF-8.
function units(s,    copy, continuation, astral) {
    copy = s
    continuation = gsub(/[\200-\277]/, "", copy)
    copy = s
    astral = gsub(/[\360-\364]/, "", copy)
    return length(s) - continuation + astral
}

# s cut to at most budget units: the longest prefix ending on a character
# boundary that leaves room for the visible marker, then the marker.
# Returns "" (with FAILED set) when even the marker does not fit.
function cut_to_budget(s, budget,    marker, room, used, i, b, w, len) {
    if (units(s) <= budget) return s
    marker = "\n\n[datarim: cut to fit the " budget "-character budget of the SessionStart hook]\n"
    room = budget - length(marker)
    if (room < 0) { FAILED = 1; return "" }
    used = 0; i = 1; len = length(s)
    while (i <= len) {
        b = ORD[substr(s, i, 1)]
        w = (b >= 240) ? 2 : 1
        if (used + w > room) break
        used += w
        i += (b < 128) ? 1 : (b < 224) ? 2 : (b < 240) ? 3 : 4
    }
    return substr(s, 1, i - 1) marker
}

BEGIN {
    rules_init()
    TASK = ENVIRON["DR_TASK"]
    FORMAT = ENVIRON["DR_FORMAT"]
    read_frames()
    if (ENVIRON["DR_SOURCE"] == "snapshot") {
        if (FORMAT == "json") out = snapshot_json() "\n"
        else text = TEXT[1]
    } else {
        if (FORMAT == "json") out = legacy_json() "\n"
        else text = legacy_text()
    }
    if (FORMAT == "text") out = text
    if (FORMAT == "hook") {
        text = cut_to_budget(text, ENVIRON["DR_BUDGET"] + 0)
        if (FAILED) exit 1
        out = "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\",\"additionalContext\":" \
            json_string(text) "}}\n"
    }
    printf "%s.", out
}
