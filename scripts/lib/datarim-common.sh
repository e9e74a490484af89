# shellcheck shell=bash
# What every datarim writer and checker shares: field rules, messages, root
# resolution, the mkdir lock protocol and the atomic publish step.
#
# Sourcing this file defines dr_* functions and nothing else: no variable,
# shell option or trap of the caller changes. Functions return codes; none
# of them exits the caller's shell.

# External tools run with LC_ALL=C: they print nothing we read, and loading
# a locale is a measurable part of each start on a writer's hot path.
#
# Every library sources this one; the second time costs nothing.
declare -F dr_lib_dir_into >/dev/null 2>&1 && return 0

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_datarim_common=1 && shopt -u expand_aliases; fi

# dr_lib_dir_into <var>: sets <var> to this library's absolute directory.
_dr_define_lib_dir() {
  local src=${BASH_SOURCE[0]} dir quoted
  case $src in */*) dir=${src%/*} ;; *) dir=. ;; esac
  case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
  printf -v quoted '%q' "$dir"
  eval "dr_lib_dir_into() { printf -v \"\$1\" '%s' $quoted; }"
}
_dr_define_lib_dir
unset -f _dr_define_lib_dir

# dr_call <function> [<arg>...]: runs a library entry point with the shell
# state the libraries are written for, whatever the caller's (sourced, or an
# entry point started with SHELLOPTS/BASHOPTS in its environment): word
# splitting on blanks (IFS), globbing on (noglob off), globs that may match
# nothing and match case (failglob, nullglob, nocaseglob, dotglob off), case
# patterns and [[ ]] that match case (nocasematch off), no caller's ERR or
# RETURN trap inside our functions (errtrace, functrace off). Whatever it
# turned off is turned on again before it returns the function's code; -e, -u
# and pipefail need nothing: the libraries run under both states.
dr_call() {
  local IFS=$' \t\n' dr_call_status=0 dr_call_undo='' dr_call_option
  case $- in *f*) set +f && dr_call_undo='set -f;' ;; esac
  case $- in *E*) set +E && dr_call_undo="$dr_call_undo set -E;" ;; esac
  case $- in *T*) set +T && dr_call_undo="$dr_call_undo set -T;" ;; esac
  for dr_call_option in failglob nullglob nocaseglob dotglob nocasematch; do
    if shopt -q "$dr_call_option"; then
      shopt -u "$dr_call_option"
      dr_call_undo="$dr_call_undo shopt -s $dr_call_option;"
    fi
  done
  "$@" || dr_call_status=$?
  eval "$dr_call_undo"
  return "$dr_call_status"
}

# dr_err <program> <message>: one line on stderr, control characters shown as '?'.
dr_err() {
  local LC_ALL=C msg=$2
  msg=${msg//[$'\001'-$'\037'$'\177']/?}
  printf '%s: %s\n' "$1" "$msg" >&2
}

# dr_usage <name>: prints the usage text shared with the Python port.
dr_usage() {
  local dir
  dr_lib_dir_into dir
  cat -- "$dir/text/usage-$1.txt"
}

# dr_parse_flags <program> <spec> <required> "$@": parses `--flag value` and
# boolean `--flag` arguments left to right. <spec> lists the flags, a value
# flag with a trailing "=" ("--root= --hint"), one that may repeat with "=+"
# (its values one a line, in order); <required> lists value flags
# that must be present; "@--task" in <spec> makes a bare argument, wherever
# it stands, the value of --task. Sets opt_<flag> (dashes as underscores),
# which the caller declares local. Returns 0, 2 after reporting a usage
# error, 5 after reporting missing required flags, or 4 for -h/--help. An
# empty value is a usage error (2) like a missing one.
dr_parse_flags() {
  local prog=$1 spec=" $2 " required=$3 flag name seen=" " missing='' positional IFS=$' \t\n'
  shift 3
  while [ $# -gt 0 ]; do
    flag=$1
    case $flag in -h | --help) return 4 ;; esac
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
        if [ $# -lt 2 ] || [ "${2#--}" != "$2" ]; then
          dr_err "$prog" "flag needs a value: $flag"
          return 2
        fi
        if [ -z "$2" ]; then
          dr_err "$prog" "flag has an empty value: $flag"
          return 2
        fi
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
        if [ $# -lt 2 ] || [ "${2#--}" != "$2" ]; then
          dr_err "$prog" "flag needs a value: $flag"
          return 2
        fi
        # `--task "$ID"` with an empty $ID is a caller's bug, never "not given".
        if [ -z "$2" ]; then
          dr_err "$prog" "flag has an empty value: $flag"
          return 2
        fi
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

# dr_writer_flags <program> <timeout-env> <timeout-var> <spec> <required> "$@":
# how every writer starts. Parses the flags (dr_parse_flags; the caller
# declares the opt_* locals), prints the usage for -h/--help (and on stderr
# after the line naming missing flags, as the reference's writers do: spec
# §8), reads the lock timeout from <timeout-env> into <timeout-var> and
# defaults opt_captured_at to now. Returns 0, or 2 (usage, help included)
# for the writer to exit with.
dr_writer_flags() {
  local dr_wf_status=0 dr_wf_prog=$1 dr_wf_env=$2 dr_wf_var=$3 dr_wf_spec=$4 dr_wf_required=$5
  shift 5
  dr_parse_flags "$dr_wf_prog" "$dr_wf_spec" "$dr_wf_required" "$@" || dr_wf_status=$?
  if [ "$dr_wf_status" -eq 4 ]; then
    dr_usage "$dr_wf_prog"
    return 2
  fi
  if [ "$dr_wf_status" -eq 5 ]; then
    dr_usage "$dr_wf_prog" >&2
    return 2
  fi
  [ "$dr_wf_status" -eq 0 ] || return "$dr_wf_status"
  dr_lock_timeout "$dr_wf_prog" "$dr_wf_env" "$dr_wf_var" || return 2
  [ -n "$opt_captured_at" ] || dr_now_utc opt_captured_at
}

# dr_lock_timeout <program> <env-name> <out-var>: the lock timeout in seconds
# from <env-name> (unset or empty: 60); reports and returns 1 when it is not
# a whole number.
dr_lock_timeout() {
  dr_seconds_env "$2" 60 "$3" && return 0
  dr_err "$1" "$2 must be a whole number of seconds"
  return 1
}

# dr_readable_file <program> <flag> <path>: 0 when <path> can be read as an
# input file: "-" (the standard input, when it is open), or a readable regular
# file, pipe or FIFO (/dev/stdin, <(...)) or character device; else reports
# and returns 1.
dr_readable_file() {
  if [ "$3" = - ]; then
    { : 3<&0; } 2>/dev/null && return 0
    dr_err "$1" "$2 -: the standard input is closed"
    return 1
  fi
  { [ -f "$3" ] || [ -p "$3" ] || [ -c "$3" ]; } && [ -r "$3" ] && return 0
  dr_err "$1" "$2 is not a readable file"
  return 1
}

# dr_one_stdin <program> <flag> <value> [<flag> <value>...]: at most one input
# flag of a call may be "-" (there is one standard input). Returns 0, or 2
# after naming every flag that is "-" (a usage error).
dr_one_stdin() {
  local prog=$1 dashes='' count=0
  shift
  while [ $# -ge 2 ]; do
    if [ "$2" = - ]; then
      dashes="$dashes${dashes:+ and }$1"
      count=$((count + 1))
    fi
    shift 2
  done
  [ "$count" -le 1 ] && return 0
  dr_err "$prog" "$dashes read the standard input (-): at most one flag may"
  return 2
}

# dr_read_input <path> <limit> <prefix>: dr_read_prefix of an input file, "-"
# being the standard input. Only <limit> bytes are kept; a pipe, FIFO or
# socket is then read to its end and the rest thrown away, so that the
# program writing into it (`cat answer.md | ...`) never dies of SIGPIPE. A
# regular file or a device is read no further.
dr_read_input() {
  printf -v "$3_text" '%s' ''
  printf -v "$3_len" '%s' 0
  printf -v "$3_nul" '%s' -1
  if [ "$1" = - ]; then
    dr_read_input_stdin "$2" "$3"
  else
    dr_read_input_stdin "$2" "$3" <"$1"
  fi
}

# dr_read_input_stdin <limit> <prefix>: dr_read_input of the standard input.
dr_read_input_stdin() {
  local dr_ri_len
  dr_read_prefix_stdin "$1" "$2"
  eval "dr_ri_len=\$$2_len"
  [ "$dr_ri_len" -ge "$1" ] || return 0
  # Builtin tests: bash checks fd 0 itself for /dev/stdin.
  if [ -p /dev/stdin ] || [ -S /dev/stdin ]; then LC_ALL=C cat >/dev/null 2>&1 || :; fi
}

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

# dr_seconds_env <var-name> <default> <out-var>: a whole number of seconds from
# the environment (unset or empty: the default); returns 1 when it is not one.
dr_seconds_env() {
  local LC_ALL=C value
  eval "value=\${$1:-}"
  [ -n "$value" ] || value=$2
  case $value in *[!0123456789]*) return 1 ;; esac
  [ ${#value} -le 9 ] || return 1
  printf -v "$3" '%d' "$((10#$value))"
}

# dr_now_utc <out-var>: the current time as YYYY-MM-DDTHH:MM:SSZ.
dr_now_utc() {
  if [ "${BASH_VERSINFO[0]}" -gt 4 ] || { [ "${BASH_VERSINFO[0]}" -eq 4 ] && [ "${BASH_VERSINFO[1]}" -ge 2 ]; }; then
    local TZ=UTC
    printf -v "$1" '%(%Y-%m-%dT%H:%M:%SZ)T' -1
  else
    printf -v "$1" '%s' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  fi
}

# dr_read_prefix <file> <limit> <prefix>: reads at most <limit> bytes of
# <file> with builtins only and sets <prefix>_text to the bytes before the
# first NUL, <prefix>_len to the number of bytes read and <prefix>_nul to the
# offset of that NUL (-1: none). Bash strings cannot hold NUL; this keeps its
# position instead, which is all the byte rules need.
dr_read_prefix() {
  printf -v "$3_text" '%s' ''
  printf -v "$3_len" '%s' 0
  printf -v "$3_nul" '%s' -1
  dr_read_prefix_stdin "$2" "$3" <"$1"
}

# dr_read_prefix_stdin <limit> <prefix>: dr_read_prefix of the standard input
# stream itself (fd 0, from where it stands), whatever it is: a pipe, a socket
# (which /dev/stdin cannot re-open) or a file read part-way.
dr_read_prefix_stdin() {
  local LC_ALL=C chunk text='' total=0 nul=-1 want rc
  while [ "$total" -lt "$1" ]; do
    want=$(($1 - total))
    # read -n takes at most INT_MAX; a larger limit (a huge budget) reads in parts.
    [ "$want" -le 1073741824 ] || want=1073741824
    chunk=
    rc=0
    IFS= read -r -d '' -n "$want" chunk || rc=$?
    if [ "$rc" -ne 0 ]; then
      [ "$nul" -ge 0 ] || text=$text$chunk
      total=$((total + ${#chunk}))
      break
    fi
    if [ "${#chunk}" -eq "$want" ]; then
      [ "$nul" -ge 0 ] || text=$text$chunk
      total=$((total + want))
      continue
    fi
    if [ "$nul" -lt 0 ]; then
      text=$text$chunk
      nul=$((total + ${#chunk}))
    fi
    total=$((total + ${#chunk} + 1))
  done
  printf -v "$2_text" '%s' "$text"
  printf -v "$2_len" '%s' "$total"
  printf -v "$2_nul" '%s' "$nul"
}

# dr_is_knowledge_base <dir>: a datarim/ directory that holds a knowledge base
# (spec §8): tasks.md, backlog.md, activeContext.md, tasks/, snapshots/ or
# sessions/. A bare datarim/ (the framework's own source tree has one) is not.
dr_is_knowledge_base() {
  [ -e "$1/activeContext.md" ] || [ -e "$1/tasks.md" ] || [ -e "$1/backlog.md" ] || [ -d "$1/tasks" ] ||
    [ -d "$1/snapshots" ] || [ -d "$1/sessions" ]
}

# dr_new_knowledge_base <program> <root> <out-var>: sets <out-var> to the
# physical <root>/datarim when it holds no knowledge base yet, so that a write
# starts one there (often the sign of a mistaken --root), else to empty.
# Quiet: a root that cannot be resolved is for the write to report.
dr_new_knowledge_base() {
  local dr_nk_root
  printf -v "$3" '%s' ''
  dr_resolve_root "$1" "$2" dr_nk_root 2>/dev/null || return 0
  dr_is_knowledge_base "$dr_nk_root/datarim" || printf -v "$3" '%s' "$dr_nk_root/datarim"
}

# dr_new_knowledge_base_notice <program> <datarim-dir-or-empty>: the one line
# a writer says after starting a knowledge base (dr_new_knowledge_base).
dr_new_knowledge_base_notice() {
  [ -z "$2" ] || dr_err "$1" "created a new knowledge base in $2 (is --root right?)"
}

# dr_resolve_root <program> <root> <out-var>: the physical absolute root.
# Refuses (1) a missing root and one that is, or lies inside, a knowledge
# base's own datarim/ directory, which would build datarim/datarim/.
dr_resolve_root() {
  local abs part here=$PWD there=${OLDPWD-} CDPATH=''
  if [ ! -d "$2" ] || ! cd -P -- "$2" 2>/dev/null; then
    dr_err "$1" "--root is not a directory"
    return 1
  fi
  # cd -P sets PWD to the physical path; return at once (no subshell fork).
  abs=$PWD
  cd -- "$here" 2>/dev/null || {
    dr_err "$1" "cannot return to the working directory"
    return 1
  }
  OLDPWD=$there
  part=$abs
  while [ -n "$part" ] && [ "$part" != / ]; do
    if [ "${part##*/}" = datarim ] && dr_is_knowledge_base "$part"; then
      dr_err "$1" "--root lies inside a knowledge base's datarim/ directory; pass the workspace root"
      return 1
    fi
    part=${part%/*}
  done
  printf -v "$3" '%s' "$abs"
}

# dr_artifact_dir <program> <dir> [--check]: refuses a symlink standing in for
# <dir>, and creates it (parents too) as 700 whatever the umask when it is
# missing. With --check (a dry run) nothing is created: it only refuses what
# the write would refuse, a symlink, something that is no directory, or a
# missing <dir> whose nearest existing parent we may not write in or search.
dr_artifact_dir() {
  local parent
  if [ -L "$2" ]; then
    dr_err "$1" "datarim/${2##*/} is a symlink; refusing to write through it"
    return 1
  fi
  [ -d "$2" ] && return 0
  if [ "${3:-}" = --check ]; then
    parent=${2%/*}
    [ -e "$parent" ] || [ -L "$parent" ] || parent=${parent%/*}
    if [ -e "$2" ] || [ ! -d "$parent" ] || [ ! -w "$parent" ] || [ ! -x "$parent" ]; then
      dr_err "$1" "cannot create datarim/${2##*/}"
      return 1
    fi
    return 0
  fi
  if ! LC_ALL=C mkdir -p -- "${2%/*}" 2>/dev/null || ! LC_ALL=C mkdir -m 700 -- "$2" 2>/dev/null; then
    [ -d "$2" ] && [ ! -L "$2" ] && return 0 # a concurrent writer made it
    dr_err "$1" "cannot create datarim/${2##*/}"
    return 1
  fi
}

