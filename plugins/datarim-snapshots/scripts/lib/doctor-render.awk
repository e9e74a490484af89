# Python twin: python/src/datarim_snapshot/_doctor.py
# Renders doctor's findings (scripts/lib/doctor.sh): the report an operator
# reads top to bottom, or with DR_FORMAT=json one JSON object on one line.
# Input: doctor_record's TAB-separated records, one a line (see doctor.sh);
# every field is shown with invalid UTF-8 as U+FFFD. Needs datarim-rules.awk
# before it. Twin of render and examine in python/src/datarim_snapshot/_doctor.py.

function f(k) {
    return shown_controls(utf8_repair($k))
}

# s with the control characters of more than one byte (C1, U+2028/2029,
# U+FFFE/FFFF, the format characters: is_control's set) as "?", as dr_err
# shows them; C0 and DEL doctor.sh has turned into "?" already.
function shown_controls(s) {
    if (s !~ /[\200-\377]/) return s
    gsub(/\302[\200-\237\255]|\330[\200-\205\234]|\333\235|\334\217|\340\242[\220\221]|\340\243\242|\341\240\216|\342\200[\213-\217\250-\256]|\342\201[\240-\244\246-\257]|\357\273\277|\357\277[\271-\273\276\277]|\360\221\202\275|\360\221\203\215|\360\223\220[\260-\277]|\360\233\262[\240-\243]|\360\235\205[\263-\272]|\363\240\200[\201\240-\277]|\363\240\201[\200-\277]/, "?", s)
    return s
}

function jstr(s) {
    return json_string(s)
}

function jstr_or_null(s) {
    return s == "" ? "null" : json_string(s)
}

# A log line as shown: at most 240 bytes, cut at a character boundary.
function cut_line(s,    n) {
    if (length(s) <= 240) return s
    n = 238
    while (n > 0 && substr(s, n, 1) ~ /[\200-\277]/) n--
    return substr(s, 1, n - 1) "..."
}

BEGIN {
    rules_init()
    FS = "\t"
    REASON["given"] = "given by --root"
    REASON["git-top-level"] = "the git top level, whose datarim/ is a knowledge base"
    REASON["nearest-knowledge-base"] = "the nearest directory upwards whose datarim/ is a knowledge base"
    REASON["current-directory"] = "no knowledge base at the git top level or upwards: the current directory"
    NH = 0; NP = 0; NL = 0; LOGS = 0; NM = 0
}

$1 == "root" { root = f(2); reason = $3 }
$1 == "kb" { kb = f(2); kb_present = $3 == "1" }
$1 == "tasks" { tasks = f(2); resume = f(3) }
$1 == "dir" { dstate[$2] = $3; nfiles[$2] = 0 }
$1 == "file" {
    k = ++nfiles[$2]
    fname[$2, k] = f(3); fverdict[$2, k] = $4; fdetail[$2, k] = f(5)
}
$1 == "hookfile" {
    NH++
    hruntime[NH] = $2; hfile[NH] = f(3); hstate[NH] = $4; hdetail[NH] = f(5)
    nfound[NH] = 0; nplugin[NH] = 0
}
$1 == "hook" {
    k = ++nfound[NH]
    hevent[NH, k] = f(2); hhook[NH, k] = $3; hcommand[NH, k] = f(4); hproblem[NH, k] = f(5)
}
$1 == "plugin" { k = ++nplugin[NH]; pkey[NH, k] = f(2); penabled[NH, k] = $3 == "true" }
$1 == "mcpfile" {
    NM++
    mclient[NM] = $2; mfile[NM] = f(3); mstate[NM] = $4; mdetail[NM] = f(5); nserver[NM] = 0
}
$1 == "mcpserver" {
    k = ++nserver[NM]
    sname[NM, k] = f(2); sscope[NM, k] = $3; scommand[NM, k] = f(4); sproblem[NM, k] = f(5)
}
$1 == "log" { log_file = f(2); log_state = $3 }
$1 == "logline" { LOG[++LOGS] = shown_controls(utf8_repair(cut_line($2))) }
$1 == "problem" { problem[++NP] = f(2) }

function task_list(    T, n, k, out) {
    n = split(tasks, T, " ")
    out = ""
    for (k = 1; k <= n; k++) out = out (k > 1 ? "," : "") jstr(T[k])
    return "[" out "]"
}

