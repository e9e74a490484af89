# Python twin: read_otel_answer in python/src/datarim_snapshot/_stop_hook.py
# The final answer of a GitHub Copilot CLI turn from the tail of its
# OpenTelemetry file exporter's output (JSONL, one span or metric a line):
# Copilot's Stop payload carries no answer, and its transcript is not yet on
# disk when the hook runs, but the turn's last model call (a "chat" span) is
# (docs/agent-runtimes.md, "GitHub Copilot CLI"). Load it after
# datarim-rules.awk and before hook-payload.awk, whose parser it uses (its
# BEGIN runs first and exits). Input: the tail's bytes, through
# `tr '\000\002' '\001\001'`, one line a span.
#
# The turn is the Stop payload's traceparent (00-<trace>-<span>-<flags>): its
# chat spans are those with "type":"span", that "traceId", "parentSpanId"
# the traceparent's span (the turn's invoke_agent span) and attribute
# "gen_ai.operation.name" "chat". Lines are read from the last one back,
# looking only at those that hold the trace ID in quotes: the first chat span
# of the turn gives the answer; a line that is not a strict JSON object ends
# the search (the tail's first line is usually cut); any other is passed over.
# The answer: the attribute "gen_ai.output.messages", a string holding a JSON
# array of messages, read as the value of {"m": <it>}; the parts of type
# "text" of its messages of role "assistant", their "content" joined by a
# newline.
# ENVIRON: DR_OTEL_TRACE, DR_OTEL_PARENT (the IDs), DR_HOOK_TEXT_FILE (where
# the answer goes).
# Exit: 0 written; 1 a line that is no JSON object came first; 2 no chat span
# of the turn; 5 its span holds no usable text; 4 the file cannot be written.

function otel_reset() {
    split("", TYPE); split("", STR); split("", BAD); split("", FROM); split("", UPTO)
    split("", COUNT); split("", FIRST); split("", LAST)
    DUP = 0; NOREC = 0
}

function otel_is(path, value) {
    return TYPE[path] == "string" && STR[path] == value
}

# The answer in the messages at path "m" (see the top); sets OTEL_PARTS to
# the number of parts and OTEL_BAD when one cannot be written.
function otel_text(    k, j, m, p, out) {
    OTEL_PARTS = 0
    OTEL_BAD = 0
    out = ""
    if (TYPE["m"] != "array") return ""
    for (k = 0; k < COUNT["m"]; k++) {
        m = "m" SUBSEP k
        if (!otel_is(m SUBSEP "role", "assistant") || TYPE[m SUBSEP "parts"] != "array") continue
        for (j = 0; j < COUNT[m SUBSEP "parts"]; j++) {
            p = m SUBSEP "parts" SUBSEP j
            if (!otel_is(p SUBSEP "type", "text") || TYPE[p SUBSEP "content"] != "string") continue
            if (BAD[p SUBSEP "content"]) OTEL_BAD = 1
            out = out (OTEL_PARTS ? "\n" : "") STR[p SUBSEP "content"]
            OTEL_PARTS++
        }
    }
    return out
}

BEGIN {
    rules_init()
    trace = ENVIRON["DR_OTEL_TRACE"]
    parent = ENVIRON["DR_OTEL_PARENT"]
    attrs = "attributes" SUBSEP
    n = 0
    while ((getline line) > 0) L[++n] = line
    for (k = n; k >= 1; k--) {
        if (!index(L[k], "\"" trace "\"")) continue
        S = L[k]
        N = length(S)
        if (!utf8_valid(S)) exit 1
        otel_reset()
        parse_document()
        if (!otel_is("type", "span") || !otel_is("traceId", trace) || !otel_is("parentSpanId", parent) ||
            !otel_is(attrs "gen_ai.operation.name", "chat")) continue
        key = attrs "gen_ai.output.messages"
        if (TYPE[key] != "string" || BAD[key]) exit 5
        S = "{\"m\":" STR[key] "}"
        N = length(S)
        otel_reset()
        FAIL_STATUS = 5 # messages that are no JSON: a span without usable text
        parse_document()
        text = otel_text()
        if (!OTEL_PARTS || OTEL_BAD) exit 5
        write_answer(text)
    }
    exit 2
}
