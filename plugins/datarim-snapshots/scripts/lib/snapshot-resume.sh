# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_snapshot_resume.py
# Snapshot-first resume (spec §4): a task's replay prompt when its
# snapshot is valid, else its legacy context (spec §1, fallback order).
#
#   resume_replay_main [--task <ID>] [--root <dir>] [--hint] [--option <cmd>] [--json]
#       render-replay-prompt: 0 printed, 1 missing, 2 invalid (both silent), 3 usage
#   resume_task_main [--task <ID>] [--root <dir>] [--json]
#       resume-task: 0 printed (snapshot or legacy), 1 nothing to resume, 3 usage
#
# Without --task, the task is the only one listed under `## Active Tasks` in
# datarim/activeContext.md. Sourcing defines resume_* functions only (plus
# those of the libraries it loads); nothing of the caller's shell changes.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_snapshot_resume=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac
dr_source snapshot-validator.sh replay-render.sh git-drift.sh

# resume_active_entries <root> <out-var>: the active tasks of the knowledge
# base as task-list.awk prints them ("<ID>\t<title>\n" each, in order, each
# ID once): those under `## Active Tasks` in datarim/activeContext.md, or,
# when there is no such file, under `## Active` in datarim/tasks.md. Empty
# when there are none or no readable file.
resume_active_entries() {
  local LC_ALL=C dir file=$1/datarim/activeContext.md heading='## Active Tasks' out status=0
  printf -v "$2" '%s' ''
  if [ ! -e "$file" ] && [ ! -L "$file" ]; then
    file=$1/datarim/tasks.md
    heading='## Active'
  fi
  dr_kb_file_ok "$1" "datarim/${file##*/}" || return 0
  dr_lib_dir_into dir
  out=$(DR_TASK_LIST=$file DR_TASK_SECTION=$heading LC_ALL=C \
    awk -f "$dir/datarim-rules.awk" -f "$dir/task-list.awk" </dev/null && printf .) || status=$?
  [ "$status" -eq 0 ] || return 0
  printf -v "$2" '%s' "${out%.}"
}

# resume_active_tasks <root> <out-var>: the IDs of resume_active_entries,
# space-separated.
resume_active_tasks() {
  local LC_ALL=C entries entry found=''
  resume_active_entries "$1" entries
  while IFS= read -r entry; do
    [ -n "$entry" ] && found=${found:+$found }${entry%%$'\t'*}
  done <<<"$entries"
  printf -v "$2" '%s' "$found"
}

# resume_task_listed <root> <task>: 0 when a task line of any status, in any
# section of datarim/activeContext.md, tasks.md or backlog.md (those that are
# readable files), names <task>.
resume_task_listed() {
  local LC_ALL=C dir name lists=''
  for name in activeContext.md tasks.md backlog.md; do
    if dr_kb_file_ok "$1" "datarim/$name"; then lists=$lists$name$'\n'; fi
  done
  [ -n "$lists" ] || return 1
  dr_lib_dir_into dir
  # The folder apart from the names: a root may hold a newline.
  DR_TASK_FIND=$2 DR_TASK_DIR=$1/datarim DR_TASK_LISTS=$lists LC_ALL=C \
    awk -f "$dir/datarim-rules.awk" -f "$dir/task-list.awk" </dev/null
}

# resume_active_context_unreadable <root>: 0 when something stands at
# <root>/datarim/activeContext.md that cannot be read as a file (no read
# permission, a directory, a symlink, which no reader follows): it lists no
# task, but not because it names none.
resume_active_context_unreadable() {
  local file
  file=$1/datarim/activeContext.md
  { [ -e "$file" ] || [ -L "$file" ]; } || return 1
  ! dr_kb_file_ok "$1" datarim/activeContext.md
}

# resume_pick_task <program> <root> <task-flag> <out-var> [quiet]: the task
# named by --task, else the one active task. Returns 3 after saying why not
# (nothing is said when quiet is set).
resume_pick_task() {
  local prog=$1 active count=0 list IFS=$' \t\n'
  if [ -n "$3" ]; then
    if [ -n "${5:-}" ]; then dr_task_id_ok "$3"; else dr_check_task_flag "$prog" "$3"; fi || return 3
    printf -v "$4" '%s' "$3"
    return 0
  fi
  resume_active_tasks "$2" active
  for _ in $active; do count=$((count + 1)); done
  if [ "$count" -eq 1 ]; then
    printf -v "$4" '%s' "$active"
    return 0
  fi
  if [ -z "${5:-}" ]; then
    # The list the tasks came from (spec §8.1): tasks.md when there is no activeContext.md.
    list=datarim/activeContext.md
    if [ ! -e "$2/$list" ] && [ ! -L "$2/$list" ] && [ -e "$2/datarim/tasks.md" ]; then
      list=datarim/tasks.md
    fi
    if [ "$count" -eq 0 ] && resume_active_context_unreadable "$2"; then
      dr_err "$prog" "no --task given and datarim/activeContext.md cannot be read"
    elif [ "$count" -eq 0 ]; then
      dr_err "$prog" "no --task given and no active task in $list"
    else
      dr_err "$prog" "no --task given and $count active tasks in $list ($active); pass --task <ID>"
    fi
  fi
  return 3
}

