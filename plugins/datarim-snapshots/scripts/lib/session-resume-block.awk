# Python twin: python/src/datarim_snapshot/_session_resume_block.py
# The resume block printed after a session handoff is saved: what an
# operator copies into a fresh window.
# ENVIRON: DR_SESSION, DR_RECOMMENDED_NEXT, DR_NEXT_ACTION (as saved),
#          DR_TASK_IDS (active tasks, one space apart), DR_TASKS_MD (the
#          path of datarim/tasks.md, or "" when there is none).
# Prints the block on stdout. Needs datarim-rules.awk and task-list.awk
# before it.

# The first word after the command that is a task ID, or "".
function named_task(command,    w, n, k) {
    n = split(command, w, " ")
    for (k = 2; k <= n; k++) if (is_task_id(w[k])) return w[k]
    return ""
}

# The title that the first line of tasks.md naming task (as a whole ID)
# gives it: the text after the ID, past separators, up to a "|".
function task_title(path, task,    line, P, n, k, p, rest, c, bar, found, T) {
    found = ""
    while (found == "" && (getline line < path) > 0) {
        # A thin or rich task-list line: its title field (task-list.awk).
        if (task_line(line, T) && T["form"] != "plain") {
            if (T["id"] == task) found = "\001" T["title"]
            continue
        }
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
