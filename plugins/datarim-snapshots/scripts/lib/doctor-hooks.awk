# Python twin: python/src/datarim_snapshot/_doctor.py
# What doctor finds of this project's hooks in one Claude Code settings.json
# or Codex hooks.json (scripts/lib/doctor.sh). Load it after datarim-rules.awk
# and before hook-payload.awk, whose parser it uses (its BEGIN runs first and
# exits). Input: the file's bytes through `tr '\000\002' '\001\001'` (see
# hook-fields.awk). Twin of _settings and _hook_file in
# python/src/datarim_snapshot/_doctor.py.
#
# ENVIRON: DR_LIMIT (the most bytes read; install-hooks' limit), DR_CLAUDE (1
# for a Claude Code file: its enabledPlugins count too), DR_COPILOT (1 for a
# GitHub Copilot CLI settings.json: its hooks are hooks.<event>[i].bash),
# DR_WORKSPACE (a workspace root: the file is an extension-enablement.json,
# read by enablement_main below instead).
# Output, first line: "read"; "big" (over DR_LIMIT), "json" (not one strict
# JSON object) or "dup" (a name repeated in an object), and nothing more. Then,
# in the file's order, one line per command of ours, TAB-separated:
#   H <event> <hook> <program> <copilot> <command>
# (<copilot> 1 when DATARIM_HOOK_RUNTIME=copilot goes before the program, else 0)
# and one per entry of our plugin in enabledPlugins: P <key> <true|false>.
# A command is ours when its program (first shell word) is named <hook>.sh
# (the bash suite, wherever it is installed) or is datarim-snapshot followed
# by <hook> (the Python port), <hook> one of session-start-hook, prompt-hook,
# stop-hook. Only strings without U+0000, lone surrogates or controls count,
# and only where the runtimes read them: hooks.<event>[i].hooks[j].command.

# A name or string fit for use: no control character (U+0000 and lone
# surrogates never reach a path or STR; see hook-payload.awk).
function clean(s,    arr, n) {
    n = str_bytes(s, arr)
    return utf8_scan(arr, 1, n, 1, 0) == ""
}

# Sets WORDS[1..NW] to the first count shell words of cmd: split at blanks
# outside quotes; '...' quotes literally, "..." keeps \" \\ \$ \` escapes, a
# backslash outside quotes escapes the next character; $VAR stays as written.
function words(cmd, count,    at, end, word, c, close_at) {
    NW = 0; at = 1; end = length(cmd)
    while (NW < count) {
        while (at <= end && (substr(cmd, at, 1) == " " || substr(cmd, at, 1) == "\t")) at++
        if (at > end) break
        word = ""
        while (at <= end) {
            c = substr(cmd, at, 1)
            if (c == " " || c == "\t") break
            if (c == "'") {
                close_at = index(substr(cmd, at + 1), "'")
                close_at = close_at ? at + close_at : end + 1
                word = word substr(cmd, at + 1, close_at - at - 1)
                at = close_at + 1
            } else if (c == "\"") {
                at++
                while (at <= end && substr(cmd, at, 1) != "\"") {
                    if (substr(cmd, at, 1) == "\\" && at < end && index("\"\\$`", substr(cmd, at + 1, 1))) at++
                    word = word substr(cmd, at, 1)
                    at++
                }
                at++
            } else if (c == "\\" && at < end) {
                word = word substr(cmd, at + 1, 1)
                at += 2
            } else {
                word = word c
                at++
            }
        }
        WORDS[++NW] = word
    }
}

function hook_name(s) {
    return s == "session-start-hook" || s == "prompt-hook" || s == "stop-hook"
}

