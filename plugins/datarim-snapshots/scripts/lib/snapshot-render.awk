# Python twin: python/src/datarim_snapshot/_snapshot_writer.py
# Renders a stage snapshot (spec §2) from validated-in-here inputs.
# ENVIRON: DR_TASK DR_STAGE DR_COMMAND DR_CAPTURED_BY DR_RECOMMENDED_NEXT
#          DR_CAPTURED_AT DR_EXTRA (pre-rendered optional frontmatter lines),
#          DR_GIT_ANCHOR ("<head>\n<branch>\n<dirty>" from git_anchor_probe, or empty),
#          DR_BODY_FLAG (the flag that named the body, for refusals),
#          DR_OPTIONS/_LEN/_NUL and DR_BODY/_LEN/_NUL (see datarim-rules.awk;
#          the body read up to DR_BODY_WINDOW + 1 bytes), DR_REDACT (0: keep
#          secrets as they are).
# Success: the number of secrets redacted (options and body), LF, the whole
# file, ".", exit 0.
# Refusal: one message line on stdout, exit 1.
# Needs datarim-rules.awk, datarim-redact.awk and git-anchor.awk before it on
# the awk command line.

# Byte i of s is a UTF-8 continuation byte (past the end: none is).
function is_cont(s, i,    b) {
    b = ORD[substr(s, i, 1)]
    return b >= 128 && b <= 191
}

# The fault utf8_scan finds in the first n bytes of s ("" when none). Text of
# tabs, line ends and printable ASCII, the common case, needs no byte array.
function body_fault(s, n,    arr) {
    s = substr(s, 1, n)
    if (s !~ /[^\t\n\r -~]/) return ""
    str_bytes(s, arr)
    return utf8_scan(arr, 1, n, 0, 0)
}

function refuse(msg) {
    printf "%s", msg
    exit 1
}

