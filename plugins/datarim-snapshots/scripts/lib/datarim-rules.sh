# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_rules.py
# The ID rules of the command line: task IDs and session IDs, as
# datarim-rules.awk judges them inside the awk programs.
# datarim-common.sh loads this file; sourcing it defines dr_* functions and
# nothing else, and the second time costs nothing.
declare -F dr_task_id_ok >/dev/null 2>&1 && return 0

# Aliases off while this file is read (see datarim-common.sh).
if shopt -q expand_aliases; then _dr_aliases_datarim_rules=1 && shopt -u expand_aliases; fi

# Why an ID breaks its rule, in words, is in datarim-messages.sh (dr_autoload).
dr_task_id_fault() { dr_autoload datarim-messages.sh dr_task_id_fault "$@"; }

# dr_task_id_ok <id>: the task-ID rule; nothing with / . whitespace or controls passes.
dr_task_id_ok() {
  local LC_ALL=C re='^[ABCDEFGHIJKLMNOPQRSTUVWXYZ][ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-]+-[0123456789]{4,5}(-[ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789]+)*$'
  [ ${#1} -le 128 ] && [[ $1 =~ $re ]]
}

# dr_check_task_flag <program> <id>: dr_task_id_ok, reporting a bad --task.
dr_check_task_flag() {
  local why
  dr_task_id_ok "$2" && return 0
  dr_task_id_fault "$2" why
  dr_err "$1" "$why"
  return 1
}

# dr_session_id_ok <id>: the session-ID rule, SESSION-YYYYMMDD-HHMMSS naming
# a real UTC second, as --captured-at must.
dr_session_id_ok() {
  local LC_ALL=C re='^SESSION-[0123456789]{8}-[0123456789]{6}$'
  [[ $1 =~ $re ]] && dr_session_time_fault "$1" ''
}

# dr_session_time_fault <id> <out-var>: for an ID of the form
# SESSION-YYYYMMDD-HHMMSS, 0 when it names a real UTC second (the rule of
# is_timestamp in datarim-rules.awk, which judges --captured-at: no year 0,
# no leap second); else 1, with <out-var> (when given) naming the first part
# that is not real ("month 13").
dr_session_time_fault() {
  local y=$((10#${1:8:4})) m=$((10#${1:12:2})) d=$((10#${1:14:2})) dim=31 part=''
  case $m in 4 | 6 | 9 | 11) dim=30 ;; 2) dim=28 ;; esac
  if [ "$m" -eq 2 ] && [ $((y % 4)) -eq 0 ] && { [ $((y % 100)) -ne 0 ] || [ $((y % 400)) -eq 0 ]; }; then
    dim=29
  fi
  if [ "$y" -lt 1 ]; then
    part="year ${1:8:4}"
  elif [ "$m" -lt 1 ] || [ "$m" -gt 12 ]; then
    part="month ${1:12:2}"
  elif [ "$d" -lt 1 ] || [ "$d" -gt "$dim" ]; then
    part="day ${1:14:2} of ${1:8:4}-${1:12:2}"
  elif [ $((10#${1:17:2})) -gt 23 ]; then
    part="hour ${1:17:2}"
  elif [ $((10#${1:19:2})) -gt 59 ]; then
    part="minute ${1:19:2}"
  elif [ $((10#${1:21:2})) -gt 59 ]; then
    part="second ${1:21:2}"
  fi
  [ -z "$2" ] || printf -v "$2" '%s' "$part"
  [ -z "$part" ]
}

# dr_session_id_fault <id> <out-var>: the refusal of an --session value that
# breaks the session-ID rule.
dr_session_id_fault() {
  local LC_ALL=C re='^SESSION-[0123456789]{8}-[0123456789]{6}$' dr_sf_part=''
  if [[ $1 =~ $re ]] && ! dr_session_time_fault "$1" dr_sf_part; then
    printf -v "$2" 'invalid --session: %s names no real UTC time (%s)' "$1" "$dr_sf_part"
  else
    printf -v "$2" '%s' 'invalid --session (want SESSION-YYYYMMDD-HHMMSS)'
  fi
}

[ -z "${_dr_aliases_datarim_rules-}" ] || shopt -s expand_aliases
unset _dr_aliases_datarim_rules