# The lock protocol (README "Hardening" describes it for other implementations):
# the lock is the directory <lock>, made with mkdir; a writer holds it once it
# has also created <lock>/owner exclusively (O_EXCL) with its owner record
#   pid=<pid>\nhost=<host>\nstart=<kernel start time of pid, or empty>\nimpl=<bash|python>\n
# A waiter may take over a lock that is provably orphaned: a complete record
# of a dead process on this host (the record is moved aside, re-read and
# compared before the waiter creates its own owner file), or a lock seen
# without a complete record for DR_LOCK_ORPHAN_GRACE seconds on end.

# dr_process_start <pid> <out-var>: the kernel's start time of <pid> (field 22
# of /proc/<pid>/stat), or empty where /proc is absent. With the pid it tells
# a live owner from a later process that happens to reuse the number.
dr_process_start() {
  local stat out=$2 IFS=' '
  printf -v "$out" '%s' ''
  [ -r "/proc/$1/stat" ] || return 0
  IFS= read -r stat <"/proc/$1/stat" 2>/dev/null || return 0
  # Fields after "(comm) ": state is field 3, so starttime (22) is the 20th.
  # shellcheck disable=SC2086
  set -- ${stat##*) }
  if [ $# -ge 20 ]; then printf -v "$out" '%s' "${20}"; fi
}

# dr_host_name <out-var>: the kernel's host name (what Python's gethostname gives).
dr_host_name() {
  local name=
  { IFS= read -r name || :; } 2>/dev/null </proc/sys/kernel/hostname || :
  printf -v "$1" '%s' "${name:-${HOSTNAME:-}}"
}

# dr_lock_owner_alive <pid> <start>: 0 when the process may be alive, 1 when
# it is provably gone (no such pid, a zombie, or the pid now names a process
# with another start time).
dr_lock_owner_alive() {
  local LC_ALL=C stat status=0 IFS=' '
  if [ -d /proc/self ]; then
    { IFS= read -r stat; } 2>/dev/null <"/proc/$1/stat" || return 1
    # shellcheck disable=SC2086
    set -- "$2" ${stat##*) }
    [ "$2" != Z ] || return 1
    [ -z "$1" ] || [ $# -lt 21 ] || [ "$1" = "${21}" ] || return 1
    return 0
  fi
  kill -0 "$1" 2>/dev/null && return 0
  # kill fails for another user's live process too; ps -p tells (1: no such process).
  ps -p "$1" >/dev/null 2>&1 || status=$?
  [ "$status" -ne 1 ]
}

# dr_lock_read_file <file> <out-var>: a lock file's bytes (at most 512); 1
# when there is no such file. Anything but a regular file (a FIFO would block
# the read, a symlink lead elsewhere) is never opened: it reads as "<not a
# regular file>"; a NUL ends the bytes with "<NUL>". Neither passes for a record.
dr_lock_read_file() {
  local LC_ALL=C lock_file_bytes='' nul=0
  if [ -L "$1" ] || { [ -e "$1" ] && [ ! -f "$1" ]; }; then
    printf -v "$2" '%s' '<not a regular file>'
    return 0
  fi
  { IFS= read -r -d '' -n 512 lock_file_bytes && nul=1; } 2>/dev/null <"$1" || [ -e "$1" ] || return 1
  # read stops at a NUL with 0, at the end with 1; 0 after exactly 512 bytes
  # says nothing of a NUL (and a record is never that long).
  if [ "$nul" = 1 ] && [ "${#lock_file_bytes}" -lt 512 ]; then lock_file_bytes+=$'\n<NUL>'; fi
  printf -v "$2" '%s' "$lock_file_bytes"
}

# dr_lock_is_record <bytes>: 0 when <bytes> is a complete owner record;
# BASH_REMATCH then holds its pid (1), host (2) and start (3).
dr_lock_is_record() {
  local LC_ALL=C re=$'^pid=([123456789][0123456789]{0,9})\nhost=([^\n]*)\nstart=([0123456789]*)\nimpl=[^\n]+\n$'
  [[ $1 =~ $re ]]
}

# dr_lock_read_owner <lock> <out-var>: dr_lock_read_file of <lock>/owner.
dr_lock_read_owner() {
  dr_lock_read_file "$1/owner" "$2"
}

# dr_lock_commit <lock> <record>: creates <lock>/owner exclusively. 0 created,
# 2 an owner file is already there or the lock is gone (not ours), 1 I/O error:
# the owner file could not be made, or made but not written (a full disk),
# and then it is removed again, never left as an empty record.
dr_lock_commit() {
  local restore='' opened='' written=''
  case $- in *C*) ;; *) restore=1 && set -C ;; esac
  { opened=1 && printf '%s' "$2" >&3 && written=1; } 3>"$1/owner" 2>/dev/null || :
  [ -z "$restore" ] || set +C
  [ -n "$written" ] && return 0
  if [ -n "$opened" ]; then
    rm -f -- "$1/owner" 2>/dev/null || :
    return 1
  fi
  if [ -e "$1/owner" ] || [ -L "$1/owner" ] || [ ! -d "$1" ]; then return 2; fi
  return 1
}

# dr_lock_put_back <lock> <aside>: links a moved-aside record back as the
# owner file (never over one: ln fails when the name is taken), then drops the
# aside name.
dr_lock_put_back() {
  LC_ALL=C ln -- "$2" "$1/owner" 2>/dev/null || :
  rm -f -- "$2" 2>/dev/null || :
}

# dr_lock_take_over <lock> <record> <seen>: moves the owner file aside,
# and if it still holds <seen> deletes it and commits <record>; otherwise puts
# it back. 0 when the lock is now ours, 1 when it is not, 5 when our owner
# file could not be written (dr_lock_commit's I/O error).
dr_lock_take_over() {
  local LC_ALL=C aside moved=
  aside=$1/owner.aside.${BASHPID:-$$}.$RANDOM
  mv -f -- "$1/owner" "$aside" 2>/dev/null || return 1
  dr_lock_read_file "$aside" moved || :
  if [ "$moved" != "$3" ]; then
    # Not the record we judged: a live writer's. Give it back.
    dr_lock_put_back "$1" "$aside"
    return 1
  fi
  rm -rf -- "$aside" 2>/dev/null || :
  dr_lock_claim "$1" "$2"
}

# dr_lock_claim <lock> <record>: dr_lock_commit on a lock found orphaned; 0
# ours, 1 not ours (another waiter was first), 5 I/O error.
dr_lock_claim() {
  local status=0
  dr_lock_commit "$1" "$2" || status=$?
  case $status in 0) return 0 ;; 2) return 1 ;; *) return 5 ;; esac
}

