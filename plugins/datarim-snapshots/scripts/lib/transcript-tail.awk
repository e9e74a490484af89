# Python twin: python/src/datarim_snapshot/_stop_hook.py
# The final answer of a turn from the tail of its transcript (JSONL), for a
# Stop payload without last_assistant_message (older CLIs). Load it after
# datarim-rules.awk and before hook-payload.awk, whose parser it uses (its
# BEGIN runs first and exits). Input: the tail's bytes, through
# `tr '\000\002' '\001\001'` (see hook-fields.awk), one entry a line.
# Twin of read_transcript_answer in python/src/datarim_snapshot/_stop_hook.py.
#
# Lines are read from the last one back, looking only at those that hold
# the bytes "assistant" or "gemini" (quotes included): the first such line that is an
# assistant entry gives the answer; one that is not a strict JSON object
# ends the search (the tail's first line is usually cut); any other is
# passed over. An assistant entry is Claude Code's
#   {"type":"assistant","message":{"content":[{"type":"text","text":...},...]}}
# (a string "content" is the text itself) or Codex's
#   {"type":"response_item","payload":{"type":"message","role":"assistant",
#    "content":[{"type":"output_text","text":...},...]}}
# or Gemini CLI's
#   {"type":"gemini","content":...}  (a string, or parts [{"text":...},...])
# and its answer is its text parts joined by a newline. (Gemini's AfterAgent
# payload has prompt_response, but 0.61.0 builds it from the streamed chunks
# joined by blanks, the first one already holding the whole text: not the answer.)
# ENVIRON: DR_HOOK_TEXT_FILE, where the answer goes.
# Exit: 0 written; 1 a line that is no JSON object came first; 2 no assistant
# entry; 5 the entry holds no text (or one with U+0000 or a lone surrogate);
# 4 the file cannot be written.

function reset() {
    split("", TYPE); split("", STR); split("", BAD); split("", FROM); split("", UPTO)
    split("", COUNT); split("", FIRST); split("", LAST)
    DUP = 0; NOREC = 0
}

# The text parts of the content array at path whose parts have type want
# (want "": any part with a text); "" and PARTS 0 when it has none. Sets TEXTBAD when a part cannot be written.
function parts(path, want,    k, out, p) {
    PARTS = 0
    out = ""
    TEXTBAD = 0
    for (k = 0; k < COUNT[path]; k++) {
        p = path SUBSEP k
        if (want != "" && (TYPE[p SUBSEP "type"] != "string" || STR[p SUBSEP "type"] != want)) continue
        if (TYPE[p SUBSEP "text"] != "string") continue
        if (BAD[p SUBSEP "text"]) TEXTBAD = 1
        out = out (PARTS ? "\n" : "") STR[p SUBSEP "text"]
        PARTS++
    }
    return out
}

function is_string(path, value) {
    return TYPE[path] == "string" && STR[path] == value
}

BEGIN {
    rules_init()
    n = 0
    while ((getline line) > 0) L[++n] = line
    for (k = n; k >= 1; k--) {
        if (!index(L[k], "\"assistant\"") && !index(L[k], "\"gemini\"")) continue
        S = L[k]
        N = length(S)
        if (!utf8_valid(S)) exit 1
        reset()
        parse_document()
        found = 0
        c = "message" SUBSEP "content"
        if (is_string("type", "assistant") && TYPE["message"] == "object") {
            found = 1
            if (TYPE[c] == "string") {
                text = STR[c]; PARTS = 1; TEXTBAD = BAD[c]
            } else if (TYPE[c] == "array") text = parts(c, "text")
            else PARTS = 0
        }
        c = "payload" SUBSEP "content"
        if (!found && is_string("type", "response_item") && is_string("payload" SUBSEP "type", "message") &&
            is_string("payload" SUBSEP "role", "assistant")) {
            found = 1
            if (TYPE[c] == "array") text = parts(c, "output_text")
            else PARTS = 0
        }
        if (!found && is_string("type", "gemini")) {
            found = 1
            if (TYPE["content"] == "string") {
                text = STR["content"]; PARTS = 1; TEXTBAD = BAD["content"]
            } else if (TYPE["content"] == "array") text = parts("content", "")
            else PARTS = 0
        }
        if (!found) continue
        if (!PARTS || TEXTBAD) exit 5
        write_answer(text)
    }
    exit 2
}
