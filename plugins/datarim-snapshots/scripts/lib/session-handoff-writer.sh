# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_session_handoff_writer.py
# Session-handoff writer (spec §5): <root>/datarim/sessions/{SESSION-ID}.session.md,
# append-only, at most 32768 bytes, secrets redacted, every claim tagged.
#
#   source scripts/lib/session-handoff-writer.sh
#   write_session_handoff --root . --session SESSION-20260521-134500 \
#     --captured-by agent --recommended-next "/dr-do TUNE-0254" \
#     --next-action "finish the validator" --active-tasks-file tasks.txt \
#     --body-file handoff.md [--captured-at YYYY-MM-DDTHH:MM:SSZ]
#
# Also runnable directly: bash scripts/lib/session-handoff-writer.sh --root ...
# Sourcing defines functions only; nothing of the caller's shell changes.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_session_handoff_writer=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac

# session_read_old <dir> <file> <prefix>: the artefact a new block is
# appended to. Sets <prefix>_text/_len/_nul as dr_read_prefix does, with
# _len empty when there is none to append to (no file; a symlink or other
# non-file, which the publish step replaces or refuses, is never read).
# Returns 1 after reporting a file that cannot be read.
session_read_old() {
  printf -v "$3_text" '%s' ''
  printf -v "$3_len" '%s' ''
  printf -v "$3_nul" '%s' -1
  if [ -L "$1" ] || [ -L "$2" ] || [ ! -f "$2" ]; then return 0; fi
  if [ ! -r "$2" ]; then
    dr_err session-handoff-writer "datarim/sessions/${2##*/} is not readable"
    return 1
  fi
  dr_read_prefix "$2" 32769 "$3"
}

