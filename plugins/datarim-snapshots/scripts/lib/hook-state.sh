# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_hook_state.py
# What the agent-runtime hooks keep between calls (spec §9, docs/agent-runtimes.md):
# the state directory, its log of failures and the per-session turn records
# that the UserPromptSubmit hook leaves for the Stop hook. Twin of
# python/src/datarim_snapshot/_hook_state.py.
#
#   <state>/hooks.log           one line per failure: <YYYY-MM-DDTHH:MM:SSZ> <hook> <message>
#   <state>/turns/<session-id>  the turn record of a session (hook_turn_write)
#   <state>/resume/<session-id> a /clear's pending resume (hook_resume_write)
#
# <state> is ${DATARIM_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/datarim}.
# It loads datarim-common.sh only when a hook needs more than its common path
# (hook_load_common): the Stop hook with no turn pending reads no other file.
# Sourcing defines hook_* functions and nothing else.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_hook_state=1 && shopt -u expand_aliases; fi

# hook_load_common: loads datarim-common.sh (dr_call, dr_now_utc, the root
# discovery) unless it is loaded.
hook_load_common() {
  declare -F dr_call >/dev/null 2>&1 && return 0
  # shellcheck source=scripts/lib/datarim-common.sh
  case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac
}

# hook_opening <hook> <what-is-not-done> "$@": how a hook that takes no
# argument starts. 0 when the call is over: the usage printed (-h, --help)
# or the version (--version), the payload left unread; or arguments given, the
# payload drained and "takes no arguments; nothing <what-is-not-done>" logged;
# 1 to go on. Needs hook_load_common first.
hook_opening() {
  local hook=$1 undone=$2 state
  shift 2
  dr_answer_first_word "$hook" "${1:-}" && return 0
  [ $# -gt 0 ] || return 1
  hook_drain
  if hook_state_dir state; then hook_log "$state" "$hook" "takes no arguments; nothing $undone"; fi
  return 0
}

# hook_state_dir <out-var>: the state directory; 1 when there is none (no
# absolute DATARIM_STATE_DIR, XDG_STATE_HOME or HOME to build it from).
# DATARIM_STATE_DIR must be absolute; a relative XDG_STATE_HOME is ignored,
# as the XDG base directory rules say.
hook_state_dir() {
  local hook_dir=${DATARIM_STATE_DIR:-}
  if [ -z "$hook_dir" ]; then
    hook_dir=${XDG_STATE_HOME:-}
    case $hook_dir in /*) ;; *)
      # An empty or relative HOME names no home: never fall back to /.local.
      case ${HOME:-} in /*) hook_dir=$HOME/.local/state ;; *) return 1 ;; esac
      ;;
    esac
    hook_dir=$hook_dir/datarim
  fi
  case $hook_dir in /*) ;; *) return 1 ;; esac
  printf -v "$1" '%s' "$hook_dir"
}

# hook_turns_pending <state>: 0 when some turn record exists. A builtin, and
# one that globs whatever the caller's options (noglob, failglob, nullglob)
# and skips the hooks' own dot files.
hook_turns_pending() {
  compgen -G "$1/turns/*" >/dev/null 2>&1
}

# hook_drain: reads the standard input to its end, so that the runtime's
# write of the payload never fails (a hook that exits unread gets it EPIPE).
# The first 64 KiB with the read builtin; anything longer through cat.
hook_drain() {
  local LC_ALL=C chunk='' status=0
  while :; do
    chunk=
    IFS= read -r -d '' -n 65536 chunk 2>/dev/null || status=$?
    [ "$status" -eq 0 ] || return 0
    # A full chunk: the payload is long; let cat take the rest at its pace.
    [ "${#chunk}" -lt 65536 ] || break
  done
  LC_ALL=C cat >/dev/null 2>&1 || :
}

# hook_session_ok <session-id>: a session ID fit to name a file: 1 to 128
# ASCII letters, digits, "_" and "-" (Claude Code and Codex use UUIDs).
hook_session_ok() {
  case $1 in '' | *[!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-]*) return 1 ;; esac
  [ ${#1} -le 128 ]
}

# hook_make_dir <dir>: creates <dir> (mode 700, parents as needed) unless it
# is already a directory; 1 when it is not one after.
hook_make_dir() {
  [ -d "$1" ] && return 0
  LC_ALL=C mkdir -p -- "${1%/*}" 2>/dev/null || :
  LC_ALL=C mkdir -m 700 -- "$1" 2>/dev/null || :
  [ -d "$1" ]
}

# hook_now <out-var>: DATARIM_NOW when it has the form YYYY-MM-DDTHH:MM:SSZ
# (the hooks' clock for tests, as snapshot-list's), else the current time, UTC.
hook_now() {
  local LC_ALL=C hook_d='[0123456789]'
  # shellcheck disable=SC2254 # the pattern is built from $hook_d on purpose
  case ${DATARIM_NOW:-} in
    $hook_d$hook_d$hook_d$hook_d-$hook_d$hook_d-$hook_d$hook_d"T"$hook_d$hook_d:$hook_d$hook_d:$hook_d$hook_d"Z")
      printf -v "$1" '%s' "$DATARIM_NOW"
      return 0
      ;;
  esac
  dr_now_utc "$1"
}

# hook_log <state> <hook> <message>: appends one line to <state>/hooks.log
# (created mode 600; the directory 700), control characters shown as "?".
# A log that cannot be written is given up silently: a hook never fails.
hook_log() {
  local LC_ALL=C log=$1/hooks.log msg=$3 now
  hook_load_common
  hook_now now
  msg=${msg//[$'\001'-$'\037'$'\177']/?}
  hook_make_dir "$1" || return 0
  [ ! -L "$log" ] || return 0
  if [ ! -e "$log" ]; then (umask 077 && : >>"$log") 2>/dev/null || return 0; fi
  { [ -f "$log" ] && printf '%s %s %s\n' "$now" "$2" "$msg" >>"$log"; } 2>/dev/null || :
}

# hook_turn_file <state> <session-id> <out-var>: the path of a session's turn
# record; 1 (nothing set) when the ID is not fit to name a file.
hook_turn_file() {
  hook_session_ok "$2" || return 1
  printf -v "$3" '%s' "$1/turns/$2"
}

# The turn record (one file per session, replaced whole by each /dr-<stage>
# prompt, removed by any other prompt and by the Stop hook that reads it):
#   stage=<stage>\ntask=<ID or empty>\nturn=<turn_id or empty>\n

# hook_turn_write <record-file> <stage> <task> <turn>: writes the record
# (hook_put_file). 1 when it cannot.
hook_turn_write() {
  local dir=${1%/*}
  hook_make_dir "${dir%/*}" && hook_make_dir "$dir" || return 1
  hook_put_file "$1" "stage=$2"$'\n'"task=$3"$'\n'"turn=$4"$'\n'
}

# hook_put_file <path> <text>: <path> holds <text> whole, or stays as it was
# (1): a fresh file in its folder (mktemp: made exclusively, mode 600, never
# through a name planted before it) renamed over it. A symlink at <path> is
# replaced once the text is written, never written through, and a directory
# there is left alone (mv would move the file INTO either), as Python's
# os.replace does.
hook_put_file() {
  local tmp
  [ -L "$1" ] || [ ! -d "$1" ] || return 1
  tmp=$(LC_ALL=C mktemp "${1%/*}/.${1##*/}.XXXXXX" 2>/dev/null) || return 1
  if printf '%s' "$2" 2>/dev/null >"$tmp"; then
    if [ -L "$1" ]; then rm -f -- "$1" 2>/dev/null || :; fi
    if [ ! -d "$1" ] && LC_ALL=C mv -f -- "$tmp" "$1" 2>/dev/null; then return 0; fi
  fi
  rm -f -- "$tmp" 2>/dev/null || :
  return 1
}

