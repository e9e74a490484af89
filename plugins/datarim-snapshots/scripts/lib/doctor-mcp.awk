# Python twin: python/src/datarim_snapshot/_doctor.py
# What doctor finds of the MCP server (`datarim-snapshot mcp`, docs/mcp.md) in
# one MCP client's configuration file (scripts/lib/doctor.sh). Load it after
# datarim-rules.awk and doctor-hooks.awk (its words and clean) and before
# hook-payload.awk, whose JSON parser it uses. Input: the file's bytes through
# `tr '\000\002' '\001\001'`. Twin of _mcp_file, _mcp_ours and _toml_servers in
# python/src/datarim_snapshot/_doctor.py.
#
# ENVIRON: DR_MCP (json: a JSON file with an mcpServers object, as Claude
# Code's, Gemini CLI's and Cursor's; toml: a Codex config.toml), DR_LIMIT (the
# most bytes read), DR_LOCAL (1 for Claude Code's ~/.claude.json, whose
# projects.<DR_PROJECT>.mcpServers count too: DR_PROJECT is this project's path).
# Output, first line: "read"; "big" (over DR_LIMIT), "json" (not one strict
# JSON object) or "dup" (a name repeated in an object), and nothing more. Then
# one line per server of ours, TAB-separated: M <scope> <program> <command>
# <name>, scope "user", or "local" for ~/.claude.json's projects entry (those
# after the others), each in the file's order. A server is ours when its
# command's program (first shell word) is named datarim-snapshot and its first
# argument (the command's second word, else the first item of args) is mcp.
# A config.toml is read line by line: a [mcp_servers.<name>] table's first
# command = "..." and the first item of its first args = [...] (on the line
# args opens), a string without a backslash or a control character; other
# tables and dotted keys are not read.

# Prints the M line and returns 1 when (command, first argument) runs ours.
function mcp_ours(scope, name, cmd, has_first, first,    base, arg) {
    words(cmd, 2)
    if (NW < 1) return 0
    base = WORDS[1]
    sub(/.*\//, "", base)
    if (base != "datarim-snapshot") return 0
    if (NW > 1) arg = WORDS[2]
    else if (has_first) arg = first
    else return 0
    if (arg != "mcp") return 0
    found[++nfound] = "M\t" scope "\t" WORDS[1] "\t" cmd "\t" name
    return 1
}

# The JSON servers under prefix (an mcpServers object's path), in the file's order.
function json_servers(prefix, scope,    path, k, seg, want, name, server, args, n, i, j, a, l) {
    if (TYPE[prefix] != "object") return
    want = split(prefix, seg, SUBSEP) + 2
    n = 0
    for (path in TYPE) {
        k = split(path, seg, SUBSEP)
        if (k != want || seg[k] != "command" || substr(path, 1, length(prefix) + 1) != prefix SUBSEP) continue
        name = seg[k - 1]
        server = prefix SUBSEP name
        if (TYPE[server] != "object" || !usable(path) || !clean(name)) continue
        at[++n] = FROM[server]
        key[n] = server
    }
    for (i = 2; i <= n; i++) {
        a = at[i]; l = key[i]
        for (j = i - 1; j >= 1 && at[j] > a; j--) { at[j + 1] = at[j]; key[j + 1] = key[j] }
        at[j + 1] = a; key[j + 1] = l
    }
    for (i = 1; i <= n; i++) {
        server = key[i]
        k = split(server, seg, SUBSEP)
        args = server SUBSEP "args"
        if (TYPE[args] == "array" && TYPE[args SUBSEP 0] == "string")
            mcp_ours(scope, seg[k], STR[server SUBSEP "command"], 1, STR[args SUBSEP 0])
        else
            mcp_ours(scope, seg[k], STR[server SUBSEP "command"], 0, "")
    }
}

# A TOML string value at the start of s ("..." or '...', no backslash or
# control character): sets VALUE and returns 1, or returns 0. (\042 is the
# double quote: the portability lint reads a literal one as a string.)
function toml_value(s,    q, end) {
    if (s !~ /^(\042[^\042\\\001-\037\177]*\042|'[^'\001-\037\177]*')/) return 0
    q = substr(s, 1, 1)
    end = index(substr(s, 2), q)
    VALUE = substr(s, 2, end - 1)
    return 1
}

function toml_servers(    lines, n, i, line, t, name, cmd, has_cmd, first, has_first, value) {
    n = split(S, lines, "\n")
    t = 0
    for (i = 1; i <= n; i++) {
        line = lines[i]
        gsub(/^[ \t\r]+|[ \t\r]+$/, "", line)
        if (substr(line, 1, 1) == "[") {
            in_table = 0
            if (line ~ /^\[[ \t]*mcp_servers\.([A-Za-z0-9_-]+|\042[^\042\\\001-\037\177]*\042)[ \t]*\]$/) {
                name = line
                sub(/^\[[ \t]*mcp_servers\./, "", name)
                sub(/[ \t]*\]$/, "", name)
                gsub(/\042/, "", name)
                in_table = 1
                tname[++t] = name
                tcmd[t] = ""; thas_cmd[t] = 0; tfirst[t] = ""; thas_first[t] = 0
            }
            continue
        }
        if (!in_table) continue
        if (!thas_cmd[t] && line ~ /^command[ \t]*=[ \t]*/) {
            value = line
            sub(/^command[ \t]*=[ \t]*/, "", value)
            if (toml_value(value)) { tcmd[t] = VALUE; thas_cmd[t] = 1 }
        }
        if (!thas_first[t] && line ~ /^args[ \t]*=[ \t]*\[[ \t]*/) {
            value = line
            sub(/^args[ \t]*=[ \t]*\[[ \t]*/, "", value)
            if (toml_value(value)) { tfirst[t] = VALUE; thas_first[t] = 1 }
        }
    }
    for (i = 1; i <= t; i++)
        if (thas_cmd[i]) mcp_ours("user", tname[i], tcmd[i], thas_first[i], tfirst[i])
}

BEGIN {
    if (ENVIRON["DR_MCP"] != "") mcp_main()
}

function mcp_main(    i) {
    rules_init()
    nfound = 0
    if (read_stdin() > ENVIRON["DR_LIMIT"] + 0) { print "big"; exit 0 }
    if (ENVIRON["DR_MCP"] == "toml") {
        print "read"
        toml_servers()
    } else {
        read_json_settings()
        json_servers("mcpServers", "user")
        if (ENVIRON["DR_LOCAL"] == "1")
            json_servers("projects" SUBSEP ENVIRON["DR_PROJECT"] SUBSEP "mcpServers", "local")
    }
    for (i = 1; i <= nfound; i++) print found[i]
    exit 0
}
