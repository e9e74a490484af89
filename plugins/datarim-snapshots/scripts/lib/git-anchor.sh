# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_git_anchor.py
# Git anchoring of stage snapshots (docs/replay.md, the drift notice):
# where the code stood when a snapshot was written. Its replay side, whether
# the code has moved on since, is git-drift.sh.
#
#   git_anchor_probe <root> <out-var> [full]  the writer's facts (head, branch, dirty)
#
# DATARIM_SNAPSHOT_GIT=0 turns all of it off (no git call at all). Sourcing
# defines functions only; nothing of the caller's shell changes.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_git_anchor=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac

# git_anchor_work_tree <root> <out-var> [<top-var>]: 0 when <root> (resolved
# to its physical path, stored in <out-var>) or a directory above it (stored
# in <top-var>) holds a .git entry, looking no higher than git would under
# GIT_CEILING_DIRECTORIES. Builtins only: a workspace outside git costs no
# fork. Git has the last word.
git_anchor_work_tree() {
  local LC_ALL=C ga_dir ga_ceilings
  [ "${DATARIM_SNAPSHOT_GIT:-}" != 0 ] || return 1
  dr_resolve_root git-anchor "$1" ga_dir 2>/dev/null || return 1
  printf -v "$2" '%s' "$ga_dir"
  ga_ceilings=:${GIT_CEILING_DIRECTORIES:-}:
  while :; do
    if [ -e "$ga_dir/.git" ]; then
      [ -z "${3:-}" ] || printf -v "$3" '%s' "$ga_dir"
      return 0
    fi
    [ -n "$ga_dir" ] && [ "$ga_dir" != / ] || return 1
    ga_dir=${ga_dir%/*}
    case $ga_ceilings in *":${ga_dir:-/}:"*) return 1 ;; esac
  done
}

# git_anchor_git <dir> <git args...>: runs git on the repository of <dir>,
# whatever GIT_DIR & co. a calling git hook left in the environment, stderr
# discarded, for at most git_anchor_seconds (a hook has a deadline: a hung git
# must not cost the resume; git_anchor_timed_out tells its status). Replaces
# the shell: call it only inside $( ) or <( ).
git_anchor_git() {
  local dir=$1 seconds
  shift
  unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_COMMON_DIR GIT_OBJECT_DIRECTORY \
    GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_NAMESPACE GIT_PREFIX
  git_anchor_seconds seconds
  set -- git -C "$dir" --no-optional-locks "$@"
  # timeout (coreutils, BusyBox) where the system has it; macOS has none.
  if command -v timeout >/dev/null 2>&1; then set -- timeout -k 1 "$seconds" "$@"; fi
  exec "$@" 2>/dev/null
}

# git_anchor_seconds <out-var>: how long one git call may take,
# DATARIM_GIT_TIMEOUT whole seconds (1 and up; default, or anything else, 4).
git_anchor_seconds() {
  local LC_ALL=C value=${DATARIM_GIT_TIMEOUT:-}
  case $value in '' | *[!0-9]* | 0 | 0*) value=4 ;; esac
  [ ${#value} -le 4 ] || value=4
  printf -v "$1" '%s' "$value"
}

# git_anchor_timed_out <status>: 0 when a git_anchor_git status is timeout's
# (124 from coreutils, 143 or 137 from a signal as BusyBox reports it).
git_anchor_timed_out() {
  case $1 in 124 | 137 | 143) return 0 ;; esac
  return 1
}

# git_anchor_index_large <top>: 0 when the index of the work tree whose .git
# entry is in <top> lists more than 10,000 entries, the most whose dirtiness a
# snapshot write checks (spec §11): telling dirty from clean stats every tracked
# file, 130-340 ms in a 50,000-file work tree against a 25 ms write
# (docs/performance.md; Python: DIRTY_CHECK_LIMIT). Reads the index's header:
# "DIRC", version, entry count (big-endian). A .git file names the git
# directory ("gitdir: <path>", relative to <top> or absolute). Builtins only;
# an index that cannot be read is small (git says what it holds).
git_anchor_index_large() {
  local LC_ALL=C git_dir=$1/.git line byte code count=0 i signature=DIRC limit=10000
  if [ -f "$git_dir" ]; then
    IFS= read -r line <"$git_dir" || [ -n "$line" ] || return 1
    case $line in 'gitdir: '*) git_dir=${line#gitdir: } ;; *) return 1 ;; esac
    case $git_dir in /*) ;; *) git_dir=$1/$git_dir ;; esac
  fi
  [ -f "$git_dir/index" ] && [ -r "$git_dir/index" ] || return 1
  {
    for ((i = 0; i < 12; i++)); do
      IFS= read -r -d '' -n 1 byte || return 1 # a NUL reads as ''
      printf -v code '%d' "'$byte"
      case $i in
        0 | 1 | 2 | 3) [ "$byte" = "${signature:i:1}" ] || return 1 ;;
        8 | 9 | 10 | 11) count=$((count * 256 + code)) ;;
      esac
    done
  } <"$git_dir/index"
  [ "$count" -gt "$limit" ]
}

# git_anchor_probe <root> <out-var> [full]: "<head>\n<branch>\n<dirty>" when
# <root> is in a git work tree whose HEAD is a commit (branch empty when HEAD
# is detached; dirty true when anything outside <root>/datarim/ differs from
# HEAD, untracked files included; empty, not checked, when the index lists
# more than 10,000 entries, unless "full"); else empty. One git
# call: the header of `git status --porcelain=v2 --branch`, read up to the
# first changed entry; or, unchecked, `git rev-parse` of HEAD and its ref.
git_anchor_probe() {
  local LC_ALL=C dir top line head='' branch='' dirty=false status
  printf -v "$2" '%s' ''
  git_anchor_work_tree "$1" dir top || return 0
  command -v git >/dev/null 2>&1 || return 0
  if [ "${3:-}" != full ] && git_anchor_index_large "$top"; then
    # Dirtiness not checked: "<head>\n<branch>\n"; nothing when git fails.
    git_anchor_head "$dir" head branch || return 0
    printf -v "$2" '%s\n%s\n' "$head" "$branch"
    return 0
  fi
  while IFS= read -r line; do
    case $line in
      '# branch.oid '*) head=${line#'# branch.oid '} ;;
      '# branch.head '*) branch=${line#'# branch.head '} ;;
      '# '*) ;;
      *)
        dirty=true
        break
        ;;
    esac
  done < <(git_anchor_git "$dir" status --porcelain=v2 --branch --no-ahead-behind -- ':(exclude)datarim')
  # A git that ran out of time wrote a header at most: no anchor, as in Python.
  # ($! is the process substitution's from bash 4.4 on; before, wait fails.)
  if [ "$dirty" = false ]; then
    status=0
    wait "$!" 2>/dev/null || status=$?
    ! git_anchor_timed_out "$status" || return 0
  fi
  [ "$branch" != '(detached)' ] || branch=''
  case $head in '' | '(initial)') return 0 ;; esac
  printf -v "$2" '%s\n%s\n%s' "$head" "$branch" "$dirty"
}

# git_anchor_head <dir> <head-var> <branch-var>: HEAD's commit and branch
# from `git rev-parse HEAD --symbolic-full-name HEAD`: the commit, then
# refs/heads/<branch> (anything else: detached, the branch empty). Returns
# git's status (git_anchor_timed_out tells a timeout); the values mean
# nothing unless it is 0 (HEAD is no commit yet, say).
git_anchor_head() {
  local LC_ALL=C ga_out ga_ref ga_status=0
  ga_out=$(git_anchor_git "$1" rev-parse HEAD --symbolic-full-name HEAD) || ga_status=$?
  ga_ref=${ga_out#*$'\n'}
  case $ga_ref in refs/heads/?*) ga_ref=${ga_ref#refs/heads/} ;; *) ga_ref='' ;; esac
  printf -v "$2" '%s' "${ga_out%%$'\n'*}"
  printf -v "$3" '%s' "$ga_ref"
  return "$ga_status"
}

[ -z "${_dr_aliases_git_anchor-}" ] || shopt -s expand_aliases
unset _dr_aliases_git_anchor
