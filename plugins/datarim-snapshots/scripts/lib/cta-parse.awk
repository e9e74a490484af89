# Python twin: python/src/datarim_snapshot/_cta_parse.py
# Reads the CTA block that ends a /dr-* stage's answer (spec §7).
# Input: the answer on stdin. ENVIRON: DR_TASK (the --task value; empty: the
# task the block's header names, which must pass the task-ID rule), DR_REDACT
# (0: the JSON keeps secrets). Needs datarim-rules.awk and datarim-redact.awk
# before it on the awk command line; run with LC_ALL=C
# (strings are bytes; the Russian tokens below are matched as UTF-8 bytes).
#
# Output, first line always: the word a stage header on line 1
# (**{ID} · {title}**) names, or empty; the caller applies the task-ID rule.
# Then, exit 0: the task ID, recommended_next, the JSON object, the options
# lines (the primary first, each ending in a newline), and "."; exit 1: the
# refusal.
#
# The block starts at the LAST header line of the answer outside code fences
# and ends at its closing "---" line (or the end of the answer); text after it
# is ignored. Inside it, "N. ..." lines are options until a line starting
# "Другие активные задачи" (bold or not) starts the list of other tasks, which
# is no part of this task's options. A fenced block (``` or ~~~) quotes text:
# nothing in it counts. Every token has an English twin, read alike and in
# any mix: **Next step — {ID}**, **QA failed for / **Expectations BLOCKED
# for, **recommended**, alternative, Other active tasks. Where the block has
# " — " (U+2014), " – " (U+2013) and " - " are read alike: an answer that
# writes the near miss still leaves its snapshot.

function cta_refuse(msg) {
    printf "%s", msg
    exit 1
}

# Sets HID to the task ID a CTA header line names ("" when none, or when
# more than a space or "**" follows it) and HID_RUNS_ON, and returns 1; 0
# when the line is no CTA header.
function cta_header(line,    i, rest, next_char) {
    for (i = 1; i <= NHEAD; i++) {
        if (index(line, HEAD[i]) != 1) continue
        rest = substr(line, length(HEAD[i]) + 1)
        HID = match(rest, /^[A-Za-z0-9-]+/) ? substr(rest, 1, RLENGTH) : ""
        next_char = substr(rest, length(HID) + 1, 1)
        HID_RUNS_ON = HID != "" && next_char != "" && next_char != " " && next_char != "*"
        return 1
    }
    return 0
}

# The fence a line opens or closes: its run of three or more ` or ~ after at
# most three spaces ("" for any other line). FENCE_ALONE: nothing follows it.
# A ` run with a ` after it is no fence (CommonMark: ```x``` is inline code).
function fence_run(line,    s, c, n) {
    # Counted, not sub(/^ ? ? ?/): mawk 1.3.4 matches only one optional space there.
    n = 0
    while (n < 3 && substr(line, n + 1, 1) == " ") n++
    s = substr(line, n + 1)
    c = substr(s, 1, 1)
    FENCE_ALONE = 0
    if (c != "`" && c != "~") return ""
    n = 1
    while (substr(s, n + 1, 1) == c) n++
    if (n < 3) return ""
    if (c == "`" && index(substr(s, n + 1), "`") > 0) return ""
    FENCE_ALONE = n == length(s)
    return substr(s, 1, n)
}