# hook_turn_read <record-file> <prefix>: reads a record into <prefix>_stage,
# <prefix>_task and <prefix>_turn; 1 when it is no regular file or not a
# complete record (the fields are checked by the caller).
hook_turn_read() {
  local LC_ALL=C line want key n=0 # no "_" in these: no <prefix>_<field> is one
  [ -f "$1" ] && [ ! -L "$1" ] || return 1
  for want in stage task turn; do printf -v "$2_$want" '%s' ''; done
  while IFS= read -r line; do
    n=$((n + 1))
    case $n in 1) want=stage ;; 2) want=task ;; 3) want=turn ;; *) return 1 ;; esac
    key=${line%%=*}
    [ "$key" = "$want" ] && [ "$key" != "$line" ] || return 1
    printf -v "$2_$want" '%s' "${line#*=}"
  done <"$1" 2>/dev/null || return 1
  [ "$n" -eq 3 ]
}

# hook_turn_clear <record-file>: removes a session's record, if there is one.
hook_turn_clear() {
  if [ -e "$1" ] || [ -L "$1" ]; then LC_ALL=C rm -f -- "$1" 2>/dev/null || :; fi
}

# The pending resume of a /clear (session-start-hook.sh writes it, the
# session's next prompt hook hands it over or drops it):
#   <state>/resume/<session-id>   the SessionStart hook's output, mode 600

# hook_resume_pending <state>: 0 when some pending resume exists.
hook_resume_pending() {
  compgen -G "$1/resume/*" >/dev/null 2>&1
}

# hook_resume_write <state> <session-id> <output>: keeps <output> as the
# session's pending resume (hook_put_file). 1 when it cannot.
hook_resume_write() {
  hook_make_dir "$1" && hook_make_dir "$1/resume" || return 1
  hook_put_file "$1/resume/$2" "$3"
}

# hook_resume_drop <state> <session-id>: removes the session's pending resume,
# unread (a SessionStart that hands the text over itself, a Stop hook whose
# snapshot is newer than the one it replays).
hook_resume_drop() {
  hook_turn_clear "$1/resume/$2"
}

