# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_session_probes.py
# Claim re-verification probes (spec §5): does what a session handoff
# says still hold in the live repositories? Each probe sets a banner variable
# when it fails; the resume prints those banners ahead of the replay prompt.
#
#   session_probe_stale <repo> <label> <saved-sha> <banner-var> [upstream]
#   session_probe_sha <repo> <label> <sha> <banner-var> [<path>...]
#   session_probe_file <root> <path> <banner-var>
#   reverify_session_claims --stale|--sha-presence|--file-missing ...   (the command line)
#
# Probes never lie: an abbreviated or upper-case SHA naming the current HEAD
# is not stale; a saved SHA is read as an object name only, and a commit git
# does not know is never called "landed"; a repository without an upstream
# branch says so. Git runs in <repo> only (no GIT_DIR & co. from the caller),
# reads only, and gets paths after "--". Each git call has at most
# DATARIM_GIT_TIMEOUT seconds (git_anchor_seconds): a probe whose git did not
# answer says so ("<label> cannot be checked: git did not answer within <n>
# s", code 3) and concludes nothing else.
#
# Sourcing defines functions only; nothing of the caller's shell changes.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_session_probes=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac
dr_source git-anchor.sh

# session_sha_ok <sha>: 7 to 40 hexadecimal digits.
session_sha_ok() {
  local LC_ALL=C re='^[0123456789abcdefABCDEF]{7,40}$'
  [[ $1 =~ $re ]]
}