# (The lists of files and problems grow with the folders: joined pairwise,
# join_pieces, as `out = out x` would copy out once per item.)
function files_json(kind,    k, P) {
    for (k = 1; k <= nfiles[kind]; k++)
        P[k] = (k > 1 ? "," : "") "{\"name\":" jstr(fname[kind, k]) ",\"verdict\":" jstr(fverdict[kind, k]) \
            ",\"detail\":" jstr_or_null(fdetail[kind, k]) "}"
    return "{\"state\":" jstr(dstate[kind]) ",\"files\":[" join_pieces(P, 1, nfiles[kind]) "]}"
}

function hooks_json(    h, k, out, found, plugins) {
    out = ""
    for (h = 1; h <= NH; h++) {
        found = ""
        for (k = 1; k <= nfound[h]; k++)
            found = found (k > 1 ? "," : "") "{\"event\":" jstr(hevent[h, k]) ",\"hook\":" jstr(hhook[h, k]) \
                ",\"command\":" jstr(hcommand[h, k]) ",\"problem\":" jstr_or_null(hproblem[h, k]) "}"
        plugins = ""
        for (k = 1; k <= nplugin[h]; k++)
            plugins = plugins (k > 1 ? "," : "") "{\"plugin\":" jstr(pkey[h, k]) ",\"enabled\":" \
                (penabled[h, k] ? "true" : "false") "}"
        out = out (h > 1 ? "," : "") "{\"runtime\":" jstr(hruntime[h]) ",\"file\":" jstr(hfile[h]) \
            ",\"state\":" jstr(hstate[h]) ",\"detail\":" jstr_or_null(hdetail[h]) \
            ",\"found\":[" found "],\"plugins\":[" plugins "]}"
    }
    return "[" out "]"
}

function mcp_json(    m, k, out, servers) {
    out = ""
    for (m = 1; m <= NM; m++) {
        servers = ""
        for (k = 1; k <= nserver[m]; k++)
            servers = servers (k > 1 ? "," : "") "{\"name\":" jstr(sname[m, k]) ",\"scope\":" \
                (sscope[m, k] == "local" ? jstr("local") : "null") ",\"command\":" jstr(scommand[m, k]) \
                ",\"problem\":" jstr_or_null(sproblem[m, k]) "}"
        out = out (m > 1 ? "," : "") "{\"client\":" jstr(mclient[m]) ",\"file\":" jstr(mfile[m]) \
            ",\"state\":" jstr(mstate[m]) ",\"detail\":" jstr_or_null(mdetail[m]) \
            ",\"servers\":[" servers "]}"
    }
    return "[" out "]"
}

function log_json(    k, out, from) {
    out = ""
    from = LOGS > 5 ? LOGS - 4 : 1
    for (k = from; k <= LOGS; k++) out = out (k > from ? "," : "") jstr(LOG[k])
    return "{\"file\":" jstr_or_null(log_file) ",\"state\":" jstr(log_state) ",\"last\":[" out "]}"
}

function problems_json(    k, P) {
    for (k = 1; k <= NP; k++) P[k] = (k > 1 ? "," : "") jstr(problem[k])
    return "[" join_pieces(P, 1, NP) "]"
}

function render_json() {
    printf "{\"root\":{\"path\":%s,\"reason\":%s},\"knowledge_base\":{\"path\":%s,\"present\":%s}", \
        jstr(root), jstr(reason), jstr(kb), kb_present ? "true" : "false"
    printf ",\"active_tasks\":{\"tasks\":%s,\"resume\":%s}", task_list(), jstr(resume)
    printf ",\"snapshots\":%s,\"sessions\":%s", files_json("snapshots"), files_json("sessions")
    printf ",\"hooks\":%s,\"mcp\":%s,\"hooks_log\":%s", hooks_json(), mcp_json(), log_json()
    printf ",\"problems\":%s,\"healthy\":%s}\n", problems_json(), NP ? "false" : "true"
}

