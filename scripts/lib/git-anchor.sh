# shellcheck shell=bash
# Git anchoring of stage snapshots (README "Trust: redaction and drift"):
# where the code stood when a snapshot was written, and on replay whether it
# has moved on since. Mirrors python/src/datarim_snapshot/anchor.py.
#
#   git_anchor_probe <root> <out-var>      the writer's facts (head, branch, dirty)
#   git_anchor_drift <root> <extra> <out-var>   the replay's drift facts
#   git_anchor_notice <facts> <out-var>    the notice block above the replay prompt
#
# DATARIM_SNAPSHOT_GIT=0 turns all of it off (no git call at all). Sourcing
# defines functions only; nothing of the caller's shell changes.

_git_anchor_load() {
  local dir=${BASH_SOURCE[0]}
  case $dir in */*) dir=${dir%/*} ;; *) dir=. ;; esac
  # shellcheck source=scripts/lib/datarim-common.sh
  . "$dir/datarim-common.sh"
}
_git_anchor_load
unset -f _git_anchor_load

# git_anchor_work_tree <root> <out-var>: 0 when <root> (resolved to its
# physical path, stored in <out-var>) or a directory above it holds a .git
# entry, looking no higher than git would under GIT_CEILING_DIRECTORIES.
# Builtins only: a workspace outside git costs no fork. Git has the last word.
git_anchor_work_tree() {
  local LC_ALL=C ga_dir ga_ceilings
  [ "${DATARIM_SNAPSHOT_GIT:-}" != 0 ] || return 1
  dr_resolve_root git-anchor "$1" ga_dir 2>/dev/null || return 1
  printf -v "$2" '%s' "$ga_dir"
  ga_ceilings=:${GIT_CEILING_DIRECTORIES:-}:
  while :; do
    [ ! -e "$ga_dir/.git" ] || return 0
    [ -n "$ga_dir" ] && [ "$ga_dir" != / ] || return 1
    ga_dir=${ga_dir%/*}
    case $ga_ceilings in *":${ga_dir:-/}:"*) return 1 ;; esac
  done
}

# git_anchor_git <dir> <git args...>: runs git on the repository of <dir>,
# whatever GIT_DIR & co. a calling git hook left in the environment, stderr
# discarded. Replaces the shell: call it only inside $( ) or <( ).
git_anchor_git() {
  local dir=$1
  shift
  unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_COMMON_DIR GIT_OBJECT_DIRECTORY \
    GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_NAMESPACE GIT_PREFIX
  exec git -C "$dir" --no-optional-locks "$@" 2>/dev/null
}

# git_anchor_probe <root> <out-var>: "<head>\n<branch>\n<dirty>" when <root>
# is in a git work tree whose HEAD is a commit (branch empty when HEAD is
# detached; dirty true when anything outside <root>/datarim/ differs from
# HEAD, untracked files included); else empty. One git call: the header of
# `git status --porcelain=v2 --branch`, read up to the first changed entry.
git_anchor_probe() {
  local LC_ALL=C dir line head='' branch='' dirty=false
  printf -v "$2" '%s' ''
  git_anchor_work_tree "$1" dir || return 0
  command -v git >/dev/null 2>&1 || return 0
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
  [ "$branch" != '(detached)' ] || branch=''
  case $head in '' | '(initial)') return 0 ;; esac
  printf -v "$2" '%s\n%s\n%s' "$head" "$branch" "$dirty"
}

# git_anchor_drift <root> <extra> <out-var>: <extra> holds a validated
# snapshot's optional fields ("<key> <value>" lines). When it records a
# git_head that is not the current HEAD of <root>'s repository, <out-var>
# gets eight lines: recorded head, recorded branch, recorded dirty, current
# head, current branch (empty when detached), relation (ahead: the recorded
# commit is an ancestor of HEAD; apart: it exists but is not; missing: it
# does not exist), commits only on HEAD's side, commits only on the
# recorded side (both empty when missing). Else it is empty.
git_anchor_drift() {
  local LC_ALL=C rest=$2 line recorded='' rbranch='' rdirty=false dir out current cbranch
  local counts ahead='' behind='' relation=missing
  printf -v "$3" '%s' ''
  while [ -n "$rest" ]; do
    line=${rest%%$'\n'*}
    rest=${rest#*$'\n'}
    case $line in
      'git_head '*) recorded=${line#git_head } ;;
      'git_branch '*) rbranch=${line#git_branch } ;;
      'git_dirty '*) rdirty=${line#git_dirty } ;;
    esac
  done
  [ -n "$recorded" ] || return 0
  git_anchor_work_tree "$1" dir || return 0
  command -v git >/dev/null 2>&1 || return 0
  out=$(git_anchor_git "$dir" rev-parse HEAD --symbolic-full-name HEAD) || return 0
  current=${out%%$'\n'*}
  cbranch=${out#*$'\n'}
  [ "$current" != "$recorded" ] || return 0
  case $cbranch in refs/heads/?*) cbranch=${cbranch#refs/heads/} ;; *) cbranch='' ;; esac
  if counts=$(git_anchor_git "$dir" rev-list --left-right --count "$recorded...$current"); then
    behind=${counts%%[!0-9]*}
    ahead=${counts##*[!0-9]}
    relation=apart
    [ "$behind" != 0 ] || relation=ahead
  fi
  printf -v "$3" '%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s' "$recorded" "$rbranch" "$rdirty" \
    "$current" "$cbranch" "$relation" "$ahead" "$behind"
}

# git_anchor_commits <n> <out-var>: "1 commit", "<n> commits".
git_anchor_commits() {
  if [ "$1" = 1 ]; then printf -v "$2" '1 commit'; else printf -v "$2" '%s commits' "$1"; fi
}

# git_anchor_where <sha> <branch> <dirty> <out-var>: "<sha> (branch <b>)" or
# "<sha> (detached HEAD)", with ", uncommitted changes" when dirty is true.
git_anchor_where() {
  local where
  if [ -n "$2" ]; then where="branch $2"; else where='detached HEAD'; fi
  [ "$3" != true ] || where="$where, uncommitted changes"
  printf -v "$4" '%s (%s)' "$1" "$where"
}

# git_anchor_fill <template> <out-var> [<name> <value>]...: <template> with
# every {name} replaced by its value, left to right in one pass: a value is
# never read again, so a branch called "{current}" stays as it is.
git_anchor_fill() {
  local LC_ALL=C ga_rest=$1 ga_out='' ga_var=$2 ga_i ga_name ga_next
  shift 2
  while :; do
    case $ga_rest in *'{'*) ;; *) break ;; esac
    ga_out=$ga_out${ga_rest%%'{'*}
    ga_rest=${ga_rest#*'{'}
    ga_next='{'
    ga_i=1
    while [ "$ga_i" -lt $# ]; do
      ga_name=${!ga_i}
      ga_i=$((ga_i + 1))
      case $ga_rest in "$ga_name}"*)
        ga_next=${!ga_i}
        ga_rest=${ga_rest#"$ga_name}"}
        break
        ;;
      esac
      ga_i=$((ga_i + 1))
    done
    ga_out=$ga_out$ga_next
  done
  printf -v "$ga_var" '%s' "$ga_out$ga_rest"
}

# git_anchor_notice <facts> <out-var>: the notice block for git_anchor_drift's
# facts (scripts/lib/text/drift-*.txt), ending in a blank line; empty
# when <facts> is.
git_anchor_notice() {
  local LC_ALL=C dir frame relation recorded current ahead behind rest=$1$'\n' n=0
  local -a f=()
  printf -v "$2" '%s' ''
  [ -n "$1" ] || return 0
  while [ -n "$rest" ]; do
    f[n]=${rest%%$'\n'*}
    rest=${rest#*$'\n'}
    n=$((n + 1))
  done
  dr_lib_dir_into dir
  IFS= read -r -d '' frame <"$dir/text/drift-notice.txt" || :
  IFS= read -r -d '' relation <"$dir/text/drift-${f[5]}.txt" || :
  git_anchor_where "${f[0]}" "${f[1]}" "${f[2]}" recorded
  git_anchor_where "${f[3]}" "${f[4]}" '' current
  git_anchor_commits "${f[6]}" ahead
  git_anchor_commits "${f[7]}" behind
  git_anchor_fill "${relation%$'\n'}" relation ahead "$ahead" behind "$behind" \
    recorded_head "${f[0]}" current_head "${f[3]}"
  git_anchor_fill "$frame" "$2" recorded "$recorded" current "$current" relation "$relation"
}