# resume_read_snapshot <root> <task> <record-var> [<why-var>]: 0 when the
# task's snapshot is valid, with <record-var> set as snapshot_read_file sets
# it (read it with snapshot_field); 1
# missing, 2 invalid, with <why-var> set to the rule it broke as the validator
# words it ("datarim/snapshots/<ID>.snapshot.md bad captured_at"). Says
# nothing: the caller decides whether to.
resume_read_snapshot() {
  local msg status=0 rel=datarim/snapshots/$2.snapshot.md
  [ -z "${4:-}" ] || printf -v "$4" '%s' ''
  if [ -L "$1/datarim/snapshots" ]; then
    [ -z "${4:-}" ] || printf -v "$4" '%s' 'datarim/snapshots is a symlink'
    return 2
  fi
  snapshot_read_file "$1/$rel" "$2" msg "$3" || status=$?
  if [ "$status" -eq 2 ] && [ -n "${4:-}" ]; then printf -v "$4" '%s %s' "$rel" "$msg"; fi
  return "$status"
}

# resume_option_command <option> <out-var>: the command of an options item,
# the text before the first " | " (all of it when there is none).
# resume_first_word <text> <out-var>: the text up to the first space or tab.
# (Byte-wise, whatever the caller's locale, like every helper below.)
resume_option_command() {
  local LC_ALL=C
  printf -v "$2" '%s' "${1%% | *}"
}
resume_first_word() {
  local LC_ALL=C
  printf -v "$2" '%s' "${1%%[ $'\t']*}"
}

# resume_recommended_cta <task> <recommended-next> <options> <out-var>: the
# first option whose command's first word is recommended_next's first word,
# verbatim; else recommended_next, followed by " <task>" when it is a command
# alone (the reference may record the whole command, "/dr-design TUNE-0032",
# which names its task already: spec §8).
resume_recommended_cta() {
  local LC_ALL=C want option command word rest=$3
  resume_first_word "$2" want
  while [ -n "$rest" ]; do
    option=${rest%%$'\n'*}
    rest=${rest#*$'\n'}
    resume_option_command "$option" command
    resume_first_word "$command" word
    if [ "$word" = "$want" ]; then
      printf -v "$4" '%s' "$option"
      return 0
    fi
  done
  case $2 in
    *' '*) printf -v "$4" '%s' "$2" ;;
    *) printf -v "$4" '%s %s' "$2" "$1" ;;
  esac
}