# session_render_block <out-prefix> <session> <captured-by> <recommended-next>
#   <next-action> <captured-at> <tasks-text> <tasks-len> <tasks-nul>
#   <body-text> <body-len> <body-nul> <old-text> <old-len> <old-nul>
#   [<git-paths> <git-facts>]
# Validates, redacts and cuts one block (see session-render.awk); the texts
# come as dr_read_prefix and session_read_old give them, the git facts as
# session_git_state gives them. Sets
# <out-prefix>_block, _redacted (count), _next_action and _tasks.
# Returns 0, or 1 after printing the refusal on stderr.
session_render_block() {
  local LC_ALL=C dir out status=0 next_action=$5
  dr_lib_dir_into dir
  # One byte past the limit is enough for the refusal, and keeps the
  # environment under the kernel's per-string limit.
  [ ${#next_action} -le 4097 ] || next_action=${next_action:0:4097}
  # awk may refuse before reading the body: a broken pipe here is expected.
  out=$(printf '%s' "${10}" 2>/dev/null |
    DR_SESSION=$2 DR_CAPTURED_BY=$3 DR_RECOMMENDED_NEXT=$4 DR_NEXT_ACTION=$next_action \
      DR_CAPTURED_AT=$6 DR_TASKS=$7 DR_TASKS_LEN=$8 DR_TASKS_NUL=$9 \
      DR_BODY_LEN=${11} DR_BODY_NUL=${12} DR_OLD=${13} DR_OLD_LEN=${14} DR_OLD_NUL=${15} \
      DR_OLD_NAME="datarim/sessions/$2.session.md" DR_GIT_PATHS=${16:-} DR_GIT_FACTS=${17:-} \
      LC_ALL=C exec awk -f "$dir/datarim-rules.awk" -f "$dir/datarim-redact.awk" -f "$dir/frontmatter.awk" \
      -f "$dir/session-format.awk" -f "$dir/session-render.awk") || status=$?
  if [ "$status" -ne 0 ]; then
    dr_err session-handoff-writer "${out:-cannot render the session handoff}"
    return 1
  fi
  printf -v "$1_redacted" '%s' "${out%%$'\n'*}"
  out=${out#*$'\n'}
  printf -v "$1_next_action" '%s' "${out%%$'\n'*}"
  out=${out#*$'\n'}
  printf -v "$1_tasks" '%s' "${out%%$'\n'*}"
  out=${out#*$'\n'}
  printf -v "$1_block" '%s' "${out%.}"
}

# session_git_state <program> <root> <dirs> <paths-var> <facts-var>: the live
# state of each directory of <dirs> (one a line, --git-state's values) for
# Layer 1: <paths-var> gets each one's path as Layer 1 names it (relative to
# the workspace root <root> when inside it, "." for the root itself, else
# physical and absolute), <facts-var> "<head>\t<branch>\t<dirty>" for each,
# as snapshot anchoring finds them (git_anchor_probe ... full: dirty when
# anything outside its datarim/ differs from HEAD, checked whatever the size). Returns 1 after reporting a
# directory that is none, or no git work tree with a commit.
session_git_state() {
  local prog=$1 root=$2 dir abs facts paths='' all='' seen=$'\n' nl=$'\n'
  local dir_lib
  dr_lib_dir_into dir_lib
  # shellcheck source=scripts/lib/git-anchor.sh
  declare -F git_anchor_probe >/dev/null 2>&1 || . "$dir_lib/git-anchor.sh"
  while IFS= read -r dir; do
    if [ ! -d "$dir" ] || ! abs=$(cd -P -- "$dir" 2>/dev/null && pwd); then
      dr_err "$prog" "--git-state $dir is not a directory"
      return 1
    fi
    case $abs in *"$nl"*)
      dr_err "$prog" "--git-state $dir cannot be written as a Layer 1 line: its path holds a line break"
      return 1
      ;;
    esac
    case $seen in *"$nl$abs$nl"*)
      dr_err "$prog" "--git-state names $dir twice"
      return 1
      ;;
    esac
    seen=$seen$abs$nl
    facts=''
    # The operator asked for the state: DATARIM_SNAPSHOT_GIT=0 is for snapshots.
    DATARIM_SNAPSHOT_GIT=1 git_anchor_probe "$abs" facts full
    if [ -z "$facts" ]; then
      dr_err "$prog" "--git-state $dir is not a git work tree with a commit"
      return 1
    fi
    if [ "$abs" = "$root" ]; then
      abs=.
    else
      case $abs in "$root"/*) abs=${abs#"$root"/} ;; esac
    fi
    paths=$paths${paths:+$nl}$abs
    facts=${facts//$nl/$'\t'}
    all=$all${all:+$nl}$facts
  done <<<"$3"
  printf -v "$4" '%s' "$paths"
  printf -v "$5" '%s' "$all"
}

# session_resume_block <root> <session> <recommended-next> <next-action> <task-ids>:
# prints what an operator copies into a fresh window (see session-resume-block.awk).
session_resume_block() {
  local LC_ALL=C dir out tasks_md=$1/datarim/tasks.md
  dr_lib_dir_into dir
  dr_kb_file_ok "$1" datarim/tasks.md || tasks_md=
  # Printed by bash, not awk, so that a stdout that cannot be written ends
  # the writer as it ends any shell tool (after the save).
  out=$(DR_SESSION=$2 DR_RECOMMENDED_NEXT=$3 DR_NEXT_ACTION=$4 DR_TASK_IDS=$5 DR_TASKS_MD=$tasks_md \
    LC_ALL=C awk -f "$dir/datarim-rules.awk" -f "$dir/task-list.awk" -f "$dir/session-resume-block.awk" </dev/null && printf .) ||
    return 0
  printf '%s' "${out%.}" || :
}

# write_session_handoff --root <dir> --session <ID> --captured-by agent|operator
#   --recommended-next </cmd> --next-action <text> --active-tasks-file <file>
#   --body-file <file> [--captured-at YYYY-MM-DDTHH:MM:SSZ]
# 0 saved (or disabled), 1 refused or I/O failure, 2 usage, 3 lock timeout.
write_session_handoff() { dr_call write_session_handoff_body "$@"; } # with our shell options
write_session_handoff_body() {
  [ "${DATARIM_DISABLE_SESSION_HANDOFF:-}" = 1 ] && return 0
  local prog=session-handoff-writer status=0 timeout finished root dir name lock content why new_kb='' recovered
  local opt_root='' opt_session='' opt_captured_by='' opt_recommended_next='' opt_next_action=''
  local opt_active_tasks_file='' opt_body_file='' opt_captured_at='' opt_git_state='' git_paths='' git_facts=''
  local tasks_text tasks_len tasks_nul body_text body_len body_nul
  local old_text old_len old_nul now_text now_len now_nul
  local new_block new_redacted new_next_action new_tasks
  dr_writer_flags "$prog" DR_SESSION_LOCK_TIMEOUT timeout finished \
    "--root= --session= --captured-by= --recommended-next= --next-action= --active-tasks-file= --body-file= --captured-at= --git-state=+" \
    "--root --session --captured-by --recommended-next --next-action --active-tasks-file --body-file" "$@" ||
    return $?
  [ -z "$finished" ] || return 0 # --version
  dr_one_stdin "$prog" --active-tasks-file "$opt_active_tasks_file" --body-file "$opt_body_file" || return 2
  if ! dr_session_id_ok "$opt_session"; then
    dr_session_id_fault "$opt_session" why
    dr_err "$prog" "$why"
    return 1
  fi
  dr_readable_file "$prog" --active-tasks-file "$opt_active_tasks_file" || return 1
  dr_readable_file "$prog" --body-file "$opt_body_file" || return 1
  dr_resolve_root "$prog" "$opt_root" root || return 1
  if [ -n "$opt_git_state" ]; then
    session_git_state "$prog" "$root" "$opt_git_state" git_paths git_facts || return 1
  fi
  dir=$root/datarim/sessions
  name=$opt_session.session.md
  lock=$dir/.lock.$opt_session
  dr_read_input "$opt_active_tasks_file" 8193 tasks
  dr_read_input "$opt_body_file" 1048577 body
  # Render against the file as it is now, so that a refusal touches nothing;
  # under the lock, render again only if another writer appended meanwhile.
  session_read_old "$dir" "$dir/$name" old || return 1
  session_render_block new "$opt_session" "$opt_captured_by" "$opt_recommended_next" \
    "$opt_next_action" "$opt_captured_at" "$tasks_text" "$tasks_len" "$tasks_nul" \
    "$body_text" "$body_len" "$body_nul" "$old_text" "$old_len" "$old_nul" \
    "$git_paths" "$git_facts" || return 1
  dr_is_knowledge_base "$root/datarim" || new_kb=$root/datarim
  dr_artifact_dir "$prog" "$dir" || return 1
  dr_lock_acquire "$prog" "$lock" "$timeout" recovered || return $?
  session_read_old "$dir" "$dir/$name" now || status=1
  if [ "$status" -eq 0 ] && { [ "$now_len" != "$old_len" ] || [ "$now_nul" != "$old_nul" ] ||
    [ "$now_text" != "$old_text" ]; }; then
    old_text=$now_text old_len=$now_len old_nul=$now_nul
    session_render_block new "$opt_session" "$opt_captured_by" "$opt_recommended_next" \
      "$opt_next_action" "$opt_captured_at" "$tasks_text" "$tasks_len" "$tasks_nul" \
      "$body_text" "$body_len" "$body_nul" "$old_text" "$old_len" "$old_nul" \
      "$git_paths" "$git_facts" || status=1
  fi
  if [ "$status" -eq 0 ]; then
    content=$new_block
    [ -z "$old_len" ] || content=$old_text$'\n'$new_block
    dr_publish "$prog" "$dir" "$name" "$opt_session" "$content" "$recovered" || status=$?
  fi
  dr_lock_release "$lock"
  [ "$status" -eq 0 ] || return "$status"
  dr_new_knowledge_base_notice "$prog" "$new_kb"
  [ "$new_redacted" = 0 ] || dr_err "$prog" "redacted $new_redacted secret(s) before saving"
  session_resume_block "$root" "$opt_session" "$opt_recommended_next" "$new_next_action" "$new_tasks" || :
  return 0
}

[ -z "${_dr_aliases_session_handoff_writer-}" ] || shopt -s expand_aliases
unset _dr_aliases_session_handoff_writer

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  write_session_handoff "$@"
  exit $?
fi
