# Python twin: python/src/datarim_snapshot/_task_list.py
# The task lists of a knowledge base, in every form the reference's commands
# wrote them (spec §8.1): one parser for every reader.
#
#   - TUNE-0254 · in_progress · P1 · L3 · Title → tasks/TUNE-0254-task-description.md   (thin index)
#   - **TUNE-0071** (in_progress, 2026-04-30) — Title (Level 3, P1).                     (rich)
#   - **TUNE-0001** — Title                                                             (plain)
#
# Run alone (after datarim-rules.awk) with DR_TASK_LIST=<file> and
# DR_TASK_SECTION=<heading>, it prints "<ID>\t<title>\n" for each active task
# under that "## " heading of the file (up to the next level-1 or level-2
# heading), each ID once, in order; the title made safe to show (sanitize).
# With DR_TASK_FIND=<ID>, DR_TASK_DIR (a folder) and DR_TASK_LISTS (names of
# files in it, one a line) instead,
# it exits 0 when a task line of any status in any of them names <ID>, else 1.
# Needs LC_ALL=C (lengths are in bytes).

# task_line(line, T): 1 when line is a task line, with T["id"], T["status"]
# (the thin field or the rich form's first parenthesised word; "" in the
# plain form), T["title"] (raw bytes) and T["form"] (thin, rich or plain);
# 0 otherwise.
function task_line(line, T,    rest, p, q) {
    split("", T)
    if (substr(line, 1, 2) != "- ") return 0
    rest = substr(line, 3)
    if (substr(rest, 1, 2) == "**") {
        rest = substr(rest, 3)
        p = index(rest, "**")
        if (p < 2) return 0
        T["id"] = substr(rest, 1, p - 1)
        rest = strip_blanks(substr(rest, p + 2))
        T["status"] = ""
        T["form"] = "plain"
        if (substr(rest, 1, 1) == "(" && (q = index(rest, ")"))) {
            T["status"] = substr(rest, 2, q - 2)
            p = index(T["status"], ",")
            if (p) T["status"] = substr(T["status"], 1, p - 1)
            T["status"] = strip_blanks(T["status"])
            T["form"] = "rich"
            rest = strip_blanks(substr(rest, q + 1))
        }
        if (substr(rest, 1, 3) == "\342\200\224" || substr(rest, 1, 3) == "\342\200\223") rest = substr(rest, 4)
        else if (substr(rest, 1, 1) == "-") rest = substr(rest, 2)
        rest = strip_blanks(rest)
        if (substr(rest, length(rest)) == ".") rest = substr(rest, 1, length(rest) - 1)
        if (match(rest, / \(Level [^()]*\)$/)) rest = substr(rest, 1, RSTART - 1)
        T["title"] = rest
        return is_task_id(T["id"])
    }
    p = index(rest, " \302\267 ")
    if (!p) return 0
    T["id"] = substr(rest, 1, p - 1)
    T["form"] = "thin"
    rest = substr(rest, p + 4)
    # status, priority, complexity, then the title up to the arrow.
    for (q = 1; q <= 3; q++) {
        p = index(rest, " \302\267 ")
        if (q == 1) T["status"] = p ? substr(rest, 1, p - 1) : rest
        rest = p ? substr(rest, p + 4) : ""
    }
    p = index(rest, " \342\206\222 ")
    T["title"] = p ? substr(rest, 1, p - 1) : rest
    return is_task_id(T["id"])
}

# A status the reference gives a task that is over.
function task_inactive(status) {
    status = tolower(status)
    return status == "cancelled" || status == "canceled" || status == "done" ||
        status == "completed" || status == "archived"
}

function strip_blanks(s) {
    sub(/^[ \t]+/, "", s)
    sub(/[ \t]+$/, "", s)
    return s
}

# s made safe to show on one line: invalid UTF-8 bytes become "?" and
# control characters spaces; backticks go, and so does every "$(" with
# what follows up to the next ")"; runs of spaces become one; no leading
# "/" or space, no trailing space; at most 55 characters, cut after a
# whole word with "…". Only the first 4096 bytes of s are read.
function sanitize(s,    arr, n, i, len, c, out, o, skip, f, m, keep, k) {
    s = substr(s, 1, 4096)
    n = str_bytes(s, arr)
    o = 0
    skip = 0
    for (i = 1; i <= n; i += len) {
        len = utf8_char(arr, i, n)
        if (!len) { len = 1; c = "?" }
        else if (is_control(UTF8_CP, 0)) c = " "
        else c = substr(s, i, len)
        if (skip) { if (c == ")") skip = 0; continue }
        if (c == "`") continue
        if (c == "(" && o && out[o] == "$") { o--; skip = 1; continue }
        out[++o] = c
    }
    m = 0
    for (i = 1; i <= o; i++) {
        c = out[i]
        if (!m && (c == " " || c == "/")) continue
        if (c == " " && f[m] == " ") continue
        f[++m] = c
    }
    if (m && f[m] == " ") m--
    keep = m
    if (m > 55) {
        keep = 54
        if (f[55] != " ") {
            for (k = 54; k >= 1 && f[k] != " "; k--) ;
            if (k >= 1) keep = k - 1
        }
    }
    c = ""
    for (i = 1; i <= keep; i++) c = c f[i]
    return m > 55 ? c "\342\200\246" : c
}

# list_lines(path, L): the lines of path into L[1..n], returns n. A NUL ends
# a line as a line feed does (spec §8.1): BusyBox awk reads it so, mawk keeps
# it in the line, which split() cuts. A final CR is cut from each line.
function list_lines(path, L,    n, line, k, part, i) {
    n = 0
    while ((getline line < path) > 0) {
        k = split(line, part, /\000/)
        if (k == 0) part[k = 1] = ""
        for (i = 1; i <= k; i++) {
            sub(/\r$/, "", part[i])
            L[++n] = part[i]
        }
    }
    close(path)
    return n
}

# Prints the active tasks under heading of path (see the top).
function print_active(path, heading,    L, n, i, line, inside, T, seen) {
    inside = 0
    n = list_lines(path, L)
    for (i = 1; i <= n; i++) {
        line = L[i]
        if (!inside) {
            sub(/[ \t]+$/, "", line)
            inside = line == heading
            continue
        }
        if (line ~ /^##?([ \t]|$)/) break
        if (!task_line(line, T) || task_inactive(T["status"]) || (T["id"] in seen)) continue
        seen[T["id"]] = 1
        printf "%s\t%s\n", T["id"], sanitize(T["title"])
    }
}

# 1 when a task line of any status in any section of path names task.
function names_task(path, task,    L, n, i, T) {
    n = list_lines(path, L)
    for (i = 1; i <= n; i++)
        if (task_line(L[i], T) && T["id"] == task) return 1
    return 0
}

BEGIN {
    if (ENVIRON["DR_TASK_FIND"] != "") {
        rules_init()
        n = split(ENVIRON["DR_TASK_LISTS"], lists, "\n")
        for (i = 1; i <= n; i++)
            if (lists[i] != "" && names_task(ENVIRON["DR_TASK_DIR"] "/" lists[i], ENVIRON["DR_TASK_FIND"])) exit 0
        exit 1
    }
    if (ENVIRON["DR_TASK_LIST"] != "") {
        rules_init()
        print_active(ENVIRON["DR_TASK_LIST"], ENVIRON["DR_TASK_SECTION"])
        exit 0
    }
}
