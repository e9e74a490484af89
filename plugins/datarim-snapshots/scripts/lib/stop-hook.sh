# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_stop_hook.py
# The Stop hook of Claude Code and Codex (spec §9): when a turn that began
# with a stage command (recorded by prompt-hook.sh) ends in an answer with a
# CTA block, writes that task's snapshot through emit (snapshot-emit.sh),
# the whole answer as the body. No agent cooperation, no options file.
#
#   stop_hook < payload.json
#
# The answer is the payload's last_assistant_message, or, without one, under
# DATARIM_HOOK_RUNTIME=copilot the turn's chat span in GitHub Copilot CLI's
# OpenTelemetry file (copilot-otel.awk), else (older CLIs, Gemini CLI's
# AfterAgent) the last assistant entry in the last 262144 bytes of
# transcript_path.
# The task is the command's first argument when it is a task ID, else the
# one the CTA header names; stage and command (/dr-<stage>) come from the
# command; the knowledge base is found from the payload's cwd (spec §8). A
# turn without a record (any other turn), DATARIM_DISABLE_SNAPSHOT=1 and
# DATARIM_DISABLE_STOP_HOOK=1 write nothing; stop_hook_active does not stop a
# pending record's answer from being written. Never blocks a turn: it prints
# nothing and returns 0; a failure is one line in the hooks log, and so is a
# stage turn that left no snapshot (recorded for the next resume). With no turn
# record pending in any session it reads the payload, unparsed, and returns:
# most turns cost a bash start. Twin of python/src/datarim_snapshot/_stop_hook.py.
# Sourcing defines stop_hook* functions (plus those of hook-state.sh; the
# emit library loads when a snapshot may be due) and nothing else.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_stop_hook=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/hook-state.sh
case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/hook-state.sh" ;; *) . ./hook-state.sh ;; esac

# stop_hook [-h|--help|--version]: the hook (see the top). Always returns 0.
stop_hook() {
  local state
  # The common path (no turn pending anywhere): builtins only, right whatever
  # the caller's shell options, and no other library read.
  if [ $# -eq 0 ] && { [ "${DATARIM_DISABLE_SNAPSHOT:-}" = 1 ] ||
    [ "${DATARIM_DISABLE_STOP_HOOK:-}" = 1 ] || ! hook_state_dir state || ! hook_turns_pending "$state"; }; then
    hook_drain
    return 0
  fi
  hook_load_common
  dr_call stop_hook_body "$@" # with our shell options
}

stop_hook_body() {
  local state
  hook_opening stop-hook written "$@" && return 0
  if [ "${DATARIM_DISABLE_SNAPSHOT:-}" = 1 ] || [ "${DATARIM_DISABLE_STOP_HOOK:-}" = 1 ] ||
    ! hook_state_dir state || ! hook_turns_pending "$state"; then
    hook_drain
    return 0
  fi
  # The answer on its way to emit, emit's messages, and the turn record once
  # read: removed together at the end (one rm, however the turn ended).
  local answer=$state/turns/.answer.${BASHPID:-$$}.$RANDOM stop_spent=''
  stop_hook_capture "$state" "$answer"
  rm -f -- "$answer" "$answer.err" ${stop_spent:+"$stop_spent"} 2>/dev/null || :
  return 0
}

# stop_hook_capture <state> <answer-file>: the hook once some turn record is
# pending; the answer goes to <answer-file> on its way to emit. Sets the
# caller's stop_spent to the record it read.
stop_hook_capture() {
  local state=$1 answer=$2 fields status=0 msg='' line sid file turn text cwd
  local rec_stage='' rec_task='' rec_turn=''
  if ! hook_payload_session "$state" fields sid file msg \
    "session_id stop_hook_active turn_id transcript_path cwd traceparent" last_assistant_message "$answer"; then
    hook_log "$state" stop-hook "$msg"
    return 0
  fi
  # stop_hook_active (another Stop hook made the model go on) changes nothing:
  # a record still pending means this final answer is the stage's.
  [ -e "$file" ] || [ -L "$file" ] || return 0
  status=0
  hook_turn_read "$file" rec || status=$?
  # Read once: whatever follows, the record is spent.
  stop_spent=$file
  if [ "$status" -ne 0 ]; then
    hook_log "$state" stop-hook "the turn record of session $sid is malformed; nothing written"
    return 0
  fi
  hook_line "$fields" 3 turn
  if [ -n "$rec_turn" ] && [ "$turn" != "s$rec_turn" ]; then
    hook_log "$state" stop-hook "the turn record of session $sid is from another turn; nothing written"
    return 0
  fi
  hook_line "$fields" 7 text
  case $text in
    s) ;;
    - | n)
      hook_line "$fields" 6 line
      # GitHub Copilot CLI (install-hooks marks its command): the answer is
      # in its OpenTelemetry file.
      if [ "${DATARIM_HOOK_RUNTIME:-}" = copilot ]; then
        stop_hook_otel "$state" "$line" "$answer" msg
      else
        hook_line "$fields" 4 line
        stop_hook_transcript "$line" "$answer" msg
      fi || {
        hook_log "$state" stop-hook "/dr-$rec_stage: no last_assistant_message, and $msg; nothing written"
        return 0
      }
      ;;
    *)
      hook_log "$state" stop-hook "/dr-$rec_stage: last_assistant_message is not a usable string; nothing written"
      return 0
      ;;
  esac
  hook_line "$fields" 5 cwd
  stop_hook_emit "$state" "$answer" "$cwd" "$sid"
}