# dr_lock_restore_asides <lock> <host>: a lock without an owner file may hold
# a record a waiter moved aside and did not put back (killed, or paused, in
# step 5 of the protocol). A complete record of a process that may be alive
# (or of another host) goes back as the owner; anything else is dropped.
# Returns 0 when it put a record back.
dr_lock_restore_asides() {
  local LC_ALL=C aside record restored=1
  for aside in "$1"/owner.aside.*; do
    [ -e "$aside" ] || [ -L "$aside" ] || continue
    record=
    dr_lock_read_file "$aside" record || continue
    if dr_lock_is_record "$record" && { [ "${BASH_REMATCH[2]}" != "$2" ] || [ -z "$2" ] ||
      dr_lock_owner_alive "${BASH_REMATCH[1]}" "${BASH_REMATCH[3]}"; }; then
      dr_lock_put_back "$1" "$aside"
      restored=0
    else
      rm -rf -- "$aside" 2>/dev/null || :
    fi
  done
  return "$restored"
}

# dr_lock_recover <lock> <record>: one look at a lock we could not make; 0 when
# it was orphaned and is now ours, 5 when it was and our owner file could not
# be written. Keeps what it saw in the caller's
# dr_lock_seen and dr_lock_seen_polls/dr_lock_seen_since (locals of dr_lock_acquire).
dr_lock_recover() {
  local LC_ALL=C seen host
  dr_host_name host
  if dr_lock_read_owner "$1" seen; then
    if dr_lock_is_record "$seen"; then
      dr_lock_seen=
      # Another host's writer (shared filesystem) or a live one: only wait.
      [ -n "$host" ] && [ "${BASH_REMATCH[2]}" = "$host" ] || return 1
      dr_lock_owner_alive "${BASH_REMATCH[1]}" "${BASH_REMATCH[3]}" && return 1
      dr_lock_take_over "$1" "$2" "$seen"
      return
    fi
    seen="file:$seen"
  else
    # A live writer's record moved aside by a waiter that died or stalled
    # there: put it back rather than count an ownerless lock.
    if dr_lock_restore_asides "$1" "$host"; then
      dr_lock_seen=
      return 1
    fi
    seen=missing
  fi
  # No complete record: a writer between mkdir and its owner file, or one
  # killed there. Count the polls (and the clock, when polls run slow) that
  # saw the very same state.
  if [ "$seen" != "$dr_lock_seen" ]; then
    dr_lock_seen=$seen
    dr_lock_seen_polls=0
    dr_lock_seen_since=$SECONDS
    return 1
  fi
  dr_lock_seen_polls=$((dr_lock_seen_polls + 1))
  # SECONDS counts whole seconds: more than the grace by it is at least the grace.
  [ "$dr_lock_seen_polls" -ge $((DR_LOCK_ORPHAN_GRACE * 50)) ] ||
    [ $((SECONDS - dr_lock_seen_since)) -gt "$DR_LOCK_ORPHAN_GRACE" ] || return 1
  dr_lock_seen=
  if [ "$seen" = missing ]; then
    dr_lock_claim "$1" "$2"
  else
    dr_lock_take_over "$1" "$2" "${seen#file:}"
  fi
}

