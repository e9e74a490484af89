# Python twin: python/src/datarim_snapshot/_hook_payload.py
# Reads an agent-runtime hook payload (UserPromptSubmit, Stop) from stdin
# and prints the members a hook asks for. Load it after datarim-rules.awk
# and before hook-payload.awk, whose parser it uses (its BEGIN runs first
# and exits). Run with LC_ALL=C, the payload through `tr '\000\002' '\001\001'`:
# NUL (which some awks cannot hold) and STX (the record separator here, so
# the whole stream is one record) arrive as SOH, and all three are invalid
# anywhere in JSON, so no verdict changes. Twin of python/src/datarim_snapshot/_hook_state.py
# (read_payload).
#
# ENVIRON:
#   DR_HOOK_LIMIT      the most bytes a payload may have
#   DR_HOOK_FIELDS     top-level member names, blank-separated, printed one a line:
#                      "s<text>" a string without U+0000, lone surrogates or
#                      control characters; "t", "f", "n" true, false, null;
#                      "-" absent; "x" anything else
#   DR_HOOK_TEXT       optional: one more member, a text (controls allowed), written
#                      whole to DR_HOOK_TEXT_FILE; its line is "s" when written,
#                      else as above ("x" also for a string holding U+0000 or a
#                      lone surrogate, which no file can hold as json.loads reads it)
#   DR_HOOK_COMMAND    optional: one more member, the prompt of a UserPromptSubmit
#                      payload, read as a turn command (turn_command below):
#                      "c<stage> <task>" for a stage command, "p" for any other
#                      prompt; else "x" (a string holding U+0000 or a lone
#                      surrogate too), "n" or "-" as above
#   DR_HOOK_TEXT and DR_HOOK_COMMAND may name several members, blank-separated:
#   the first one present is read (Gemini's AfterAgent has prompt_response
#   where Claude's Stop has last_assistant_message; Qwen's UserPromptSubmit has
#   the typed command in submitted_prompt, its prompt being the command's text)
# Exit: 0 the lines printed; 1 not one strict JSON object (see hook-payload.awk);
# 3 more than DR_HOOK_LIMIT bytes; 4 the text file cannot be written. The
# whole stream is read in every case, so the runtime's write never fails.

function field_line(name,    t) {
    if (!(name in TYPE)) return "-"
    t = TYPE[name]
    if (t == "true") return "t"
    if (t == "false") return "f"
    if (t == "null") return "n"
    return usable(name) ? "s" STR[name] : "x"
}

# A prompt's turn command: its first word, after leading blanks, when it is
# /dr-<stage>, Codex's /prompts:dr-<stage> or Codex's skill mention
# $dr-<stage> (the one form `codex exec` takes) with <stage> one of the
# writer's stages; <task> is the next word when it passes the task-ID rule,
# else empty. Only the first 512 bytes count, each control byte (C0, DEL) a
# blank.
function turn_command(s,    head, word, stage, arg) {
    head = substr(s, 1, 512)
    gsub(/[\001-\037\177]/, " ", head)
    sub(/^ +/, "", head)
    word = head
    sub(/ .*/, "", word)
    if (substr(word, 1, 4) == "/dr-" || substr(word, 1, 4) == "$dr-") stage = substr(word, 5)
    else if (substr(word, 1, 12) == "/prompts:dr-") stage = substr(word, 13)
    else return "p"
    if (!is_stage(stage)) return "p"
    arg = substr(head, length(word) + 1)
    sub(/^ +/, "", arg)
    sub(/ .*/, "", arg)
    return "c" stage " " (is_task_id(arg) ? arg : "")
}

# The first of the blank-separated names that the payload has, else the last.
function first_present(names,    list, n, k) {
    n = split(names, list, " ")
    for (k = 1; k < n; k++)
        if (list[k] in TYPE) return list[k]
    return list[n]
}

function text_line(name,    t) {
    if (!(name in TYPE)) return "-"
    t = TYPE[name]
    if (t == "null") return "n"
    if (t != "string" || BAD[name]) return "x"
    return "s"
}

BEGIN {
    rules_init()
    if (read_stdin() > ENVIRON["DR_HOOK_LIMIT"] + 0) exit 3
    N = length(S)
    if (!utf8_valid(S)) exit 1
    parse_document()

    n = split(ENVIRON["DR_HOOK_FIELDS"], names, " ")
    out = ""
    for (k = 1; k <= n; k++) out = out field_line(names[k]) "\n"
    name = ENVIRON["DR_HOOK_TEXT"]
    if (name != "") {
        name = first_present(name)
        line = text_line(name)
        if (line == "s") {
            file = ENVIRON["DR_HOOK_TEXT_FILE"]
            printf "%s", STR[name] > file
            if (close(file) != 0) exit 4
        }
        out = out line "\n"
    }
    name = ENVIRON["DR_HOOK_COMMAND"]
    if (name != "") {
        name = first_present(name)
        line = text_line(name)
        out = out (line == "s" ? turn_command(STR[name]) : line) "\n"
    }
    printf "%s", out
    exit 0
}