# stop_hook_transcript <transcript_path line> <answer-file> <msg-var>: writes
# the answer from the transcript's tail (transcript-tail.awk); 1 after
# setting <msg-var> to why not.
stop_hook_transcript() {
  local path=${1#s}
  case $1 in s/*) ;; *)
    printf -v "$3" '%s' "no usable absolute transcript_path"
    return 1
    ;;
  esac
  stop_hook_readable "$path" transcript_path "transcript_path is not a readable file" "$3" || return 1
  stop_hook_answer "$path" 262144 transcript-tail.awk "$2" "$3" \
    "no assistant entry in the last 262144 bytes of transcript_path" \
    "the last assistant entry of transcript_path holds no usable text" \
    "transcript_path has an entry that is not one strict JSON object"
}

# stop_hook_readable <file> <name> <missing> <msg-var>: 0 when <file> is a
# readable regular file (dr_artifact_state); else 1 after setting <msg-var> to
# "<name> is a symlink", <missing>, or "<name> is not a readable file".
stop_hook_readable() {
  local why status=0
  dr_artifact_state "$1" why || status=$?
  case $status:$why in
    0:*) return 0 ;;
    1:*) why=$3 ;;
    *:'is a symlink') why="$2 $why" ;;
    *) why="$2 is not a readable file" ;;
  esac
  printf -v "$4" '%s' "$why"
  return 1
}

# stop_hook_answer <file> <bytes> <program> <answer-file> <msg-var> <none>
# <no-text> <not-json>: writes the answer <program> (transcript-tail.awk,
# copilot-otel.awk: DR_OTEL_* from the caller) finds in the last <bytes> of
# <file> to <answer-file>; 1 after setting <msg-var> to why not: <none> (no
# entry of the turn), <no-text> (none usable), <not-json> (a bad entry).
stop_hook_answer() {
  local LC_ALL=C dir status=0
  dr_lib_dir_into dir
  tail -c "$2" -- "$1" 2>/dev/null | tr '\000\002' '\001\001' | DR_HOOK_TEXT_FILE=$4 \
    LC_ALL=C awk -f "$dir/datarim-rules.awk" -f "$dir/$3" -f "$dir/hook-payload.awk" \
    2>/dev/null || status=$?
  case $status in
    0) return 0 ;;
    2) printf -v "$5" '%s' "$6" ;;
    5) printf -v "$5" '%s' "$7" ;;
    4) printf -v "$5" '%s' "cannot write a temporary file in the state directory" ;;
    *) printf -v "$5" '%s' "$8" ;;
  esac
  return 1
}

# stop_hook_otel <state> <traceparent line> <answer-file> <msg-var>: writes
# the answer of a GitHub Copilot CLI turn from the tail of the OpenTelemetry
# file the operator pointed Copilot at, <state>/copilot-otel.jsonl
# (copilot-otel.awk); 1 after setting <msg-var> to why not.
stop_hook_otel() {
  local LC_ALL=C file=$1/copilot-otel.jsonl context=${2#s} trace parent
  local hex='[0-9a-f]' trace_rule
  trace_rule=$hex$hex$hex$hex$hex$hex$hex$hex
  trace_rule=$trace_rule$trace_rule
  if [ "$2" = - ]; then
    # Copilot sends one only while its OpenTelemetry exporter is on.
    printf -v "$4" '%s' "no traceparent (Copilot's OpenTelemetry file is off: docs/agent-runtimes.md)"
    return 1
  fi
  # shellcheck disable=SC2254 # the rule is a pattern on purpose
  case $2 in s00-$trace_rule$trace_rule-$trace_rule-$hex$hex) ;; *)
    printf -v "$4" '%s' "traceparent is not a usable W3C trace context"
    return 1
    ;;
  esac
  trace=${context:3:32}
  parent=${context:36:16}
  stop_hook_readable "$file" "copilot-otel.jsonl in the state directory" \
    "no copilot-otel.jsonl in the state directory (Copilot's OpenTelemetry file: docs/agent-runtimes.md)" "$4" ||
    return 1
  DR_OTEL_TRACE=$trace DR_OTEL_PARENT=$parent stop_hook_answer "$file" 4194304 copilot-otel.awk "$3" "$4" \
    "no chat span of this turn in the last 4194304 bytes of copilot-otel.jsonl" \
    "the chat span of this turn in copilot-otel.jsonl holds no usable text" \
    "copilot-otel.jsonl has a line of this turn that is not one strict JSON object"
}

# stop_hook_emit <state> <answer-file> <cwd line> <session-id>: the snapshot
# of the turn whose record was read (the caller's rec_* locals), through emit.
stop_hook_emit() {
  local state=$1 cwd=${3#s} dir what root stamp timeout err status=0
  dr_lib_dir_into dir
  what=/dr-$rec_stage${rec_task:+ $rec_task}
  if [ -n "$rec_task" ] && ! dr_task_id_ok "$rec_task"; then
    hook_log "$state" stop-hook "$what: the turn record's task is not a task ID; nothing written"
    return 0
  fi
  case $3 in s/*) ;; *) cwd='' ;; esac
  if [ -z "$cwd" ] || [ ! -d "$cwd" ]; then
    hook_log "$state" stop-hook "$what: the payload's cwd is not an absolute directory; nothing written"
    return 0
  fi
  dr_find_root root "$cwd"
  if dr_foreign_datarim "$root"; then
    hook_log "$state" stop-hook "$what: the datarim/ at cwd belongs to another user; nothing written"
    return 0
  fi
  if ! dr_is_knowledge_base "$root/datarim"; then
    hook_log "$state" stop-hook "$what: no datarim knowledge base at or above cwd; nothing written"
    return 0
  fi
  # A hook has a deadline (install-hooks gives Stop 30 s): wait less for a lock.
  if ! dr_seconds_env DR_SNAPSHOT_LOCK_TIMEOUT 10 timeout; then
    hook_log "$state" stop-hook "$what: DR_SNAPSHOT_LOCK_TIMEOUT must be a whole number of seconds; nothing written"
    return 0
  fi
  # No CTA header opening anywhere in the answer (a question, say): no CTA
  # block, so emit need not be read nor run; the turn is logged and recorded
  # as one that left no snapshot. Only a sure "none" (grep's 1) says so.
  hook_now stamp
  LC_ALL=C grep -q -F -f "$dir/text/cta-headers.txt" -- "$2" 2>/dev/null || status=$?
  if [ "$status" -eq 1 ]; then
    stop_hook_missed "$state" "$root" "$what" "$stamp" "no snapshot: its answer has no CTA block"
    return 0
  fi
  status=0
  dr_source snapshot-emit.sh
  # emit's messages go to a file: no subshell to capture them.
  emit_answer_snapshot stop-hook "$root" "$rec_task" "$rec_stage" "/dr-$rec_stage" "$2" agent \
    "$stamp" "$timeout" >/dev/null 2>"$2.err" || status=$?
  if [ "$status" -eq 0 ]; then
    stop_hook_put "$root" last-task "$rec_task"
    # A resume kept for the session's next prompt (Copilot's PreCompact in
    # the middle of this turn) replays the snapshot this turn replaced: gone.
    hook_resume_drop "$state" "$4"
    return 0
  fi
  err=
  { IFS= read -r -d '' err || :; } <"$2.err" 2>/dev/null
  err=${err%$'\n'}
  err=${err//stop-hook: /}
  case $err in
    *"has no CTA block"*) err="no snapshot: its answer has no CTA block" ;;
    *) err="snapshot not written (exit $status): ${err//$'\n'/; }" ;;
  esac
  stop_hook_missed "$state" "$root" "$what" "$stamp" "$err"
}

# stop_hook_missed <state> <root> <what> <stamp> <why>: a stage turn that left
# no snapshot (no CTA block, a refused write) is logged as "<what>: <why>",
# and, when it named its task, recorded in datarim/snapshots/.missed.<ID> as
# "<command> <stamp>", so the next resume says that the snapshot it hands over
# is older than this turn (spec §9); the next snapshot write removes it.
stop_hook_missed() {
  hook_log "$1" stop-hook "$3: $5"
  stop_hook_put "$2" "missed.$rec_task" "/dr-$rec_stage $4"
  stop_hook_put "$2" last-task "$rec_task"
}

# stop_hook_put <root> <name> <line>: when the turn named its task, writes
# <line> to datarim/snapshots/.<name> (mode 600), renamed into place, never
# through a symlink, only in a real snapshots folder. .last-task holds the
# task of the workspace's latest stage turn: with several active tasks, the
# SessionStart hook resumes that one (spec §9).
stop_hook_put() {
  local folder=$1/datarim/snapshots
  [ -n "$rec_task" ] || return 0
  { [ -d "$folder" ] && [ ! -L "$folder" ]; } || return 0
  hook_put_file "$folder/.$2" "$3"$'\n' || :
}

[ -z "${_dr_aliases_stop_hook-}" ] || shopt -s expand_aliases
unset _dr_aliases_stop_hook