# resume_chosen_cta <choice> <options> <out-var>: the operator's override, the
# first option whose command (or its first word) is <choice>; 1 when none is.
resume_chosen_cta() {
  local LC_ALL=C option command word rest=$2
  while [ -n "$rest" ]; do
    option=${rest%%$'\n'*}
    rest=${rest#*$'\n'}
    resume_option_command "$option" command
    resume_first_word "$command" word
    if [ "$command" = "$1" ] || [ "$word" = "$1" ]; then
      printf -v "$3" '%s' "$option"
      return 0
    fi
  done
  return 1
}

# resume_options_listing <options> <out-var>: the options' commands for a
# message, quoted and comma-separated.
resume_options_listing() {
  local LC_ALL=C option command rest=$1 listing=''
  while [ -n "$rest" ]; do
    option=${rest%%$'\n'*}
    rest=${rest#*$'\n'}
    resume_option_command "$option" command
    listing="$listing${listing:+, }\"$command\""
  done
  printf -v "$2" '%s' "$listing"
}

# resume_snapshot_text <cta> <body> <drift> <out-var>: the text a resume
# hands over for a valid snapshot: the drift notice when the code moved on
# since the snapshot (<drift>: git_drift_facts's facts), then the one
# replay prompt.
resume_snapshot_text() {
  local notice prompt
  git_drift_notice "$3" notice
  replay_render_prompt "$1" "$2" prompt
  printf -v "$4" '%s%s' "$notice" "$prompt"
}

# resume_render <format> <source> <task> <budget> <frames> [<snapshot fields>...]:
# prints what resume-render.awk makes of <frames> (see there). For a
# snapshot the fields are stage, captured_at, recommended_next, options, cta,
# truncated and the drift facts. Returns 1 when there is no output (the hook
# budget is too small for even the cut marker), after printing nothing.
resume_render() {
  local LC_ALL=C dir out status=0
  dr_lib_dir_into dir
  out=$(printf '%s' "$5" | DR_FORMAT=$1 DR_SOURCE=$2 DR_TASK=$3 DR_BUDGET=$4 DR_STAGE=${6:-} \
    DR_CAPTURED_AT=${7:-} DR_NEXT=${8:-} DR_OPTIONS=${9:-} DR_CTA=${10:-} DR_TRUNCATED=${11:-} \
    DR_DRIFT=${12:-} LC_ALL=C awk -f "$dir/datarim-rules.awk" -f "$dir/resume-render.awk") || status=$?
  [ "$status" -eq 0 ] || return 1
  # A stdout that cannot be written is bash's to report; the code stays.
  printf '%s' "${out%.}" || :
}

# resume_frame <name> <text> <frames-var>: appends one frame for resume-render.awk.
resume_frame() {
  local LC_ALL=C frame
  printf -v frame '%s\n%s\n%s\n' "$1" "${#2}" "$2"
  printf -v "$3" '%s' "${!3}$frame"
}

# resume_legacy_frames <root> <task> <read-limit> <frames-var>: one frame per
# legacy document that is a readable regular file, in the fallback order:
# its path and its bytes up to the first NUL (at most <read-limit> bytes
# read). Returns 1 when there is none.
resume_legacy_frames() {
  # shellcheck disable=SC2034 # doc_len, doc_nul: set by dr_read_prefix
  local rel doc_text doc_len doc_nul collected='' found=1
  for rel in "datarim/tasks/$2-task-description.md" "datarim/tasks/$2-init-task.md" datarim/activeContext.md; do
    dr_kb_file_ok "$1" "$rel" || continue
    dr_read_prefix "$1/$rel" "$3" doc
    resume_frame "$rel" "$doc_text" collected
    found=0
  done
  printf -v "$4" '%s' "$collected"
  return "$found"
}

# resume_task_documented <root> <task>: 0 when one of the task's own legacy
# documents (its task description or init task) is a readable file.
resume_task_documented() {
  local rel
  for rel in "datarim/tasks/$2-task-description.md" "datarim/tasks/$2-init-task.md"; do
    if dr_kb_file_ok "$1" "$rel"; then return 0; fi
  done
  return 1
}

# resume_emit <format> <root> <task> <cta-or-empty> <snapshot-or-empty>
#   [<budget> <read-limit> <notices>]: prints the resume output in <format>
# (text, json or hook): from <snapshot> (a record of resume_read_snapshot) when
# <cta> is given, else from the legacy documents, each read up to <read-limit>
# bytes (default all). With <notices> non-empty (a resume, not a replay; the
# hook always) the missed-turn notice goes first, and the hook says which
# stage and time the snapshot is from. Returns 1, printing nothing, when
# there is nothing to print.
resume_emit() {
  local text frames='' drift field_extra field_body field_stage field_captured_at
  local field_next field_options field_truncated notice
  if [ -n "$4" ]; then
    snapshot_field "$5" extra field_extra
    snapshot_field "$5" body field_body
    snapshot_field "$5" stage field_stage
    snapshot_field "$5" captured_at field_captured_at
    git_drift_facts "$2" "$field_extra" drift
    resume_snapshot_text "$4" "$field_body" "$drift" text
    if [ -n "${8:-}" ] || [ "$1" = hook ]; then
      resume_missed_notice "$2" "$3" "$field_stage" "$field_captured_at" notice
      text=$notice$text
    fi
    if [ "$1" = text ]; then
      printf '%s' "$text"
      return 0
    fi
    if [ "$1" = hook ]; then
      text="datarim: $3 resumes from its $field_stage snapshot of $field_captured_at."$'\n\n'$text
    fi
    resume_frame prompt "$text" frames
    snapshot_field "$5" recommended_next field_next
    snapshot_field "$5" options field_options
    snapshot_field "$5" truncated field_truncated
    resume_render "$1" snapshot "$3" "${6:-}" "$frames" "$field_stage" "$field_captured_at" \
      "$field_next" "$field_options" "$4" "$field_truncated" "$drift"
    return $?
  fi
  resume_legacy_frames "$2" "$3" "${7:-2147483647}" frames || return 1
  resume_render "$1" legacy "$3" "${6:-}" "$frames"
}

# resume_record_line <root> <name> <out-var>: the first line (at most 256
# characters) of datarim/snapshots/<name>, a record the Stop hook keeps
# (.missed.<ID>, .last-task); 1 when that is no regular file or a symlink.
resume_record_line() {
  # Local names no caller passes as <out-var>.
  local resume_record_file=$1/datarim/snapshots/$2 resume_record_text=''
  { [ -f "$resume_record_file" ] && [ ! -L "$resume_record_file" ]; } || return 1
  { IFS= read -r -n 256 resume_record_text || :; } 2>/dev/null <"$resume_record_file"
  printf -v "$3" '%s' "$resume_record_text"
}

# resume_missed_notice <root> <task> <stage> <captured_at> <out-var>: the note
# that a stage turn after the snapshot left none (stop-hook.sh's
# datarim/snapshots/.missed.<ID>, "<command> <time>", a time later than
# <captured_at>), else empty.
resume_missed_notice() {
  local LC_ALL=C line=''
  printf -v "$5" '%s' ''
  resume_record_line "$1" ".missed.$2" line || return 0
  [[ $line =~ ^(/dr-[a-z][a-z0-9-]*)\ ([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)$ ]] || return 0
  [[ ${BASH_REMATCH[2]} > $4 ]] || return 0
  printf -v "$5" 'NOTE: the %s turn of %s left no snapshot; the snapshot below is from the %s stage, captured %s.\n\n' \
    "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "$3" "$4"
}

# resume_replay_main: render-replay-prompt's command line (see the top).
resume_replay_main() { dr_call resume_replay_main_body "$@"; } # with our shell options
resume_replay_main_body() {
  local prog=render-replay-prompt status=0 finished root task cta option_names snapshot='' next options
  local opt_task='' opt_root='' opt_hint='' opt_option='' opt_json=''
  dr_reader_flags "$prog" 3 finished "--task= --root= --hint --option= --json" "" "$@" || status=$?
  [ -z "$finished" ] || return "$status"
  if [ -n "$opt_hint" ] && [ -n "$opt_option$opt_json" ]; then
    dr_err "$prog" "--hint prints recommended_next alone; it takes neither --option nor --json"
    return 3
  fi
  dr_reader_root "$prog" "$opt_root" root || return 3
  resume_pick_task "$prog" "$root" "$opt_task" task || return 3
  resume_read_snapshot "$root" "$task" snapshot || return $?
  snapshot_field "$snapshot" recommended_next next
  if [ -n "$opt_hint" ]; then
    printf '%s\n' "$next"
    return 0
  fi
  snapshot_field "$snapshot" options options
  if [ -n "$opt_option" ]; then
    if ! resume_chosen_cta "$opt_option" "$options" cta; then
      resume_options_listing "$options" option_names
      dr_err "$prog" "--option $opt_option matches no option of $task; the options are: ${option_names:-(none)}"
      return 3
    fi
  else
    resume_recommended_cta "$task" "$next" "$options" cta
  fi
  if [ -n "$opt_json" ]; then
    resume_emit json "$root" "$task" "$cta" "$snapshot"
  else
    resume_emit text "$root" "$task" "$cta" "$snapshot"
  fi
}

# resume_task_main: resume-task's command line (see the top).
resume_task_main() { dr_call resume_task_main_body "$@"; } # with our shell options
resume_task_main_body() {
  local prog=resume-task status=0 finished root task cta='' format=text why='' frames='' snapshot='' next options
  local opt_task='' opt_root='' opt_json=''
  dr_reader_flags "$prog" 3 finished "--task= --root= --json" "" "$@" || status=$?
  [ -z "$finished" ] || return "$status"
  [ -z "$opt_json" ] || format=json
  dr_reader_root "$prog" "$opt_root" root || return 3
  resume_pick_task "$prog" "$root" "$opt_task" task || return 3
  if resume_read_snapshot "$root" "$task" snapshot why; then
    snapshot_field "$snapshot" recommended_next next
    snapshot_field "$snapshot" options options
    resume_recommended_cta "$task" "$next" "$options" cta
    resume_emit "$format" "$root" "$task" "$cta" "$snapshot" '' '' notices
    return
  fi
  # A task that exists nowhere (a mistyped ID) gets no other task's context.
  if [ -z "$why" ] && ! resume_task_documented "$root" "$task" && ! resume_task_listed "$root" "$task"; then
    dr_err "$prog" "nothing to resume for $task: no snapshot, no task document and no task list names it"
    return 1
  fi
  if ! resume_legacy_frames "$root" "$task" 2147483647 frames; then
    if [ -n "$why" ]; then
      dr_err "$prog" "nothing to resume for $task: its snapshot is invalid ($why) and there is no legacy context"
    else
      dr_err "$prog" "nothing to resume for $task: no valid snapshot and no legacy context"
    fi
    return 1
  fi
  # An invalid snapshot is not passed over in silence: the operator learns
  # which rule it broke (the replay renderer stays silent, spec §4).
  [ -z "$why" ] || dr_err "$prog" "the snapshot of $task is invalid ($why); its legacy context follows"
  resume_render "$format" legacy "$task" '' "$frames"
}

[ -z "${_dr_aliases_snapshot_resume-}" ] || shopt -s expand_aliases
unset _dr_aliases_snapshot_resume
