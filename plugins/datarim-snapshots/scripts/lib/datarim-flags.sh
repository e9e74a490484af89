# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_flags.py
# Flag parsing and the openings of the writers (dr_writer_flags); those of
# validators (dr_checker) and readers (dr_reader_flags) are in datarim-reading.sh.
# datarim-common.sh loads this file; sourcing it defines dr_* functions and
# nothing else, and the second time costs nothing.
declare -F dr_parse_flags >/dev/null 2>&1 && return 0

# Aliases off while this file is read (see datarim-common.sh).
if shopt -q expand_aliases; then _dr_aliases_datarim_flags=1 && shopt -u expand_aliases; fi

# What only readers, validators and hooks use is in datarim-reading.sh, which a
# write never reads: each of these loads it on its first call (dr_autoload).
dr_reader_flags() { dr_autoload datarim-reading.sh dr_reader_flags "$@"; }
dr_checker() { dr_autoload datarim-reading.sh dr_checker "$@"; }
dr_self_test() { dr_autoload datarim-reading.sh dr_self_test "$@"; }
dr_answer_first_word() { dr_autoload datarim-reading.sh dr_answer_first_word "$@"; }

# dr_parse_flags <program> <spec> <required> "$@": parses `--flag value` and
# boolean `--flag` arguments left to right. <spec> lists the flags, a value
# flag with a trailing "=" ("--root= --hint"), one that may repeat with "=+"
# (its values one a line, in order); <required> lists value flags
# that must be present; "@--task" in <spec> makes a bare argument, wherever
# it stands, the value of --task. Sets opt_<flag> (dashes as underscores),
# which the caller declares local. Returns 0, 2 after reporting a usage
# error, 5 after reporting missing required flags, 4 for -h/--help or 6 for
# --version (the first of them given ends the parse). An empty value is a
# usage error (2) like a missing one.
dr_parse_flags() {
  local prog=$1 spec=" $2 " required=$3 flag name seen=" " missing='' positional IFS=$' \t\n'
  shift 3
  while [ $# -gt 0 ]; do
    flag=$1
    case $flag in -h | --help) return 4 ;; --version) return 6 ;; esac
    case $flag in -*) ;; *)
      case $spec in *" @--"*)
        # A bare argument: read it as its flag's value, on the next turn.
        positional=${spec#*" @"}
        set -- "${positional%%" "*}" "$@"
        continue
        ;;
      esac
      ;;
    esac
    name=${flag#--}
    name=opt_${name//-/_}
    case $spec in
      *" $flag=+ "*)
        # A flag that may repeat: its values, one a line, in order.
        dr_flag_value_ok "$prog" "$flag" $# "${2-}" || return 2
        case $2 in *$'\n'*)
          dr_err "$prog" "flag value holds a line break: $flag"
          return 2
          ;;
        esac
        printf -v "$name" '%s' "${!name:+${!name}$'\n'}$2"
        shift 2
        continue
        ;;
      *" $flag= "*)
        dr_flag_value_ok "$prog" "$flag" $# "${2-}" || return 2
        printf -v "$name" '%s' "$2"
        shift 2
        ;;
      *" $flag "*)
        printf -v "$name" '%s' 1
        shift
        ;;
      *)
        case $flag in
          -*) dr_err "$prog" "unknown flag: $flag" ;;
          *) dr_err "$prog" "unexpected argument: $flag" ;;
        esac
        return 2
        ;;
    esac
    case $seen in *" $flag "*)
      dr_err "$prog" "flag given twice: $flag"
      return 2
      ;;
    esac
    seen="$seen$flag "
  done
  for flag in $required; do
    case $seen in *" $flag "*) ;; *) missing="$missing $flag" ;; esac
  done
  if [ -n "$missing" ]; then
    dr_err "$prog" "missing required flag(s):$missing"
    return 5
  fi
  return 0
}

