# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_snapshot_next.py
# The recommendation alone, for an orchestrator that takes it as a hint: the
# recommended_next of a task's valid snapshot, one line on stdout.
#
#   snapshot_next_main [<ID> | --task <ID>] [--root <dir>]   (<ID> anywhere)
#       snapshot-next: 0 printed, 1 missing (or no task to name), 2 invalid,
#       3 usage
#
# Without a task ID: the task the SessionStart hook resumes
# (session_start_task). Sourcing defines snapshot_next_* functions (plus
# those of the libraries it loads) and nothing else.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_snapshot_next=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac
dr_source session-start-hook.sh

# snapshot_next_main: snapshot-next's command line (see the top).
snapshot_next_main() { dr_call snapshot_next_main_body "$@"; } # with our shell options
snapshot_next_main_body() {
  local prog=snapshot-next status=0 finished root task='' snapshot='' next
  local opt_task='' opt_root=''
  dr_reader_flags "$prog" 3 finished "--task= @--task --root=" "" "$@" || status=$?
  [ -z "$finished" ] || return "$status"
  if [ -n "$opt_task" ]; then resume_pick_task "$prog" '' "$opt_task" task || return 3; fi
  dr_reader_root "$prog" "$opt_root" root || return 3
  # When the hook would resume none, resume_pick_task refuses, saying why in
  # resume's words; nothing to recommend is a 1, not a usage error.
  if [ -z "$task" ] && ! session_start_task "$root" task && ! resume_pick_task "$prog" "$root" '' task; then
    return 1
  fi
  snapshot_read_task "$prog" "$root" "$task" snapshot || return
  # Printed as it stands: the validator refuses a recommended_next that holds
  # a control character (spec §3), as replay --hint prints it.
  snapshot_field "$snapshot" recommended_next next
  printf '%s\n' "$next"
}

[ -z "${_dr_aliases_snapshot_next-}" ] || shopt -s expand_aliases
unset _dr_aliases_snapshot_next
