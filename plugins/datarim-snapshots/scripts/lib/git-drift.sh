# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_git_drift.py
# The replay side of git anchoring (docs/replay.md, the drift notice):
# whether the code has moved on since a snapshot recorded where it stood
# (git-anchor.sh), and the notice that says so above the replay prompt.
#
#   git_drift_facts <root> <extra> <out-var>   the drift facts
#   git_drift_notice <facts> <out-var>         the notice block
#
# DATARIM_SNAPSHOT_GIT=0 turns it off (no git call at all). Sourcing defines
# functions only; nothing of the caller's shell changes.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_git_drift=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac
dr_source git-anchor.sh

# git_drift_facts <root> <extra> <out-var>: <extra> holds a validated
# snapshot's optional fields ("<key> <value>" lines). When it records a
# git_head that is not the current HEAD of <root>'s repository, <out-var>
# gets eight lines: recorded head, recorded branch, recorded dirty (empty:
# not recorded), current
# head, current branch (empty when detached), relation (ahead: the recorded
# commit is an ancestor of HEAD; apart: it exists but is not; missing: it
# does not exist), commits only on HEAD's side, commits only on the
# recorded side (both empty when missing). When git did not answer within
# git_anchor_seconds, it is "unchecked". Else it is empty.
git_drift_facts() {
  local LC_ALL=C rest=$2 line recorded='' rbranch='' rdirty='' dir current cbranch
  local counts ahead='' behind='' relation=missing status=0
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
  git_anchor_head "$dir" current cbranch || status=$?
  if [ "$status" -ne 0 ]; then
    ! git_anchor_timed_out "$status" || printf -v "$3" '%s' unchecked
    return 0
  fi
  [ "$current" != "$recorded" ] || return 0
  if counts=$(git_anchor_git "$dir" rev-list --left-right --count "$recorded...$current"); then
    behind=${counts%%[!0-9]*}
    ahead=${counts##*[!0-9]}
    relation=apart
    [ "$behind" != 0 ] || relation=ahead
  else
    status=$?
    if git_anchor_timed_out "$status"; then
      printf -v "$3" '%s' unchecked
      return 0
    fi
  fi
  printf -v "$3" '%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s' "$recorded" "$rbranch" "$rdirty" \
    "$current" "$cbranch" "$relation" "$ahead" "$behind"
}

# git_drift_commits <n> <out-var>: "1 commit", "<n> commits".
git_drift_commits() {
  if [ "$1" = 1 ]; then printf -v "$2" '1 commit'; else printf -v "$2" '%s commits' "$1"; fi
}

# git_drift_where <sha> <branch> <dirty> <out-var>: "<sha> (branch <b>)" or
# "<sha> (detached HEAD)", with ", uncommitted changes" when dirty is true.
git_drift_where() {
  local where
  if [ -n "$2" ]; then where="branch $2"; else where='detached HEAD'; fi
  [ "$3" != true ] || where="$where, uncommitted changes"
  printf -v "$4" '%s (%s)' "$1" "$where"
}

# git_drift_fill <template> <out-var> [<name> <value>]...: <template> with
# every {name} replaced by its value, left to right in one pass: a value is
# never read again, so a branch called "{current}" stays as it is.
git_drift_fill() {
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

# git_drift_notice <facts> <out-var>: the notice block for git_drift_facts's
# facts (scripts/lib/text/drift-*.txt), ending in a blank line; empty
# when <facts> is.
git_drift_notice() {
  local LC_ALL=C dir frame relation recorded current ahead behind rest=$1$'\n' n=0 seconds
  local -a f=()
  printf -v "$2" '%s' ''
  [ -n "$1" ] || return 0
  if [ "$1" = unchecked ]; then
    dr_lib_dir_into dir
    IFS= read -r -d '' frame <"$dir/text/drift-unchecked.txt" || :
    git_anchor_seconds seconds
    git_drift_fill "$frame" "$2" seconds "$seconds"
    return 0
  fi
  while [ -n "$rest" ]; do
    f[n]=${rest%%$'\n'*}
    rest=${rest#*$'\n'}
    n=$((n + 1))
  done
  dr_lib_dir_into dir
  IFS= read -r -d '' frame <"$dir/text/drift-notice.txt" || :
  IFS= read -r -d '' relation <"$dir/text/drift-${f[5]}.txt" || :
  git_drift_where "${f[0]}" "${f[1]}" "${f[2]}" recorded
  git_drift_where "${f[3]}" "${f[4]}" '' current
  git_drift_commits "${f[6]}" ahead
  git_drift_commits "${f[7]}" behind
  git_drift_fill "${relation%$'\n'}" relation ahead "$ahead" behind "$behind" \
    recorded_head "${f[0]}" current_head "${f[3]}"
  git_drift_fill "$frame" "$2" recorded "$recorded" current "$current" relation "$relation"
}

[ -z "${_dr_aliases_git_drift-}" ] || shopt -s expand_aliases
unset _dr_aliases_git_drift
