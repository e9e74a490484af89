# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_session_start_hook.py
# Claude Code SessionStart hook: after /clear, a compaction, a resumed or forked
# session, hand the agent its active task's resume text (snapshot-resume.sh),
# or with several active tasks the list to choose from, so it carries on
# without the operator typing anything.
#
#   session_start_hook < hook-payload.json
#
# Reads the hook's JSON payload from stdin ("source" and "cwd" are used) and
# prints {"hookSpecificOutput":{"hookEventName":"SessionStart",
# "additionalContext":"<resume text>"}}, the text cut to DATARIM_RESUME_BUDGET
# characters (default 9000) with a visible marker. It never blocks a session:
# on any failure, and for sources other than clear, compact, resume and fork, it
# prints nothing and returns 0. Under DATARIM_HOOK_RUNTIME=copilot (GitHub
# Copilot CLI) it prints {"additionalContext":...}, takes the source "new"
# right after a stage turn (session_start_fresh), and on a PreCompact payload
# keeps the text for the next prompt (session_start_pending), printing nothing. Sourcing defines session_start_* functions
# (plus those of the libraries it loads) and nothing else.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_session_start_hook=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac
dr_source snapshot-resume.sh

# session_start_payload <out-source-var> <out-cwd-var> <out-session-var>:
# reads the payload from the standard input stream (at most 64 KiB; never by
# re-opening /dev/stdin, which fails on the socket a Node parent passes) and
# sets its "source", "cwd" and "session_id" (empty when it is no usable
# string); 1 when the payload is too big, not strict JSON, or lacks source or cwd.
session_start_payload() {
  local LC_ALL=C dir payload_text='' payload_len=0 payload_nul=-1 fields status=0
  { dr_read_prefix_stdin 65537 payload; } 2>/dev/null || return 1
  [ "$payload_len" -le 65536 ] || return 1
  dr_lib_dir_into dir
  fields=$(DR_PAYLOAD=$payload_text DR_PAYLOAD_NUL=$payload_nul \
    LC_ALL=C exec awk -f "$dir/datarim-rules.awk" -f "$dir/hook-payload.awk" </dev/null) || status=$?
  [ "$status" -eq 0 ] || return 1
  printf -v "$1" '%s' "${fields%%$'\n'*}"
  fields=${fields#*$'\n'}
  printf -v "$2" '%s' "${fields%%$'\n'*}"
  printf -v "$3" '%s' "${fields#*$'\n'}"
}

# session_start_pending <session-id> <output>: after /clear, keeps the hook's
# output as <state>/resume/<session-id> (mode 600) for the session's next
# prompt hook: Gemini CLI drops a SessionStart hook's context after an
# interactive /clear, and its BeforeAgent hands it over instead (prompt-hook.sh);
# a UserPromptSubmit (a CLI that took the context) just removes it. GitHub
# Copilot CLI's PreCompact keeps its output too (its UserPromptSubmit prints
# it); an empty <output> removes the session's pending resume (Copilot's
# SessionStart, which hands the text over itself: a kept one would arrive twice).
# Nothing kept without a state directory or a session ID fit to name a file.
session_start_pending() {
  local state
  dr_source hook-state.sh 2>/dev/null || return 0
  hook_state_dir state && hook_session_ok "$1" || return 0
  if [ -z "$2" ]; then
    hook_resume_drop "$state" "$1"
  else
    hook_resume_write "$state" "$1" "$2" || :
  fi
}

# session_start_last_task <root> <out-var>: the task of the workspace's latest
# stage turn (datarim/snapshots/.last-task, written by the Stop hook) when it
# is one of several active tasks: that turn's session is, as a rule, the one
# just cleared, and its task wins over the list. 1 when there is none.
session_start_last_task() {
  local LC_ALL=C line='' active IFS=$' \t\n'
  resume_record_line "$1" .last-task line || return 1
  dr_task_id_ok "$line" || return 1
  resume_active_tasks "$1" active
  case " $active " in *" $line "*) ;; *) return 1 ;; esac
  printf -v "$2" '%s' "$line"
}