function render_files(kind,    k, detail) {
    if (dstate[kind] == "symlink") print kind ": datarim/" kind " is a symlink: every reader refuses it"
    else if (dstate[kind] == "unreadable") print kind ": datarim/" kind " cannot be read"
    else if (dstate[kind] != "read") print kind ": none (no datarim/" kind ")"
    else if (!nfiles[kind]) print kind ": none in datarim/" kind
    else {
        print kind ": " nfiles[kind] " in datarim/" kind
        for (k = 1; k <= nfiles[kind]; k++) {
            detail = ""
            if (fverdict[kind, k] != "valid") detail = ": " fdetail[kind, k]
            else if (fdetail[kind, k] != "") detail = " (" fdetail[kind, k] ")"
            print "  " fname[kind, k] ": " fverdict[kind, k] detail
        }
    }
}

function render_mcp(    m, k, items, notes, state, registered) {
    print "mcp server (datarim-snapshot mcp):"
    registered = 0
    for (m = 1; m <= NM; m++) {
        if (mstate[m] == "absent") continue
        items = ""
        for (k = 1; k <= nserver[m]; k++) {
            notes = sscope[m, k] == "local" ? "this project" : ""
            if (sproblem[m, k] != "") notes = notes (notes == "" ? "" : "; ") sproblem[m, k]
            items = items (items == "" ? "" : ", ") sname[m, k] (notes == "" ? "" : " (" notes ")")
            registered = 1
        }
        if (mstate[m] == "unreadable") state = "cannot be read: " mdetail[m]
        else state = items == "" ? "none of ours" : items
        print "  " mclient[m] " " mfile[m] ": " state
    }
    if (!registered)
        print "  (registered with no MCP client: Claude Code, Codex, Gemini CLI and Cursor; see docs/mcp.md)"
}

function render_text(    h, k, items, item, state, any_ours, from) {
    print "root: " root " (" REASON[reason] ")"
    if (kb_present) print "knowledge base: " kb
    else print "knowledge base: none (" kb " holds no tasks.md, backlog.md, activeContext.md, tasks/, snapshots/ or sessions/)"
    print "active tasks: " (tasks == "" ? "none" : tasks) "; " resume
    render_files("snapshots")
    render_files("sessions")
    print "hooks:"
    any_ours = 0
    for (h = 1; h <= NH; h++) {
        items = ""
        for (k = 1; k <= nfound[h]; k++) {
            item = hevent[h, k] " " hhook[h, k]
            if (hproblem[h, k] != "") item = item " (" hproblem[h, k] ")"
            items = items (items == "" ? "" : ", ") item
            any_ours = 1
        }
        for (k = 1; k <= nplugin[h]; k++) {
            items = items (items == "" ? "" : ", ") "plugin " pkey[h, k] " " (penabled[h, k] ? "enabled" : "disabled")
            if (penabled[h, k]) any_ours = 1
        }
        if (hstate[h] == "absent") state = "absent"
        else if (hstate[h] == "unreadable") state = "cannot be read: " hdetail[h]
        else state = items == "" ? "none of ours" : items
        print "  " hruntime[h] " " hfile[h] ": " state
    }
    if (!any_ours)
        print "  (no hook of this project is installed: dev-tools/install-hooks.sh --runtime claude|codex|gemini|qwen|copilot|opencode, or the Claude Code plugin; see docs/agent-runtimes.md)"
    render_mcp()
    if (log_state == "no-state-dir")
        print "hooks log: none (no state directory: DATARIM_STATE_DIR, XDG_STATE_HOME or HOME must be an absolute path)"
    else if (log_state == "absent") print "hooks log: " log_file ": absent (no hook has logged a failure)"
    else if (log_state == "unreadable") print "hooks log: " log_file ": cannot be read"
    else if (log_state == "empty") print "hooks log: " log_file ": empty"
    else {
        from = LOGS > 5 ? LOGS - 4 : 1
        k = LOGS - from + 1
        print "hooks log: " log_file ", its last " (k == 1 ? "line" : k " lines") ":"
        for (k = from; k <= LOGS; k++) print "  " LOG[k]
    }
    if (!NP) print "result: healthy"
    else {
        print "result: " NP " " (NP == 1 ? "thing" : "things") " to fix"
        for (k = 1; k <= NP; k++) print "  - " problem[k]
    }
}

END {
    if (ENVIRON["DR_FORMAT"] == "json") render_json()
    else render_text()
}