# dr_lock_path_ok <program> <lock-dir>: 1 after reporting a lock path we must
# never wait for: a symlink or a file that is no lock, or no lock at all in a
# directory we may not create it in (not writable, or not searchable). (Each
# test names a kind, so a lock released meanwhile is no match; when the
# directory is writable, the holder just released it.) The write asks after
# a failed mkdir, a dry run before any.
dr_lock_path_ok() {
  if [ -L "$2" ] || [ -f "$2" ] || [ -p "$2" ] || [ -S "$2" ] || [ -b "$2" ] || [ -c "$2" ]; then
    dr_err "$1" "lock ${2##*/} is a symlink or not a directory; remove it"
    return 1
  fi
  if [ ! -d "$2" ] && { [ ! -w "${2%/*}" ] || [ ! -x "${2%/*}" ]; }; then
    dr_err "$1" "cannot create lock ${2##*/}"
    return 1
  fi
}

# dr_end_on_interrupt: for an entry point's own shell, never a sourcing
# caller's. Ctrl-C then ends it by SIGINT at once: without a trap bash loses a
# SIGINT that lands between a child's fork and its exec (it waits for the
# child, which exits as if it had handled the signal), and a writer waiting
# for a lock would wait on for its whole timeout.
dr_end_on_interrupt() {
  trap 'trap - INT; kill -s INT "$$"' INT
}