# session_start_task <root> <out-var>: the task a SessionStart after /clear, a
# compaction, a resumed or forked session resumes: the one active task, else
# the .last-task one of several (session_start_last_task). 1 when there is
# none: the hook then lists the active tasks to choose from. snapshot-next
# names the same task.
session_start_task() {
  resume_pick_task session-start-hook "$1" '' "$2" quiet || session_start_last_task "$1" "$2"
}

# session_start_choice <root> <budget>: with several active tasks (the Task
# Resolution Rule), prints the hook output that lists them, each with its
# snapshot's stage, time and recommended command, and asks the agent to let
# the operator choose; nothing with fewer than two.
session_start_choice() {
  local LC_ALL=C entries entry task title count=0 text='' line snapshot status stage at next options cta frames=''
  resume_active_entries "$1" entries
  while IFS= read -r entry; do
    [ -n "$entry" ] || continue
    count=$((count + 1))
    task=${entry%%$'\t'*}
    title=${entry#*$'\t'}
    line="- $task${title:+ — $title}: "
    snapshot=''
    status=0
    resume_read_snapshot "$1" "$task" snapshot || status=$?
    if [ "$status" -eq 0 ]; then
      snapshot_field "$snapshot" stage stage
      snapshot_field "$snapshot" captured_at at
      snapshot_field "$snapshot" recommended_next next
      snapshot_field "$snapshot" options options
      resume_recommended_cta "$task" "$next" "$options" cta
      resume_option_command "$cta" next
      line="$line$stage snapshot of $at, recommended $next"
    elif [ "$status" -eq 1 ]; then
      line="${line}no snapshot"
    else
      line="${line}no valid snapshot"
    fi
    text=$text$line$'\n'
  done <<<"$entries"
  [ "$count" -ge 2 ] || return 0
  text="datarim: $count tasks are active in this workspace. Ask the operator which one to resume, then run its recommended command:"$'\n'$text
  resume_frame prompt "$text" frames
  resume_render hook snapshot '' "$2" "$frames" || :
}

# session_start_epoch <YYYY-MM-DDTHH:MM:SSZ> <out-var>: seconds since 1970
# (days from civil, as snapshot-lifecycle.awk's epoch).
session_start_epoch() {
  local LC_ALL=C y=$((10#${1:0:4})) m=$((10#${1:5:2})) d=$((10#${1:8:2})) era yoe doy doe
  [ "$m" -gt 2 ] || y=$((y - 1))
  era=$((y / 400))
  yoe=$((y - era * 400))
  if [ "$m" -gt 2 ]; then doy=$(((153 * (m - 3) + 2) / 5 + d - 1)); else doy=$(((153 * (m + 9) + 2) / 5 + d - 1)); fi
  doe=$((yoe * 365 + yoe / 4 - yoe / 100 + doy))
  printf -v "$2" '%s' $(((era * 146097 + doe - 719468) * 86400 + 10#${1:11:2} * 3600 + 10#${1:14:2} * 60 + 10#${1:17:2}))
}

# session_start_fresh <root> <task-var> <snapshot-var>: GitHub Copilot CLI
# starts a session after /clear as it starts any new one (source "new"): such
# a session resumes only right after a stage turn of this workspace, that is
# when .last-task names an active task whose snapshot was captured at most
# 1800 s before now (DATARIM_NOW when it is a stamp). Sets the task and its
# snapshot; 1 otherwise.
session_start_fresh() {
  local LC_ALL=C fresh_task fresh_snapshot='' at now captured d='[0123456789]'
  session_start_last_task "$1" fresh_task || return 1
  resume_read_snapshot "$1" "$fresh_task" fresh_snapshot || return 1
  snapshot_field "$fresh_snapshot" captured_at at
  now=${DATARIM_NOW:-}
  # shellcheck disable=SC2254 # the pattern is built from $d on purpose
  case $now in $d$d$d$d-$d$d-$d$d"T"$d$d:$d$d:$d$d"Z") ;; *) dr_now_utc now ;; esac
  session_start_epoch "$now" now
  session_start_epoch "$at" captured
  [ $((now - captured)) -ge 0 ] && [ $((now - captured)) -le 1800 ] || return 1
  printf -v "$2" '%s' "$fresh_task"
  printf -v "$3" '%s' "$fresh_snapshot"
}

# session_start_hook [-h|--help|--version]: the hook (see the top). Always returns 0.
session_start_hook() { dr_call session_start_hook_body "$@"; } # with our shell options
session_start_hook_body() {
  local source='' cwd='' session='' root task budget cta='' out status=0 snapshot='' next options
  local runtime=${DATARIM_HOOK_RUNTIME:-} chosen=1
  dr_answer_first_word session-start-hook "${1:-}" && return 0
  [ $# -eq 0 ] || return 0
  [ "${DATARIM_DISABLE_RESUME_HOOK:-}" != 1 ] || return 0
  dr_seconds_env DATARIM_RESUME_BUDGET 9000 budget || return 0
  session_start_payload source cwd session || return 0
  case $source in
    clear | compact | resume | fork) ;;
    new | PreCompact) [ "$runtime" = copilot ] || return 0 ;;
    *) return 0 ;;
  esac
  # Copilot runs the next prompt's hook while this one runs: a resume kept at
  # its PreCompact goes before that hook can hand it over beside this text.
  [ "$runtime" != copilot ] || [ "$source" = PreCompact ] || session_start_pending "$session" ''

  case $cwd in /*) ;; *) return 0 ;; esac
  [ -d "$cwd" ] || return 0
  dr_find_root root "$cwd"
  [ -d "$root/datarim" ] && ! dr_foreign_datarim "$root" || return 0
  if [ "$source" = new ]; then
    session_start_fresh "$root" task snapshot || return 0
  elif ! session_start_task "$root" task; then
    chosen=''
    out=$(session_start_choice "$root" "$budget" && printf .) || status=$?
  fi
  if [ -n "$chosen" ]; then
    if [ -n "$snapshot" ] || resume_read_snapshot "$root" "$task" snapshot; then
      snapshot_field "$snapshot" recommended_next next
      snapshot_field "$snapshot" options options
      resume_recommended_cta "$task" "$next" "$options" cta
    fi
    # A legacy document is read no further than the budget can reach: a
    # character is at most 4 bytes, and the cut lands before the last one read.
    out=$(resume_emit hook "$root" "$task" "$cta" "$snapshot" "$budget" $((budget * 4 + 8)) && printf .) || status=$?
  fi
  [ "$status" -eq 0 ] || return 0
  out=${out%.}
  case $source in
    clear) [ -z "$out" ] || session_start_pending "$session" "$out" ;;
    PreCompact)
      # Copilot gives no hook context back after a compaction but the next
      # prompt's: kept for it, in Copilot's form (prompt-hook.sh prints it).
      [ -n "$out" ] || return 0
      out=$(session_start_print "$out" && printf .)
      session_start_pending "$session" "${out%.}"
      return 0
      ;;
  esac
  session_start_print "$out"
  return 0
}

# session_start_print <hook output>: prints it as the runtime takes it: GitHub
# Copilot CLI (DATARIM_HOOK_RUNTIME=copilot, which install-hooks puts in its
# commands) reads only a top-level {"additionalContext": ...}.
session_start_print() {
  local out=$1 head='{"hookSpecificOutput":{"hookEventName":"SessionStart",'
  if [ "$runtime" = copilot ] && [ -n "$out" ]; then
    out=${out#"$head"}
    out="{${out%$'}\n'}"$'\n'
  fi
  printf '%s' "$out"
}

[ -z "${_dr_aliases_session_start_hook-}" ] || shopt -s expand_aliases
unset _dr_aliases_session_start_hook
