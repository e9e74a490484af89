# Python twin: render_opencode_plugin in python/src/datarim_snapshot/_install_hooks.py
# The opencode plugin install-hooks writes: text/opencode-plugin.js with each
# "@<HOOK>@" placeholder (quotes included) replaced by its hook command as a
# JSON string (which JavaScript reads as the same string). Load it after
# datarim-rules.awk. ENVIRON: DR_PLUGIN_TEMPLATE (the template's path),
# DR_PLUGIN_SESSION_START, DR_PLUGIN_PROMPT, DR_PLUGIN_STOP (the commands).
# Exit: 0 the plugin printed; 2 a command holds a control character (or is
# not UTF-8); 1 the template cannot be read.

function replace_all(s, token, by,    at, out) {
    out = ""
    while ((at = index(s, token)) > 0) {
        out = out substr(s, 1, at - 1) by
        s = substr(s, at + length(token))
    }
    return out s
}

BEGIN {
    rules_init()
    split("SESSION_START PROMPT STOP", names, " ")
    split("SESSION_START_HOOK PROMPT_HOOK STOP_HOOK", tokens, " ")
    for (k = 1; k <= 3; k++) {
        command[k] = ENVIRON["DR_PLUGIN_" names[k]]
        if (utf8_scan(B, 1, str_bytes(command[k], B), 1, 0) != "") exit 2
    }
    text = ""
    file = ENVIRON["DR_PLUGIN_TEMPLATE"]
    while ((status = (getline line < file)) > 0) text = text line "\n"
    if (status < 0 || text == "") exit 1
    for (k = 1; k <= 3; k++) text = replace_all(text, "\"@" tokens[k] "@\"", json_string(command[k]))
    printf "%s", text
    exit 0
}
