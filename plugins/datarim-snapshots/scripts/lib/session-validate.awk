# Python twin: python/src/datarim_snapshot/_session_handoff_validator.py
# Decides whether a session-handoff artefact may be trusted (spec §5):
# every block, not only the first.
# ENVIRON: DR_SESSION (the ID in the file name, already checked),
#          DR_FILE/_LEN/_NUL: at most SESSION_CAP+1 bytes of the file.
# Prints nothing and exits 0 when valid; else the first broken rule on
# stdout and exit 2. Needs datarim-rules.awk, frontmatter.awk and
# session-format.awk before it.

function broken(msg) {
    printf "%s", CONTEXT msg
    exit 2
}

BEGIN {
    session_check_input()
    exit 0
}
