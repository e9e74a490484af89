# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_session_handoff_validator.py
# Session-handoff validator (spec §5): may this artefact be trusted?
# Every block is checked, not only the first.
#
#   session_check_file <file> <session-id> <msg-var>   0 valid, 1 missing, 2 malformed
#   check_session_handoff --session <ID> [--root <dir>] [--validate-frontmatter]
#   check_session_handoff --self-test
#
# Sourcing defines functions only; nothing of the caller's shell changes.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_session_handoff_validator=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac
dr_source session-handoff-writer.sh

# session_check_file <file> <session-id> <msg-var>: judges one file;
# <msg-var> gets the first broken rule (empty when valid). <session-id>
# must already have passed dr_session_id_ok.
session_check_file() {
  local LC_ALL=C dir out status=0 file_text file_len file_nul
  dr_artifact_state "$1" "$3" || return $?
  dr_read_prefix "$1" 32769 file
  dr_lib_dir_into dir
  out=$(DR_SESSION=$2 DR_FILE=$file_text DR_FILE_LEN=$file_len DR_FILE_NUL=$file_nul \
    LC_ALL=C exec awk -f "$dir/datarim-rules.awk" -f "$dir/frontmatter.awk" -f "$dir/session-format.awk" \
    -f "$dir/session-validate.awk" </dev/null) || status=$?
  [ "$status" -eq 0 ] && return 0
  printf -v "$3" '%s' "${out:-cannot be read}"
  return 2
}

# check_session_handoff: the validator's command line (dr_checker). 0 valid,
# 1 missing, 2 malformed, 3 usage. Prints nothing on stdout; one line on stderr.
check_session_handoff() { # with our shell options
  dr_call dr_checker check-session-handoff --session session_self_test sessions .session.md \
    session_check_file "$@"
}

# session_self_test: writes two blocks, checks, breaks and removes them in a scratch root.
session_self_test() {
  local id=SESSION-20260101-000000
  dr_self_test check-session-handoff session_self_test_write session_check_file \
    "datarim/sessions/$id.session.md" "$id"
}
# session_self_test_write <root>: the self-test's writes: its two blocks under <root>.
session_self_test_write() {
  local i
  printf 'SELF-0001 | in_progress\n' >"$1/tasks.txt" &&
    printf '## Layer 1 \342\200\224 Git State\n\n## Layer 5 \342\200\224 Failed Approaches\nnone\n' >"$1/body.md" &&
    for i in 1 2; do
      write_session_handoff --root "$1" --session SESSION-20260101-000000 --captured-by agent \
        --recommended-next /dr-do --next-action "self-test $i" --active-tasks-file "$1/tasks.txt" \
        --body-file "$1/body.md" --captured-at 2026-01-01T00:00:00Z >/dev/null 2>&1 || return 1
    done
}

[ -z "${_dr_aliases_session_handoff_validator-}" ] || shopt -s expand_aliases
unset _dr_aliases_session_handoff_validator