# Sets OURS_HOOK and OURS_PROGRAM and returns 1 when cmd runs one of our hooks.
# Leading NAME=value words (the shell's assignments, as install-hooks puts
# DATARIM_HOOK_RUNTIME=copilot before Copilot's commands) are not the program;
# OURS_COPILOT is 1 when the last of them naming DATARIM_HOOK_RUNTIME sets it
# to copilot.
function ours(cmd,    base, first) {
    words(cmd, 8)
    first = 1
    OURS_COPILOT = 0
    while (first <= NW && WORDS[first] ~ /^[A-Za-z_][A-Za-z0-9_]*=/) {
        if (index(WORDS[first], "DATARIM_HOOK_RUNTIME=") == 1)
            OURS_COPILOT = WORDS[first] == "DATARIM_HOOK_RUNTIME=copilot"
        first++
    }
    if (first > NW) return 0
    base = WORDS[first]
    sub(/.*\//, "", base)
    OURS_PROGRAM = WORDS[first]
    if (base ~ /\.sh$/ && hook_name(substr(base, 1, length(base) - 3))) {
        OURS_HOOK = substr(base, 1, length(base) - 3)
        return 1
    }
    if (base == "datarim-snapshot" && NW > first && hook_name(WORDS[first + 1])) {
        OURS_HOOK = WORDS[first + 1]
        return 1
    }
    return 0
}

# Prints line[1..n] in the order of at[1..n] (insertion sort: a file holds few of ours).
function print_sorted(n,    i, j, a, l) {
    for (i = 2; i <= n; i++) {
        a = at[i]; l = line[i]
        for (j = i - 1; j >= 1 && at[j] > a; j--) { at[j + 1] = at[j]; line[j + 1] = line[j] }
        at[j + 1] = a; line[j + 1] = l
    }
    for (i = 1; i <= n; i++) print line[i]
}

# Run unless DR_MCP is set: then doctor-mcp.awk, loaded after, reads the file
# with this file's words and clean. With DR_WORKSPACE, enablement_main reads it.
BEGIN {
    if (ENVIRON["DR_MCP"] == "") {
        if (ENVIRON["DR_WORKSPACE"] != "") enablement_main()
        hooks_main()
    }
}

# With DR_WORKSPACE (a workspace root) the file is the extension-enablement.json
# of Gemini CLI or Qwen Code, and the line after "read" says what it makes of
# our extension there: "E enabled" or "E disabled"; "E shape" when its
# datarim-snapshots entry is not {"overrides": [strings]}; "E star" when a rule
# holds a * before its last character (a glob this reader does not read). The
# CLIs' rule: "!" first disables, a last "*" takes in the folders below, and
# the last rule matching the root (with a "/" put at its end) wins; enabled
# when none does. Twin of _enablement in python/src/datarim_snapshot/_doctor.py.
function enablement_main(    list, n, i, rule, off, below, root, verdict) {
    rules_init()
    if (read_stdin() > ENVIRON["DR_LIMIT"] + 0) { print "big"; exit 0 }
    read_json_settings()
    list = "datarim-snapshots" SUBSEP "overrides"
    if (!("datarim-snapshots" in TYPE)) { print "E\tenabled"; exit 0 }
    if (TYPE["datarim-snapshots"] != "object" || TYPE[list] != "array") { print "E\tshape"; exit 0 }
    n = COUNT[list]
    for (i = 0; i < n; i++) if (TYPE[list SUBSEP i] != "string") { print "E\tshape"; exit 0 }
    # As the CLIs see the root: decoded from UTF-8, "\" as "/", "/" at both ends.
    root = utf8_repair(ENVIRON["DR_WORKSPACE"])
    gsub(/\\/, "/", root)
    if (substr(root, 1, 1) != "/") root = "/" root
    if (substr(root, length(root)) != "/") root = root "/"
    verdict = "enabled"
    for (i = 0; i < n; i++) {
        # U+0000 or a lone surrogate (dropped from STR), which no path holds: it matches none.
        if (BAD[list SUBSEP i]) continue
        rule = STR[list SUBSEP i]
        off = substr(rule, 1, 1) == "!"
        if (off) rule = substr(rule, 2)
        below = rule != "" && substr(rule, length(rule)) == "*"
        if (below) rule = substr(rule, 1, length(rule) - 1)
        if (index(rule, "*")) { print "E\tstar"; exit 0 }
        if (rule_matches(root, rule, below)) verdict = off ? "disabled" : "enabled"
    }
    print "E\t" verdict
    exit 0
}

# The CLIs turn a rule into a regular expression: <rule> alone, or with a last
# "*" <rule> then any text (when the rule ends in "/": nothing, or "/" then any
# text), where any text is one without a line end (LF, CR, U+2028, U+2029).
function rule_matches(root, rule, below,    rest) {
    if (!below) return root == rule
    if (substr(rule, length(rule)) == "/" && root == substr(rule, 1, length(rule) - 1)) return 1
    if (substr(root, 1, length(rule)) != rule) return 0
    rest = substr(root, length(rule) + 1)
    return !index(rest, "\n") && !index(rest, "\r") && !index(rest, "\342\200\250") && !index(rest, "\342\200\251")
}

# read_json_settings: the text read (S) parsed as one strict JSON object;
# prints "read" when it is one, else why not ("json", "dup") and exits 0.
# doctor-mcp.awk reads a JSON client configuration with it too.
function read_json_settings() {
    N = length(S)
    if (!utf8_valid(S)) { print "json"; exit 0 }
    P = 1
    skip_ws()
    if (substr(S, P, 1) != "{") { print "json"; exit 0 }
    # The parser exits 1 on a text that is no JSON: the caller reads that too.
    parse_object(1, "")
    skip_ws()
    if (P <= N) { print "json"; exit 0 }
    if (DUP) { print "dup"; exit 0 }
    print "read"
}

function hooks_main() {
    rules_init()
    if (read_stdin() > ENVIRON["DR_LIMIT"] + 0) { print "big"; exit 0 }
    read_json_settings()

    # Every hooks.<event>[i].hooks[j].command string, by where it stands in
    # the file; then our plugin's enabledPlugins entries, the same way.
    n = 0
    if (TYPE["hooks"] == "object" && ENVIRON["DR_COPILOT"] == "1") {
        # GitHub Copilot CLI: hooks.<event>[i].bash
        for (path in TYPE) {
            k = split(path, seg, SUBSEP)
            if (k != 4 || seg[1] != "hooks" || seg[4] != "bash") continue
            ev = "hooks" SUBSEP seg[2]
            if (TYPE[ev] != "array" || TYPE[ev SUBSEP seg[3]] != "object") continue
            if (!usable(path) || !clean(seg[2]) || !ours(STR[path])) continue
            at[++n] = FROM[path]
            line[n] = "H\t" seg[2] "\t" OURS_HOOK "\t" OURS_PROGRAM "\t" OURS_COPILOT "\t" STR[path]
        }
    } else if (TYPE["hooks"] == "object") {
        for (path in TYPE) {
            k = split(path, seg, SUBSEP)
            if (k != 6 || seg[1] != "hooks" || seg[4] != "hooks" || seg[6] != "command") continue
            ev = "hooks" SUBSEP seg[2]
            group = ev SUBSEP seg[3]
            inner = group SUBSEP "hooks"
            if (TYPE[ev] != "array" || TYPE[group] != "object" || TYPE[inner] != "array") continue
            if (TYPE[inner SUBSEP seg[5]] != "object" || !usable(path) || !clean(seg[2])) continue
            if (!ours(STR[path])) continue
            at[++n] = FROM[path]
            line[n] = "H\t" seg[2] "\t" OURS_HOOK "\t" OURS_PROGRAM "\t" OURS_COPILOT "\t" STR[path]
        }
    }
    print_sorted(n)
    n = 0
    if (ENVIRON["DR_CLAUDE"] == "1" && TYPE["enabledPlugins"] == "object") {
        for (path in TYPE) {
            k = split(path, seg, SUBSEP)
            if (k != 2 || seg[1] != "enabledPlugins" || index(seg[2], "datarim-snapshots@") != 1) continue
            if (!clean(seg[2]) || (TYPE[path] != "true" && TYPE[path] != "false")) continue
            at[++n] = FROM[path]
            line[n] = "P\t" seg[2] "\t" TYPE[path]
        }
    }
    print_sorted(n)
    exit 0
}
