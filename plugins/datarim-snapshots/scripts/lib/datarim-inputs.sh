# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_inputs.py
# Bounded reading of what a command is handed: input files and "-" (the
# standard input, at most one flag a call), read up to a limit with builtins
# only. (The state of an artefact a validator is about to read: datarim-reading.sh.)
# datarim-common.sh loads this file; sourcing it defines dr_* functions and
# nothing else, and the second time costs nothing.
declare -F dr_read_prefix >/dev/null 2>&1 && return 0

# Aliases off while this file is read (see datarim-common.sh).
if shopt -q expand_aliases; then _dr_aliases_datarim_inputs=1 && shopt -u expand_aliases; fi

# What only readers, validators and hooks use is in datarim-reading.sh, which a
# write never reads: each of these loads it on its first call (dr_autoload).
dr_artifact_state() { dr_autoload datarim-reading.sh dr_artifact_state "$@"; }

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

[ -z "${_dr_aliases_datarim_inputs-}" ] || shopt -s expand_aliases
unset _dr_aliases_datarim_inputs