# "Другие активные задачи" (or "Other active tasks") after any "#", "*" or
# blanks starts the other tasks.
function other_tasks_heading(line,    s) {
    s = line
    sub(/^[#* \t]+/, "", s)
    return index(s, OTHER_TASKS) == 1 || index(s, OTHER_TASKS_EN) == 1
}

function stage_header_id(line,    p, id) {
    if (substr(line, 1, 2) != "**") return ""
    p = index(line, MIDDOT)
    if (!p) return ""
    id = substr(line, 3, p - 3)
    return id ~ /^[A-Za-z0-9-]+$/ ? id : ""
}

# The length of the separator at byte p of s: " — " (the pipelines'), or the
# near misses an answer writes instead, " – " and " - "; 0 when none is there.
function sep_at(s, p,    i) {
    for (i = 1; i <= NSEPS; i++) if (substr(s, p, length(SEPS[i])) == SEPS[i]) return length(SEPS[i])
    return 0
}

# Splits option k's text t: sets CMD ("" for a plain-text option), HAS_CMD,
# MARK ("primary", "alternative" or ""), MARK_TEXT (the marker as written)
# and PURPOSE (the marker dropped).
function cta_option(t, k,    tick, rest, p, n, bare, i) {
    CMD = ""; HAS_CMD = 0; MARK = ""; MARK_TEXT = ""; MARK_SEP = 0
    # A line ending in " — " lost its last blank with the trailing blanks.
    for (i = 1; i <= NSEPS; i++) {
        bare = substr(SEPS[i], 1, length(SEPS[i]) - 1)
        if (length(t) >= length(bare) && substr(t, length(t) - length(bare) + 1) == bare) {
            t = t " "
            break
        }
    }
    if (substr(t, 1, 1) == "`") {
        tick = index(substr(t, 2), "`")
        if (!tick) cta_refuse("CTA option " k ": the command's closing backtick is missing")
        CMD = substr(t, 2, tick - 1)
        HAS_CMD = 1
        if (substr(CMD, 1, 1) != "/") cta_refuse("CTA option " k ": the command `" CMD "` does not start with /")
        rest = substr(t, tick + 2)
        n = sep_at(rest, 1)
        if (rest != "" && !n)
            cta_refuse("CTA option " k ": want '" SEP "' between the command and its purpose")
        rest = substr(rest, n + 1)
    } else {
        # The first separator of any kind.
        for (p = 1; p <= length(t); p++) if (substr(t, p, 1) == " " && (n = sep_at(t, p))) break
        rest = p <= length(t) ? substr(t, p + n) : ""
    }
    if (marked(rest, PRIMARY)) MARK = "primary"
    else if (marked(rest, PRIMARY_EN)) MARK = "primary"
    else if (marked(rest, ALTERNATIVE) || marked(rest, ALTERNATIVE_EN)) MARK = "alternative"
    PURPOSE = MARK == "" ? rest : substr(rest, length(MARK_TEXT) + MARK_SEP + 1)
}

# 1 when the purpose text starts with the marker word (alone, or before a
# separator); sets MARK_TEXT to it and MARK_SEP to the separator's length.
function marked(rest, word,    n) {
    if (rest == word) n = 0
    else if (index(rest, word) != 1 || !(n = sep_at(rest, length(word) + 1))) return 0
    MARK_TEXT = word
    MARK_SEP = n
    return 1
}

BEGIN {
    rules_init()
    # The header openings, kept once in text/cta-headers.txt (the Stop hook
    # looks for them before it calls emit); each is followed by a space.
    NHEAD = 0
    while ((getline head < ENVIRON["DR_CTA_HEADERS"]) > 0) HEAD[++NHEAD] = head " "
    if (NHEAD == 0) cta_refuse("cannot read the CTA header list")
    OTHER_TASKS = "Другие активные задачи"
    OTHER_TASKS_EN = "Other active tasks"
    PRIMARY = "**рекомендуется**"
    PRIMARY_EN = "**recommended**"
    ALTERNATIVE = "альтернатива"
    ALTERNATIVE_EN = "alternative"
    SEP = " — "
    NSEPS = split(SEP "\n \342\200\223 \n - ", SEPS, "\n")
    MIDDOT = " · "
    MAX_OPTIONS = 5
    found = 0; state = ""; n = 0; fence = ""
}

{
    line = $0
    sub(/\r$/, "", line)
    sub(/[ \t]+$/, "", line)
    if (NR == 1) {
        if (substr(line, 1, 3) == BOM) line = substr(line, 4)
        stage_id = stage_header_id(line)
    }
    run = fence_run(line)
    if (fence != "") {
        # Closed by a run of the same character at least as long, alone on its line.
        if (FENCE_ALONE && index(run, fence) == 1) fence = ""
        next
    }
    if (run != "") {
        fence = run
        next
    }
    if (cta_header(line)) {
        found = 1; hid = HID; hid_runs_on = HID_RUNS_ON; state = "options"; n = 0
        next
    }
    if (state == "options") {
        if (line == "---") state = "closed"
        else if (other_tasks_heading(line)) state = "other-tasks"
        else if (line ~ /^[0-9]+\. /) {
            n++
            if (n <= MAX_OPTIONS) {
                opt[n] = substr(line, index(line, ". ") + 2)
                sub(/^[ \t]+/, "", opt[n])
            }
        }
    } else if (state == "other-tasks" && line == "---") state = "closed"
}

END {
    printf "%s\n", stage_id
    if (!found)
        cta_refuse("--response-file has no CTA block (a line starting **Следующий шаг — <ID>, **QA failed для <ID> or **Expectations BLOCKED для <ID>, or in English **Next step — <ID>, **QA failed for <ID> or **Expectations BLOCKED for <ID>)")
    if (hid == "") cta_refuse("the CTA header names no task ID")
    if (hid_runs_on) cta_refuse("the CTA header's task ID " hid " runs on into other text (want a space or ** after it)")
    task = ENVIRON["DR_TASK"]
    if (task == "" && !is_task_id(hid)) cta_refuse("the CTA header's task ID " hid " is not a valid task ID")
    if (task == "") task = hid
    if (hid != task) cta_refuse("the CTA block is for " hid ", not --task " task)
    if (n == 0) cta_refuse("the CTA block has no numbered options")
    if (n > MAX_OPTIONS) cta_refuse("the CTA block has " n " options (at most " MAX_OPTIONS ")")

    primary = 0; second = 0
    for (k = 1; k <= n; k++) {
        len = str_bytes(opt[k], bytes)
        fault = utf8_scan(bytes, 1, len, 1, 1)
        if (fault == "utf8") cta_refuse("CTA option " k " is not valid UTF-8")
        if (fault != "") cta_refuse("CTA option " k " holds a control character")
        cta_option(opt[k], k)
        mark_text[k] = MARK_TEXT
        if (MARK == "primary") {
            if (!primary) primary = k
            else if (!second) second = k
        }
        has_cmd[k] = HAS_CMD
        cmd[k] = CMD
        if (!HAS_CMD) item[k] = opt[k]
        else if (PURPOSE == "") item[k] = CMD
        else item[k] = CMD " | " PURPOSE
    }
    if (!primary) cta_refuse("no CTA option is marked " PRIMARY " or " PRIMARY_EN)
    if (second && mark_text[primary] == mark_text[second])
        cta_refuse("CTA options " primary " and " second " are both marked " mark_text[primary] " (want exactly one)")
    if (second)
        cta_refuse("CTA options " primary " (" mark_text[primary] ") and " second " (" mark_text[second] ") are both marked as the recommended one (want exactly one)")
    if (!has_cmd[primary]) cta_refuse("the " mark_text[primary] " CTA option " primary " has no command")
    next_cmd = cmd[primary]
    if (index(next_cmd, " ")) next_cmd = substr(next_cmd, 1, index(next_cmd, " ") - 1)
    fault = slash_command_fault(next_cmd)
    if (fault != "") cta_refuse("CTA option " primary ": recommended_next " fault)

    # The primary goes first: a replay shows the first option whose command
    # matches recommended_next, and that must be this one.
    # The JSON shows the options as the snapshot will hold them: redacted.
    redacting = ENVIRON["DR_REDACT"] != "0"
    if (redacting) redact_init()
    lines = item[primary] "\n"
    json = "{\"task_id\":" json_string(task) ",\"recommended_next\":" json_string(next_cmd) \
        ",\"options\":[" json_string(redacting ? redact_text(item[primary]) : item[primary])
    for (k = 1; k <= n; k++) {
        if (k == primary) continue
        lines = lines item[k] "\n"
        json = json "," json_string(redacting ? redact_text(item[k]) : item[k])
    }
    json = json "]}"
    if (length(lines) > CAP) cta_refuse("the CTA options take " length(lines) " bytes, more than the " CAP "-byte cap")
    printf "%s\n%s\n%s\n%s.", task, next_cmd, json, lines
}