# dr_flag_value_ok <program> <flag> <count> <value>: 0 when a value flag has
# its value: <count> (the arguments left, the flag's own included) is at
# least 2 and <value> is neither a flag nor empty; else reports the usage
# error and returns 2.
dr_flag_value_ok() {
  if [ "$3" -lt 2 ] || [ "${4#--}" != "$4" ]; then
    dr_err "$1" "flag needs a value: $2"
    return 2
  fi
  # `--task "$ID"` with an empty $ID is a caller's bug, never "not given".
  if [ -z "$4" ]; then
    dr_err "$1" "flag has an empty value: $2"
    return 2
  fi
}

# dr_answer_help_or_version <program> <parse-status>: for dr_parse_flags' 4
# (-h/--help) prints the usage, for 6 (--version) the version line, on stdout,
# and returns 0; returns 1 for any other status.
dr_answer_help_or_version() {
  case $2 in
    4) dr_usage "$1" ;;
    6) dr_version ;;
    *) return 1 ;;
  esac
}

# dr_writer_flags <program> <timeout-env> <timeout-var> <done-var> <spec>
# <required> "$@": how every writer starts. Parses the flags (dr_parse_flags;
# the caller declares the opt_* locals), prints the usage for -h/--help (and
# on stderr after the line naming missing flags, as the reference's writers
# do: spec §8), reads the lock timeout from <timeout-env> into <timeout-var>
# and defaults opt_captured_at to now. Sets <done-var> to 1 when the command
# is over: the version printed for --version (0), help printed or a usage
# error reported (2); returns that code. Else returns 0 with <done-var>
# empty, or 2 for a bad lock timeout.
dr_writer_flags() {
  local dr_wf_status=0 dr_wf_prog=$1 dr_wf_env=$2 dr_wf_var=$3 dr_wf_done=$4 dr_wf_spec=$5 dr_wf_required=$6
  shift 6
  printf -v "$dr_wf_done" '%s' 1
  dr_parse_flags "$dr_wf_prog" "$dr_wf_spec" "$dr_wf_required" "$@" || dr_wf_status=$?
  if dr_answer_help_or_version "$dr_wf_prog" "$dr_wf_status"; then
    [ "$dr_wf_status" -eq 6 ] || return 2 # a writer's --help exits 2, as the reference's
    return 0
  fi
  if [ "$dr_wf_status" -eq 5 ]; then
    dr_usage "$dr_wf_prog" >&2
    return 2
  fi
  [ "$dr_wf_status" -eq 0 ] || return "$dr_wf_status"
  printf -v "$dr_wf_done" '%s' ''
  dr_lock_timeout "$dr_wf_prog" "$dr_wf_env" "$dr_wf_var" || return 2
  dr_descriptors_ok "$dr_wf_prog" || return 1
  [ -n "$opt_captured_at" ] || dr_now_utc opt_captured_at
}

# dr_descriptors_ok <program>: 1 after reporting a limit of open files
# (ulimit -n) below 16. A write opens its lock's owner file, temp files,
# pipes and /dev/null for messages; under a tiny limit a failed open looked
# like another writer's lock (bash waited out its timeout, said "lock busy"
# and left the lock behind). Said at once instead, before anything is made.
dr_descriptors_ok() {
  local limit='' line
  # This shell's own soft limit from /proc without a fork (what `ulimit -n`
  # prints: a number or "unlimited"); elsewhere, or when not even /proc can
  # be opened, `ulimit -n` in a subshell says it.
  while IFS= read -r line; do
    case $line in 'Max open files '*)
      line=${line#Max open files }
      line=${line#"${line%%[! ]*}"}
      limit=${line%% *}
      break
      ;;
    esac
  done 2>/dev/null </proc/self/limits || :
  [ -n "$limit" ] || limit=$(ulimit -n 2>/dev/null) || :
  if [ -z "$limit" ]; then
    # Not even a pipe for that: the limit is used up already.
    dr_err "$1" "too few file descriptors: none left under the limit (ulimit -n), a write needs 16"
    return 1
  fi
  case $limit in *[!0123456789]*) return 0 ;; esac # unlimited
  [ "$limit" -lt 16 ] || return 0
  dr_err "$1" "too few file descriptors: the limit is $limit (ulimit -n), a write needs 16"
  return 1
}

[ -z "${_dr_aliases_datarim_flags-}" ] || shopt -s expand_aliases
unset _dr_aliases_datarim_flags