# hook_resume_take <state> <session-id> <out-var>: the session's pending
# resume, removed as it is read; 1 when there is none (a symlink or anything
# but a regular file is removed unread).
hook_resume_take() {
  local LC_ALL=C file=$1/resume/$2 hook_text=''
  [ -e "$file" ] || [ -L "$file" ] || return 1
  if [ -f "$file" ] && [ ! -L "$file" ]; then
    IFS= read -r -d '' hook_text <"$file" 2>/dev/null || :
  fi
  rm -f -- "$file" 2>/dev/null || :
  [ -n "$hook_text" ] || return 1
  printf -v "$3" '%s' "$hook_text"
}

# hook_read_payload <out-var> <fields> [<text-member> <text-file> [<command-member>]]:
# reads the payload from the standard input stream, to its end, with
# hook-fields.awk (see there for <out-var>'s lines and the arguments). A
# payload may have at most 262144 bytes: the final answer rides in a Stop
# payload whole, and a stage's answer is far shorter.
# Returns its status: 0 read, 1 not a strict JSON object, 3 too long,
# 4 the text file cannot be written. awk sees at most one byte over the
# limit (enough to tell it is over); cat reads the rest away unparsed, so a
# payload of 50 MB costs no more than the limit does. Needs hook_load_common first.
hook_read_payload() {
  local LC_ALL=C hook_dir hook_out hook_status=0
  dr_lib_dir_into hook_dir
  hook_out=$({ head -c 262145 && cat >/dev/null; } 2>/dev/null | tr '\000\002' '\001\001' |
    DR_HOOK_LIMIT=262144 DR_HOOK_FIELDS=$2 \
      DR_HOOK_TEXT=${3:-} DR_HOOK_TEXT_FILE=${4:-} DR_HOOK_COMMAND=${5:-} LC_ALL=C \
      awk -f "$hook_dir/datarim-rules.awk" -f "$hook_dir/hook-fields.awk" -f "$hook_dir/hook-payload.awk" \
      2>/dev/null) || hook_status=$?
  printf -v "$1" '%s' "$hook_out"
  return "$hook_status"
}

# hook_payload_failure <status> <out-var>: the log message for a
# hook_read_payload status other than 0.
hook_payload_failure() {
  case $1 in
    3) printf -v "$2" '%s' "payload over 262144 bytes" ;;
    4) printf -v "$2" '%s' "cannot write a temporary file in the state directory" ;;
    *) printf -v "$2" '%s' "payload is not one strict JSON object" ;;
  esac
}

# hook_payload_session <state> <fields-var> <sid-var> <file-var> <msg-var>
# <fields> [<text-member> <text-file> [<command-member>]]: the payload read
# (hook_read_payload's arguments from <fields> on; its lines in <fields-var>),
# then its session_id (line 1) in <sid-var> and the session's turn record
# path (hook_turn_file) in <file-var>. 1 after setting <msg-var> to the log
# message when the payload is unusable or its session_id is missing or not
# fit to name a file. Needs hook_load_common first.
hook_payload_session() {
  local hook_state=$1 hook_to_fields=$2 hook_to_sid=$3 hook_to_file=$4 hook_to_msg=$5
  local hook_fields hook_sid hook_status=0
  shift 5
  hook_read_payload hook_fields "$@" || hook_status=$?
  printf -v "$hook_to_fields" '%s' "$hook_fields"
  if [ "$hook_status" -ne 0 ]; then
    hook_payload_failure "$hook_status" "$hook_to_msg"
    return 1
  fi
  hook_line "$hook_fields" 1 hook_sid
  case $hook_sid in s*) ;; *)
    printf -v "$hook_to_msg" '%s' "payload has no usable session_id"
    return 1
    ;;
  esac
  hook_sid=${hook_sid#s}
  printf -v "$hook_to_sid" '%s' "$hook_sid"
  if ! hook_turn_file "$hook_state" "$hook_sid" "$hook_to_file"; then
    printf -v "$hook_to_msg" '%s' "session_id is not a safe file name"
    return 1
  fi
}

# hook_line <text> <n> <out-var>: line <n> (from 1) of <text>.
hook_line() {
  local hook_rest=$1 hook_k=1
  while [ "$hook_k" -lt "$2" ]; do
    hook_rest=${hook_rest#*$'\n'}
    hook_k=$((hook_k + 1))
  done
  printf -v "$3" '%s' "${hook_rest%%$'\n'*}"
}

# hook_turns_clear_all <state> <message-var>: removes every turn record (a
# prompt whose session cannot be told must not leave any of them for a later
# Stop) and, when there were some, says so at the end of <message-var>.
hook_turns_clear_all() {
  hook_turns_pending "$1" || return 0
  LC_ALL=C rm -f -- "$1"/turns/* 2>/dev/null || :
  printf -v "$2" '%s' "${!2}; cannot tell its session, so every pending turn record was dropped"
}

[ -z "${_dr_aliases_hook_state-}" ] || shopt -s expand_aliases
unset _dr_aliases_hook_state
