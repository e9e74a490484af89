# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_rules.py
# The ID rules of the command line: task IDs and session IDs, as
# datarim-rules.awk judges them inside the awk programs.
# datarim-common.sh loads this file; sourcing it defines dr_* functions and
# nothing else, and the second time costs nothing.
declare -F dr_task_id_ok >/dev/null 2>&1 && return 0

# Aliases off while this file is read (see datarim-common.sh).
if shopt -q expand_aliases; then _dr_aliases_datarim_rules=1 && shopt -u expand_aliases; fi

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

# dr_task_id_fault <id> <out-var>: why <id> breaks the task-ID rule, in words,
# the value repeated (its first 40 bytes and "..." when longer than the rule
# allows). Counts bytes, as the rule does.
dr_task_id_fault() {
  local LC_ALL=C dr_tf_value=$1 dr_tf_bad dr_tf_code dr_tf_why
  [ ${#dr_tf_value} -le 128 ] || dr_tf_value=${dr_tf_value:0:40}...
  if [ ${#1} -gt 128 ]; then
    dr_tf_why='longer than 128 characters'
  elif [[ $1 == *[!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-]* ]]; then
    dr_tf_bad=${1#"${1%%[!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-]*}"}
    printf -v dr_tf_code '%d' "'${dr_tf_bad:0:1}"
    if [ "$dr_tf_code" -eq 32 ]; then
      dr_tf_bad='a space'
    elif [ "$dr_tf_code" -lt 0 ] || [ "$dr_tf_code" -gt 127 ]; then
      dr_tf_bad='a non-ASCII character'
    elif [ "$dr_tf_code" -lt 32 ] || [ "$dr_tf_code" -eq 127 ]; then
      dr_tf_bad='a control character'
    else
      dr_tf_bad="'${dr_tf_bad:0:1}'"
    fi
    dr_tf_why="holds $dr_tf_bad; a task ID holds only letters, digits and dashes"
  else
    dr_tf_why='want a capital letter, then capitals, digits or dashes up to a dash and a 4- or 5-digit number, then optional -slug parts of letters and digits (e.g. TUNE-0254, DEV-1438-FU-slug)'
  fi
  printf -v "$2" 'invalid --task "%s": %s' "$dr_tf_value" "$dr_tf_why"
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
