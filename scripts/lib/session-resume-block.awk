# Python twin: python/src/datarim_snapshot/session_resume_block.py
# The resume block printed after a session handoff is saved: what an
# operator copies into a fresh window.
# ENVIRON: DR_SESSION, DR_RECOMMENDED_NEXT, DR_NEXT_ACTION (as saved),
#          DR_TASK_IDS (active tasks, one space apart), DR_TASKS_MD (the
#          path of datarim/tasks.md, or "" when there is none).
# Prints the block on stdout. Needs datarim-rules.awk before it.

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

# The first word after the command that is a task ID, or "".
function named_task(command,    w, n, k) {
    n = split(command, w, " ")
    for (k = 2; k <= n; k++) if (is_task_id(w[k])) return w[k]
    return ""
}

# The title that the first line of tasks.md naming task (as a whole ID)
# gives it: the text after the ID, past separators, up to a "|".
function task_title(path, task,    line, P, n, k, p, rest, c, bar, found) {
    found = ""
    while (found == "" && (getline line < path) > 0) {
        n = occurrences(line, task, P)
        for (k = 1; k <= n; k++) {
            p = P[k]
            if (p > 1 && substr(line, p - 1, 1) ~ /[A-Za-z0-9-]/) continue
            rest = substr(line, p + length(task))
            if (substr(rest, 1, 1) ~ /[A-Za-z0-9-]/) continue
            while (1) {
                c = substr(rest, 1, 1)
                if (c != "" && index(" \t*_`:|]).-", c)) rest = substr(rest, 2)
                else if (substr(rest, 1, 3) == "\342\200\224" || substr(rest, 1, 3) == "\342\200\223") rest = substr(rest, 4)
                else break
            }
            bar = index(rest, "|")
            if (bar) rest = substr(rest, 1, bar - 1)
            found = "\001" rest
            break
        }
    }
    close(path)
    return found == "" ? "" : sanitize(substr(found, 2))
}

BEGIN {
    rules_init()
    id = ENVIRON["DR_SESSION"]
    printf "Session saved \342\206\222 datarim/sessions/%s.session.md\n", id
    printf "/dr-continue %s\n", id
    task = named_task(ENVIRON["DR_RECOMMENDED_NEXT"])
    if (task != "") {
        title = ENVIRON["DR_TASKS_MD"] == "" ? "" : task_title(ENVIRON["DR_TASKS_MD"], task)
        printf "\342\206\263 %s%s   (saved %s-%s-%s %s:%s UTC)\n", task, title == "" ? "" : " \342\200\224 " title,
            substr(id, 9, 4), substr(id, 13, 2), substr(id, 15, 2), substr(id, 18, 2), substr(id, 20, 2)
    }
    next_action = sanitize(ENVIRON["DR_NEXT_ACTION"])
    if (next_action != "") printf "Next: %s\n", next_action
    n = split(ENVIRON["DR_TASK_IDS"], ids, " ")
    others = ""
    for (k = 1; k <= n; k++) if (ids[k] != task) others = others (others == "" ? "" : ", ") ids[k]
    if (others != "") printf "Also active this session: %s\n", others
}