# dr_lock_acquire <program> <lock-dir> <timeout-seconds>: takes the lock,
# polling every 20 ms; 0 held, 1 cannot lock, 3 timed out. A live writer's
# lock is never broken; an orphaned one is taken over (see above).
dr_lock_acquire() {
  local prog=$1 lock=$2 tries pid start host record status mkdir_error began=$SECONDS
  local dr_lock_seen='' dr_lock_seen_polls=0 dr_lock_seen_since=0 DR_LOCK_ORPHAN_GRACE=2
  tries=$(($3 * 50))
  pid=${BASHPID:-$$}
  dr_process_start "$pid" start
  dr_host_name host
  record="pid=$pid"$'\n'"host=$host"$'\n'"start=$start"$'\n'"impl=bash"$'\n'
  while :; do
    # When mkdir fails, a second one says why: "File exists" (a lock is
    # there: wait, or refuse what is no lock) or any other failure (a full
    # disk, a read-only one), which is final at once, as Python's OSError is.
    # A lock already there is seen without a fork: bash loses a Ctrl-C that
    # lands between a child's fork and its exec (it waits for the child, which
    # exits 1 as if it had handled the signal), and a contended poll would
    # fork a short child 50 times a second.
    mkdir_error=
    if [ -d "$lock" ] && [ ! -L "$lock" ]; then
      mkdir_error='File exists'
    fi
    if [ -z "$mkdir_error" ] && { LC_ALL=C mkdir -m 700 -- "$lock" 2>/dev/null ||
      mkdir_error=$(LC_ALL=C exec mkdir -m 700 -- "$lock" 2>&1); }; then
      status=0
      dr_lock_commit "$lock" "$record" || status=$?
      [ "$status" -eq 0 ] && return 0
      if [ "$status" -eq 1 ]; then
        rmdir -- "$lock" 2>/dev/null || :
        dr_err "$prog" "cannot record the owner of lock ${lock##*/}"
        return 1
      fi
      # 2: a waiter took our fresh lock over before we wrote the owner (we
      # stalled for the grace period); it is theirs now.
    elif ! dr_lock_path_ok "$prog" "$lock"; then
      return 1
    elif [ "${mkdir_error#*File exists}" = "$mkdir_error" ]; then
      dr_err "$prog" "cannot create lock ${lock##*/}"
      return 1
    else
      status=0
      dr_lock_recover "$lock" "$record" || status=$?
      [ "$status" -eq 0 ] && return 0
      if [ "$status" -eq 5 ]; then
        rmdir -- "$lock" 2>/dev/null || :
        dr_err "$prog" "cannot record the owner of lock ${lock##*/}"
        return 1
      fi
    fi
    # 50 polls a second, or the clock when polls run slow (a loaded machine).
    if [ "$tries" -le 0 ] || [ $((SECONDS - began)) -gt "$3" ]; then
      dr_err "$prog" "lock busy: another writer holds ${lock##*/} (waited $3 s); retry later"
      return 3
    fi
    tries=$((tries - 1))
    sleep 0.02 2>/dev/null || sleep 1
  done
}

