# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_publish.py
# The atomic publish step: the artefact directory (700), a private temp file
# (600) in the held lock, fsync, and a rename over the target.
# datarim-common.sh loads this file; sourcing it defines dr_* functions and
# nothing else, and the second time costs nothing.
declare -F dr_publish >/dev/null 2>&1 && return 0

# Aliases off while this file is read (see datarim-common.sh).
if shopt -q expand_aliases; then _dr_aliases_datarim_publish=1 && shopt -u expand_aliases; fi

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

# dr_publish <program> <dir> <name> <tag> <content> [<sweep>]: writes
# <content> to a private temp file (mode 600) inside the lock <dir>/.lock.<tag>
# the caller holds, fsyncs it, removes a symlink standing at <dir>/<name> and
# renames the temp file over it. A writer killed before the rename leaves its
# temp file in its lock. With <sweep> non-empty (the lock was just taken over
# from a dead writer), it first removes the temp files the dead writer left in
# the lock, so a lock never holds more than one however many writers die in
# a row, and the <dir>/.tmp.<tag>.* files that writers of earlier versions
# left in <dir>.
dr_publish() {
  local prog=$1 dir=$2 target=$2/$3 lock=$2/.lock.$4 tmp stale status
  if [ -n "${6:-}" ]; then
    for stale in "$lock/tmp."* "$dir/.tmp.$4."*; do
      if [ -f "$stale" ] && [ ! -L "$stale" ]; then rm -f -- "$stale" 2>/dev/null || :; fi
    done
  fi
  dr_publish_target_ok "$prog" "$dir" "$3" || return 1
  tmp=$lock/tmp.${BASHPID:-$$}.$RANDOM
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

[ -z "${_dr_aliases_datarim_publish-}" ] || shopt -s expand_aliases
unset _dr_aliases_datarim_publish