# session_path_ok <path>: a path a probe may use: 1 to 4096 bytes, no control character.
session_path_ok() {
  local LC_ALL=C
  [ -n "$1" ] && [ ${#1} -le 4096 ] && case $1 in *[$'\001'-$'\037'$'\177']*) false ;; esac
}

# session_git <repo> <git-args...>: git_anchor_git (git confined to <repo>,
# errors silenced, at most git_anchor_seconds; git_anchor_timed_out tells its
# status) with pathspecs taken literally.
session_git() {
  (
    export GIT_LITERAL_PATHSPECS=1
    git_anchor_git "$@"
  )
}

# session_git_into <out-var> <repo> <git-args...>: session_git's output in
# <out-var> and its status; a git that ran out of time also sets the probe's
# session_git_hung (declared local by each probe), whatever the caller makes of
# the status.
session_git_into() {
  local status=0 sgi_out
  sgi_out=$(session_git "${@:2}") || status=$?
  printf -v "$1" '%s' "$sgi_out"
  ! git_anchor_timed_out "$status" || session_git_hung=1
  return "$status"
}

# session_work_tree <repo>: 0 when <repo> is inside a git work tree.
session_work_tree() {
  local inside=''
  [ -d "$1" ] || return 1
  session_git_into inside "$1" rev-parse --is-inside-work-tree || return 1
  [ "$inside" = true ]
}

# session_no_tree <label> <out-var>: why <label> could not be probed: it is
# not a git work tree, there is no git to ask ("<label> cannot be checked:
# git is not on PATH"), or git did not answer in time (session_git_hung),
# which are not the same news.
session_no_tree() {
  local seconds
  if [ -n "${session_git_hung-}" ]; then
    git_anchor_seconds seconds
    printf -v "$2" '%s cannot be checked: git did not answer within %s s' "$1" "$seconds"
  elif command -v git >/dev/null 2>&1; then
    printf -v "$2" '%s is not a git work tree' "$1"
  else
    printf -v "$2" '%s cannot be checked: git is not on PATH' "$1"
  fi
}

# session_lower <sha> <out-var>: the SHA with A-F in lower case.
session_lower() {
  local s=$1
  s=${s//A/a} s=${s//B/b} s=${s//C/c} s=${s//D/d} s=${s//E/e} s=${s//F/f}
  printf -v "$2" '%s' "$s"
}

# session_probe_stale <repo> <label> <saved-sha> <banner-var> [upstream]: 0
# when HEAD is still the saved commit; else a banner and 1 (it moved on) or 3
# (not a git work tree, or git did not answer). With "upstream", the
# reference's --stale (spec §8): the upstream branch (see
# session_upstream_ref; origin/main as a rule) in place of HEAD, and 5 when
# there is no such branch.
session_probe_stale() {
  local ref=HEAD saved_head='HEAD ' short current='' saved why session_git_hung=''
  printf -v "$4" '%s' ''
  [ -z "${5:-}" ] || saved_head=''
  if ! session_work_tree "$1" ||
    {
      [ -z "${5:-}" ] || session_upstream_ref "$1" ref
      session_git_into current "$1" rev-parse -q --verify "$ref^{commit}" || current=''
      [ -n "$session_git_hung" ]
    }; then
    session_no_tree "$2" why
    printf -v "$4" 'STALE SNAPSHOT: %s (saved %s%s)' "$why" "$saved_head" "$3"
    return 3
  fi
  short=${ref#refs/remotes/}
  short=${short#refs/heads/}
  if [ -z "$current" ] && [ -n "${5:-}" ]; then
    printf -v "$4" 'STALE SNAPSHOT: %s cannot be checked: %s has no %s.' "$2" "$2" "$short"
    return 5
  fi
  session_lower "$3" saved
  case $current in "$saved"*) return 0 ;; esac
  printf -v "$4" 'STALE SNAPSHOT: %s %s changed from %s to %s' "$2" "$short" "$3" "${current:-(no commit)}"
  return 1
}

# session_commit_of <repo> <sha> <out-var>: the commit a saved SHA names, read
# as an object name only: a branch or tag named like hex never stands in for
# it. 0 one commit (its full name in <out-var>), 4 none, 6 several.
session_commit_of() {
  local prefix names='' objects='' type name found='' count=0
  printf -v "$3" '%s' ''
  session_lower "$2" prefix
  session_git_into names "$1" rev-parse --disambiguate="$prefix" || names=''
  [ -n "$names" ] || return 4
  session_git_into objects "$1" cat-file --batch-check='%(objecttype) %(objectname)' <<<"$names" ||
    objects=''
  while read -r type name; do
    [ "$type" = commit ] || continue
    found=$name
    count=$((count + 1))
  done <<<"$objects"
  [ "$count" -gt 0 ] || return 4
  [ "$count" -eq 1 ] || return 6
  printf -v "$3" '%s' "$found"
}

# session_upstream_ref <repo> <out-var>: the branch a claim is checked
# against: the current branch's configured upstream, else origin/HEAD's
# target, else refs/remotes/origin/main (which may not exist).
session_upstream_ref() {
  local upstream=''
  session_git_into upstream "$1" rev-parse -q --verify --symbolic-full-name '@{upstream}' || upstream=''
  [ -n "$upstream" ] || session_git_into upstream "$1" symbolic-ref -q refs/remotes/origin/HEAD || upstream=''
  [ -n "$upstream" ] || upstream=refs/remotes/origin/main
  printf -v "$2" '%s' "$upstream"
}

# session_probe_sha <repo> <label> <sha> <banner-var> [<path>...]: is the
# commit in the upstream branch (see session_upstream_ref)? 0 yes; else a
# banner and 1 (not there; the content check over the files the commit
# changed, or those of them among <path>s, tells a squash merge from lost
# work), 4 (git knows no commit by that name), 6 (several commits start
# with it), 5 (no upstream branch) or 3 (not a git work tree, or git did not
# answer). Also sets
# <banner-var>_landed (the caller's) to the number of files whose content
# landed (0: none, or no check), and <banner-var>_ref to the branch's name.
session_probe_sha() {
  local repo=$1 label=$2 sha=$3 out=$4 ref='' short commit='' path named status=0 why
  # shellcheck disable=SC2034 # ignored: output of calls whose status is all that counts
  local session_git_hung='' ignored=''
  local -a paths=()
  shift 4
  printf -v "$out" '%s' ''
  printf -v "${out}_landed" '%s' 0
  printf -v "${out}_ref" '%s' ''
  if ! session_work_tree "$repo" || { session_upstream_ref "$repo" ref && [ -n "$session_git_hung" ]; }; then
    session_probe_sha_unchecked "$label" "$sha" "$out"
    return 3
  fi
  short=${ref#refs/remotes/}
  short=${short#refs/heads/}
  printf -v "${out}_ref" '%s' "$short"
  session_git_into ignored "$repo" rev-parse -q --verify "$ref^{commit}" || status=$?
  if [ -n "$session_git_hung" ]; then
    session_probe_sha_unchecked "$label" "$sha" "$out"
    return 3
  fi
  if [ "$status" -ne 0 ]; then
    printf -v "$out" 'CLAIM-UNVERIFIED: SHA %s cannot be checked: %s has no %s.' "$sha" "$label" "$short"
    return 5
  fi
  session_commit_of "$repo" "$sha" commit || status=$?
  if [ -n "$session_git_hung" ]; then
    session_probe_sha_unchecked "$label" "$sha" "$out"
    return 3
  fi
  if [ "$status" -eq 4 ]; then
    printf -v "$out" 'CLAIM-UNVERIFIED: SHA %s not found in %s. git does not know this commit, so its content cannot be checked.' \
      "$sha" "$short"
    return 4
  fi
  if [ "$status" -eq 6 ]; then
    printf -v "$out" 'CLAIM-UNVERIFIED: SHA %s cannot be checked: several commits in %s start with it.' \
      "$sha" "$label"
    return 6
  fi
  session_git_into ignored "$repo" merge-base --is-ancestor "$commit" "$ref" && return 0
  if [ -n "$session_git_hung" ]; then
    session_probe_sha_unchecked "$label" "$sha" "$out"
    return 3
  fi
  # The files the commit changed (only those of them named, when paths are
  # given): a path it did not touch would make an empty diff prove nothing.
  # A listing that failed ends in "/<status>" (no path git lists starts with "/").
  while IFS= read -r -d '' path; do
    case $path in
      /*)
        ! git_anchor_timed_out "${path#/}" || session_git_hung=1
        continue
        ;;
    esac
    if [ $# -gt 0 ]; then
      for named in "$@"; do
        if [ "$named" = "$path" ]; then
          paths+=("$path")
          break
        fi
      done
    else
      paths+=("$path")
    fi
  done < <(
    session_git "$repo" diff-tree -r --root --no-commit-id --name-only -z "$commit" || printf '/%s\0' "$?"
  )
  if [ ${#paths[@]} -gt 0 ] && [ -z "$session_git_hung" ]; then
    status=0
    session_git_into ignored "$repo" diff --quiet "$commit" "$ref" -- "${paths[@]}" || status=$?
  fi
  if [ -n "$session_git_hung" ]; then
    session_probe_sha_unchecked "$label" "$sha" "$out"
    return 3
  fi
  printf -v "$out" 'CLAIM-UNVERIFIED: SHA %s not found in %s.' "$sha" "$short"
  if [ ${#paths[@]} -gt 0 ] && [ "$status" -eq 0 ]; then
    printf -v "$out" '%s Its content is there (no diff in %d file(s)): the work landed under another commit, e.g. a squash merge.' \
      "${!out}" "${#paths[@]}"
    printf -v "${out}_landed" '%s' "${#paths[@]}"
  fi
  return 1
}

# session_probe_sha_unchecked <label> <sha> <banner-var>: the banner of a
# SHA probe that could not look (session_no_tree says why).
session_probe_sha_unchecked() {
  local why
  session_no_tree "$1" why
  printf -v "$3" 'CLAIM-UNVERIFIED: SHA %s cannot be checked: %s.' "$2" "${why#"$1 cannot be checked: "}"
}

# session_probe_file <root> <path> <banner-var>: 0 when <path> (relative:
# from <root>) exists; else 1 with a banner.
session_probe_file() {
  local target=$2
  printf -v "$3" '%s' ''
  case $target in /*) ;; *) target=$1/$target ;; esac
  { [ -e "$target" ] || [ -L "$target" ]; } && return 0
  printf -v "$3" 'FILE-MISSING: %s \342\200\224 may have moved, merged, or been deleted.' "$2"
  return 1
}

# reverify_session_claims: each probe on its own, for scripts and operators,
# in the call forms of the reference's /dr-continue too (spec §8):
#   --stale --sha <sha> [--repo <dir>]             HEAD still the saved commit?
#   --stale --saved-sha <sha> [--repo <dir>]       the upstream branch still it?
#   --sha-presence --sha <sha> [--repo <dir>] [--files <path>... | -- <path>...]
#   --file-missing --path <path> [--root <dir>]
# A failed claim prints its banner on stdout (and, when its content landed, a
# CONTENT-LANDED: line). 0 the probe ran, whatever it found (with
# --exit-code: 0 the claim holds, 1 it does not); 2 bad input; 3 not a git
# work tree.
reverify_session_claims() { dr_call reverify_session_claims_body "$@"; } # with our shell options
reverify_session_claims_body() {
  local prog=reverify-session-claims status=0 finished banner='' banner_landed=0 banner_ref='' mode='' arg sha
  local paths_from=''
  local opt_stale='' opt_sha_presence='' opt_file_missing='' opt_sha='' opt_saved_sha='' opt_repo=''
  local opt_path='' opt_root='' opt_exit_code=''
  local -a flags=() paths=()
  while [ $# -gt 0 ]; do
    arg=$1
    shift
    case $arg in
      -- | --files)
        if [ "$paths_from" = "$arg" ]; then
          dr_err "$prog" "flag given twice: $arg"
          return 2
        elif [ -n "$paths_from" ]; then
          dr_err "$prog" "give the paths after --files or after --, not both"
          return 2
        fi
        paths_from=$arg
        if [ "$arg" = -- ]; then
          paths+=("$@")
          set --
        else
          # The reference's form: the paths run up to the next flag.
          while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do
            paths+=("$1")
            shift
          done
        fi
        ;;
      *) flags+=("$arg") ;;
    esac
  done
  dr_reader_flags "$prog" 2 finished "--stale --sha-presence --file-missing --exit-code --sha= --saved-sha= --repo= --path= --root=" "" \
    ${flags[@]+"${flags[@]}"} || status=$?
  [ -z "$finished" ] || return "$status"
  [ -z "$opt_stale" ] || mode=$mode--stale
  [ -z "$opt_sha_presence" ] || mode=$mode--sha-presence
  [ -z "$opt_file_missing" ] || mode=$mode--file-missing
  case $mode in
    --stale | --sha-presence | --file-missing) ;;
    *)
      dr_err "$prog" "want exactly one of --stale, --sha-presence, --file-missing"
      return 2
      ;;
  esac
  if [ "$mode" = --file-missing ]; then
    if [ -n "$opt_sha$opt_saved_sha$opt_repo$paths_from" ]; then
      dr_err "$prog" "--file-missing takes --path and --root only"
      return 2
    fi
    if ! session_path_ok "$opt_path"; then
      dr_err "$prog" "invalid --path (want 1 to 4096 bytes without control characters)"
      return 2
    fi
    [ -n "$opt_root" ] || opt_root=.
    if [ ! -d "$opt_root" ]; then
      dr_err "$prog" "--root is not a directory"
      return 2
    fi
    session_probe_file "$opt_root" "$opt_path" banner || status=$?
  else
    if [ "$mode" = --stale ] && { [ -n "$opt_path$opt_root$paths_from" ] || { [ -n "$opt_sha" ] && [ -n "$opt_saved_sha" ]; }; }; then
      dr_err "$prog" "--stale takes --sha or --saved-sha, and --repo only"
      return 2
    fi
    if [ "$mode" = --sha-presence ] && [ -n "$opt_path$opt_root$opt_saved_sha" ]; then
      dr_err "$prog" "--sha-presence takes --sha, --repo and paths (after --files or --) only"
      return 2
    fi
    sha=$opt_sha$opt_saved_sha
    if ! session_sha_ok "$sha"; then
      dr_err "$prog" "invalid SHA (expected 7-40 hex chars): $sha"
      return 2
    fi
    [ -n "$opt_repo" ] || opt_repo=.
    if ! session_path_ok "$opt_repo"; then
      dr_err "$prog" "invalid --repo (want 1 to 4096 bytes without control characters)"
      return 2
    fi
    for arg in ${paths[@]+"${paths[@]}"}; do
      if ! session_path_ok "$arg"; then
        dr_err "$prog" "invalid path after $paths_from (want 1 to 4096 bytes without control characters)"
        return 2
      fi
    done
    if [ -n "$opt_saved_sha" ] || [ "$mode" = --stale ]; then
      session_probe_stale "$opt_repo" "$opt_repo" "$sha" banner ${opt_saved_sha:+upstream} || status=$?
    else
      session_probe_sha "$opt_repo" "$opt_repo" "$sha" banner ${paths[@]+"${paths[@]}"} || status=$?
      if [ "$banner_landed" -gt 0 ]; then
        # The reference's evidence line, after the claim's own.
        printf -v banner 'CLAIM-UNVERIFIED: SHA %s not found in %s.\nCONTENT-LANDED: diff %s..%s for the saved files is empty \342\200\224 work landed under a foreign squash-commit header, not lost.' \
          "$sha" "$banner_ref" "$sha" "$banner_ref"
      fi
    fi
  fi
  [ -z "$banner" ] || printf '%s\n' "$banner"
  case $status in
    0 | 3) return "$status" ;;
  esac
  # The probe ran and the claim failed: the reference's 0, unless asked.
  [ -z "$opt_exit_code" ] || return 1
  return 0
}

[ -z "${_dr_aliases_session_probes-}" ] || shopt -s expand_aliases
unset _dr_aliases_session_probes