BEGIN {
    rules_init()
    if (!is_stage(ENVIRON["DR_STAGE"]))
        refuse("invalid --stage (want one of:" substr(STAGES, 1, length(STAGES) - 1) ")")
    fault = slash_command_fault(ENVIRON["DR_COMMAND"])
    if (fault != "") refuse("invalid --command: " fault)
    if (!is_captured_by(ENVIRON["DR_CAPTURED_BY"]))
        refuse("invalid --captured-by (want agent or operator)")
    fault = slash_command_fault(ENVIRON["DR_RECOMMENDED_NEXT"])
    if (fault != "") refuse("invalid --recommended-next: " fault)
    if (!is_timestamp(ENVIRON["DR_CAPTURED_AT"]))
        refuse("invalid --captured-at (want YYYY-MM-DDTHH:MM:SSZ, a real UTC time)")

    redacting = ENVIRON["DR_REDACT"] != "0"
    if (redacting) redact_init()
    if (ENVIRON["DR_OPTIONS_LEN"] + 0 > CAP) refuse("--options-file exceeds " CAP "-byte cap (the file is larger than " CAP " bytes)")
    # A NUL ends what we were given; the line holding it is refused.
    options = ""; count = 0; redacted_options = 0
    lines_open("DR_OPTIONS", "--options-file", opt)
    while (lines_next(opt)) {
        if (IN_REFUSAL != "") refuse(IN_REFUSAL)
        start = IN_FROM; stop = IN_TO
        if (stop >= start) {
            # An option line is redacted on its own: one option, one line.
            item = redacting ? redact_text(substr(ENVIRON["DR_OPTIONS"], start, stop - start + 1)) : ""
            if (redacting && REDACT_COUNT > redacted_options) {
                redacted_options = REDACT_COUNT
                n = str_bytes(item, quoted)
                options = options "  - " yaml_quote(quoted, 1, n) "\n"
            } else options = options "  - " yaml_quote(opt, start, stop) "\n"
            count++
        }
    }
    if (count == 0) options = "options: []\n"
    else options = "options:\n" options

    head = "---\ntask_id: " ENVIRON["DR_TASK"] \
        "\nartifact: stage-snapshot\nschema_version: 1\nstage: " ENVIRON["DR_STAGE"] \
        "\ncommand: " ENVIRON["DR_COMMAND"] "\ncaptured_at: " ENVIRON["DR_CAPTURED_AT"] \
        "\ncaptured_by: " ENVIRON["DR_CAPTURED_BY"] "\nrecommended_next: " ENVIRON["DR_RECOMMENDED_NEXT"] \
        "\n" options "size_bytes: "
    extra = ENVIRON["DR_EXTRA"]
    if (ENVIRON["DR_GIT_ANCHOR"] != "") {
        split(ENVIRON["DR_GIT_ANCHOR"], anchor, "\n")
        extra = git_anchor_lines(anchor[1], anchor[2], anchor[3]) extra
    }
    tail_false = "\ntruncated: false\n" extra "---\n\n"
    tail_true = "\ntruncated: true\n" extra "---\n\n"

    # The body: its file's first WINDOW bytes up to a NUL, redacted
    # before the cap is applied, so that a cut never keeps half a secret.
    WINDOW = ENVIRON["DR_BODY_WINDOW"] + 0
    nbody = ENVIRON["DR_BODY_LEN"] + 0
    nul = ENVIRON["DR_BODY_NUL"] + 0
    text = ENVIRON["DR_BODY"]
    if (substr(text, 1, 3) == BOM) {
        # The window shrinks with the body: "more" still means the same bytes.
        text = substr(text, 4); nbody -= 3; WINDOW -= 3
        if (nul >= 0) nul -= 3
    }
    more = nbody > WINDOW
    if (more) {
        text = substr(text, 1, WINDOW)
        if (nul >= WINDOW) nul = -1
    }
    redacted = 0
    if (redacting) {
        text = redact_text(text)
        redacted = REDACT_COUNT
    }
    ntext = length(text)
    # The body's size on disk when whole: bytes past a NUL count; a body
    # longer than the window never fits.
    whole = more ? CAP + 1 : ntext + (nul >= 0 ? nbody - nul : 0)
    room = CAP - length(head) - length(tail_false) - 4
    bad_cut = 0
    nul_kept = 0
    if (whole <= room) {
        keep = ntext
        truncated = 0
        nul_kept = nul >= 0
    } else {
        keep = CAP - length(head) - length(tail_true) - 4 - length(MARKER)
        if (keep < 0) refuse("options leave no room for the body: with them the snapshot exceeds " CAP "-byte cap")
        truncated = 1
        if (nul >= 0 && ntext < keep) nul_kept = 1
        else if (more && nul < 0 && ntext <= keep) {
            # Redaction shrank the window below the cap: its end would be kept.
            # Drop its last word, which the window's edge may have split.
            keep = ntext
            while (keep > 0 && index("\n \t\r", substr(text, keep, 1)) == 0) keep--
        } else {
            # Step back over at most three continuation bytes to a character start.
            for (k = 0; k < 3 && keep > 0 && is_cont(text, keep + 1); k++) keep--
            bad_cut = is_cont(text, keep + 1)
        }
    }
    if (nul_kept) {
        fault = body_fault(text, ntext)
        if (fault == "") fault = "nul"
    } else fault = body_fault(text, keep)
    if (fault == "" && bad_cut) fault = "utf8"
    if (fault == "nul") refuse(ENVIRON["DR_BODY_FLAG"] " holds a NUL byte")
    if (fault != "") refuse(ENVIRON["DR_BODY_FLAG"] " is not valid UTF-8")

    tail = truncated ? tail_true : tail_false
    total = fixed_total(length(head) + length(tail) + keep + (truncated ? length(MARKER) : 0))
    printf "%d\n%s%d%s%s", redacted, head, total, tail, substr(text, 1, keep)
    if (truncated) printf "%s", MARKER
    printf "."
    exit 0
}