# dr_lock_release <lock-dir>: removes the lock with whatever is in it. Tries
# again when a waiter that had moved our owner file aside puts it back meanwhile.
dr_lock_release() {
  LC_ALL=C rm -rf -- "$1" 2>/dev/null || LC_ALL=C rm -rf -- "$1" 2>/dev/null ||
    LC_ALL=C rm -rf -- "$1" 2>/dev/null || :
}

# dr_publish_target_ok <program> <dir> <name>: 1 after reporting that
# <dir>/<name> is a directory, which no rename may replace.
dr_publish_target_ok() {
  [ -d "$2/$3" ] && [ ! -L "$2/$3" ] || return 0
  dr_err "$1" "datarim/${2##*/}/$3 is a directory"
  return 1
}

# dr_publish_check <program> <dir> <name> <lock-dir>: what a write would refuse
# before writing a byte, checked without touching anything (a dry run): the
# directory (dr_artifact_dir --check), the lock path and the target.
dr_publish_check() {
  dr_artifact_dir "$1" "$2" --check || return 1
  [ -d "$2" ] || return 0 # made fresh by the write: nothing in it to refuse
  dr_lock_path_ok "$1" "$4" && dr_publish_target_ok "$1" "$2" "$3"
}

# dr_publish <program> <dir> <name> <tmp-tag> <content>: writes <content> to a
# private temp file in <dir> (mode 600), fsyncs it, removes a symlink standing
# at <dir>/<name> and renames the temp file over it. Call it holding the lock;
# it first clears temp files that a killed writer of the same tag left, and
# other tags' that are a day old.
dr_publish() {
  local prog=$1 dir=$2 target=$2/$3 tag=$4 tmp stale status foreign=
  for stale in "$dir/.tmp."*; do
    [ -e "$stale" ] || [ -L "$stale" ] || continue
    case ${stale#"$dir/.tmp."} in
      "$tag".*) rm -f -- "$stale" 2>/dev/null || : ;;
      *) foreign=1 ;;
    esac
  done
  # Other tags' temp files are live writers' or dead ones'; a day old, they
  # are dead (session IDs are new every session, so none would clear them).
  if [ -n "$foreign" ]; then
    LC_ALL=C find "$dir/." ! -name . -prune -name '.tmp.*' -type f -mtime +0 \
      -exec rm -f -- {} + 2>/dev/null || :
  fi
  dr_publish_target_ok "$prog" "$dir" "$3" || return 1
  tmp=$dir/.tmp.$tag.${BASHPID:-$$}.$RANDOM
  # One subshell: a private umask for the temp file (mode 600 from birth, and
  # the caller's umask untouched), then fsync through `sync FILE`. Where sync
  # takes no file operand (exit other than 90), a plain sync flushes all.
  status=0
  (
    umask 077
    printf '%s' "$5" >"$tmp" || exit 90
    LC_ALL=C exec sync -- "$tmp"
  ) 2>/dev/null || status=$?
  if [ "$status" -eq 90 ]; then
    rm -f -- "$tmp" 2>/dev/null || :
    dr_err "$prog" "cannot write a temporary file in datarim/${dir##*/}"
    return 1
  fi
  [ "$status" -eq 0 ] || sync || :
  if [ -L "$target" ]; then rm -f -- "$target" 2>/dev/null || :; fi
  if ! LC_ALL=C mv -f -- "$tmp" "$target" 2>/dev/null; then
    rm -f -- "$tmp" 2>/dev/null || :
    dr_err "$prog" "cannot rename the temporary file over ${target#"${dir%/*/*}"/}"
    return 1
  fi
}

# dr_artifact_state <file> <msg-var>: 0 when <file> is a readable regular
# file; else sets <msg-var> and returns 1 (missing) or 2 (a symlink, or not
# a readable regular file). Validators call it before reading an artefact.
dr_artifact_state() {
  printf -v "$2" '%s' ''
  if [ -L "$1" ]; then
    printf -v "$2" '%s' 'is a symlink'
    return 2
  fi
  if [ ! -e "$1" ]; then
    printf -v "$2" '%s' 'is missing'
    return 1
  fi
  if [ ! -f "$1" ] || [ ! -r "$1" ]; then
    printf -v "$2" '%s' 'is not a readable regular file'
    return 2
  fi
}

# dr_discover_root <root-var> <reason-var> [<start>]: the workspace root of a
# reader or hook given no --root (spec §8), looked for from <start> (an
# absolute path; default the current directory) upwards: the git top level
# when its datarim/ is a knowledge base (reason git-top-level), else the
# nearest directory whose datarim/ is one (nearest-knowledge-base), else
# <start> itself (current-directory). The one rule every reader and hook
# follows; <reason-var> says which part of it chose (doctor prints it).
# The git top level is found the way git finds it, without running git: the
# nearest directory holding .git (a gitfile, or a directory with HEAD),
# never looking above an entry of GIT_CEILING_DIRECTORIES.
dr_discover_root() {
  local start=${3:-${PWD:-/}} dir nearest='' searching_git=1 ceilings=: rest entry
  rest=${GIT_CEILING_DIRECTORIES:-}
  while [ -n "$rest" ]; do
    entry=${rest%%:*}
    rest=${rest#"$entry"}
    rest=${rest#:}
    case $entry in /?*/) entry=${entry%/} ;; esac
    ceilings=$ceilings$entry:
  done
  dir=$start
  while :; do
    # "$dir" is "" once the walk reaches /, so "$dir/datarim" is /datarim.
    if [ -n "$searching_git" ] && { [ -f "$dir/.git" ] || [ -f "$dir/.git/HEAD" ]; }; then
      searching_git=
      if dr_is_knowledge_base "$dir/datarim"; then
        printf -v "$1" '%s' "${dir:-/}"
        printf -v "$2" '%s' git-top-level
        return 0
      fi
      [ -z "$nearest" ] || break
    fi
    if [ -z "$nearest" ] && dr_is_knowledge_base "$dir/datarim"; then
      nearest=${dir:-/}
      [ -n "$searching_git" ] || break
    fi
    [ -z "$dir" ] || [ "$dir" = / ] && break
    dir=${dir%/*}
    case $ceilings in *":${dir:-/}:"*) searching_git= ;; esac
    [ -n "$searching_git" ] || [ -z "$nearest" ] || break
  done
  if [ -n "$nearest" ]; then
    printf -v "$1" '%s' "$nearest"
    printf -v "$2" '%s' nearest-knowledge-base
    return 0
  fi
  printf -v "$1" '%s' "$start"
  printf -v "$2" '%s' current-directory
}

# dr_find_root <out-var> [<start>]: dr_discover_root's root alone.
dr_find_root() {
  # shellcheck disable=SC2034 # the reason is not wanted here
  local dr_find_root_reason
  dr_discover_root "$1" dr_find_root_reason "${2:-}"
}

# dr_checker_flags <program> <id-flag> <self-test-fn> <done-var> "$@": how
# every validator starts. Parses <id-flag> (e.g. --task), --root,
# --validate-frontmatter (accepted, changes nothing) and --self-test into the
# caller's opt_* locals. Sets <done-var> to 1 when the command is over (help
# printed: 0; --self-test run: its status; usage error: 3) and returns that
# code; else returns 0 with <done-var> empty, opt_<id> and opt_root set.
dr_checker_flags() {
  local dr_cf_prog=$1 dr_cf_flag=$2 dr_cf_test=$3 dr_cf_done=$4 dr_cf_status=0 dr_cf_id
  shift 4
  printf -v "$dr_cf_done" '%s' 1
  dr_parse_flags "$dr_cf_prog" "$dr_cf_flag= --root= --validate-frontmatter --self-test" "" "$@" ||
    dr_cf_status=$?
  if [ "$dr_cf_status" -eq 4 ]; then
    dr_usage "$dr_cf_prog"
    return 0
  fi
  [ "$dr_cf_status" -eq 0 ] || return 3
  if [ -n "$opt_self_test" ]; then
    "$dr_cf_test"
    return $?
  fi
  eval "dr_cf_id=\${opt_${dr_cf_flag#--}}"
  if [ -z "$dr_cf_id" ]; then
    dr_err "$dr_cf_prog" "missing required flag(s): $dr_cf_flag"
    return 3
  fi
  printf -v "$dr_cf_done" '%s' ''
}

# dr_reader_root <program> <root-flag> <out-var>: the root a reader works in:
# --root when given (it must be a directory), else dr_discover_root's. Returns 3
# (usage) after reporting a --root that is not a directory.
dr_reader_root() {
  if [ -z "$2" ]; then
    dr_find_root "$3"
    return 0
  fi
  if [ ! -d "$2" ]; then
    dr_err "$1" "--root is not a directory"
    return 3
  fi
  printf -v "$3" '%s' "$2"
}

# dr_refuse_symlinked <program> <root> <subdir>: 2 after reporting that
# <root>/datarim/<subdir> is a symlink (a reader never follows one), else 0.
dr_refuse_symlinked() {
  [ -L "$2/datarim/$3" ] || return 0
  dr_err "$1" "datarim/$3 is a symlink"
  return 2
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

[ -z "${_dr_aliases_datarim_common-}" ] || shopt -s expand_aliases
unset _dr_aliases_datarim_common
