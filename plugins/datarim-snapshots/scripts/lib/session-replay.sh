# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_session_replay.py
# The resume of a session handoff (/dr-continue, spec §5): pick the
# artefact, validate it, re-verify its claims against the live state, print
# the banners, then the shared replay prompt (spec §4) of the newest block.
#
#   session_replay (--session <ID> | --latest) [--root <dir>]
#
# 0 printed; 1 no artefact; 2 invalid artefact; 3 usage. Unlike the snapshot
# replay this is never silent: an operator who asked to resume a session
# learns why it cannot be resumed.
#
# Sourcing defines functions only; nothing of the caller's shell changes.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_session_replay=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac
dr_source session-handoff-validator.sh session-probes.sh replay-render.sh

# session_latest <dir> <out-var>: the newest artefact in <dir> by mtime (a
# tie goes to the later session ID); 1 when there is none.
session_latest() {
  local LC_ALL=C entry name best=''
  for entry in "$1"/SESSION-*.session.md; do
    [ -e "$entry" ] || continue
    name=${entry##*/}
    dr_session_id_ok "${name%.session.md}" || continue
    if [ -z "$best" ] || [ ! "$best" -nt "$entry" ]; then best=$entry; fi
  done
  [ -n "$best" ] || return 1
  printf -v "$2" '%s' "$best"
}

# session_replay_run <root> <file> <session>: validates, probes and prints.
session_replay_run() {
  local LC_ALL=C prog=session-replay root=$1 id=$3 dir out status=0 file_text file_len file_nul
  local kind line value path banner stale='' claims='' missing='' banners failed=' ' repo cta body
  local held first known i body_at
  # shellcheck disable=SC2034 # session_commit_of's commit, unread; session_probe_sha sets the banner_*
  local commit banner_landed banner_ref
  local -a repo_paths=() repo_labels=()
  dr_lib_dir_into dir
  dr_read_prefix "$2" 32769 file
  out=$(DR_PHASE=scan DR_SESSION=$id DR_FILE=$file_text DR_FILE_LEN=$file_len DR_FILE_NUL=$file_nul \
    LC_ALL=C exec awk -f "$dir/datarim-rules.awk" -f "$dir/frontmatter.awk" -f "$dir/session-format.awk" \
    -f "$dir/session-replay.awk" </dev/null) || status=$?
  if [ "$status" -ne 0 ]; then
    dr_err "$prog" "datarim/sessions/$id.session.md ${out:-cannot be read}; not resuming from an invalid handoff"
    return 2
  fi
  # The first line is the render phase's (where the body lies, the CTA).
  case $out in
    *$'\n'*)
      body_at=${out%%$'\n'*}
      out=${out#*$'\n'}
      ;;
    *)
      body_at=$out
      out=''
      ;;
  esac
  # Layer 1 first: the repositories the claims are checked in.
  while IFS=$'\t' read -r kind line value path; do
    if [ "$kind" = U ]; then
      stale=$stale"HEAD-UNCHECKED: line $value of the handoff cannot be checked: \"$path\" (want repo: <path>  HEAD: <7 to 40 hex digits>)."$'\n'
      failed="$failed$line "
      continue
    fi
    [ "$kind" = R ] || continue
    repo=$path
    case $repo in /*) ;; *) repo=$root/$repo ;; esac
    repo_paths+=("$repo")
    repo_labels+=("$path")
    if ! session_probe_stale "$repo" "$path" "$value" banner; then
      stale=$stale$banner$'\n'
      failed="$failed$line "
    fi
  done <<<"$out"
  if [ ${#repo_paths[@]} -eq 0 ]; then
    repo_paths=("$root")
    repo_labels=(.)
  fi
  while IFS=$'\t' read -r kind line value path; do
    # A word of digits only or letters only is a claim only when a repository
    # knows a commit by it: dates and PR numbers are not SHAs.
    if [ "$kind" = P ]; then
      kind=
      for repo in "${repo_paths[@]}"; do
        status=0
        session_commit_of "$repo" "$value" commit || status=$?
        if [ "$status" -ne 4 ]; then
          kind=C
          break
        fi
      done
    fi
    case $kind in
      C)
        # The claim holds when any Layer 1 repository has the commit upstream;
        # else the first one whose git knows the commit says why, or the first.
        held=0 first='' known='' i=0
        while [ "$i" -lt ${#repo_paths[@]} ]; do
          status=0
          session_probe_sha "${repo_paths[$i]}" "${repo_labels[$i]}" "$value" banner || status=$?
          if [ "$status" -eq 0 ]; then
            held=1
            break
          fi
          [ -n "$first" ] || first=$banner
          [ "$status" -ne 1 ] || [ -n "$known" ] || known=$banner
          i=$((i + 1))
        done
        if [ "$held" -eq 0 ]; then
          claims=$claims${known:-$first}$'\n'
          failed="$failed$line "
        fi
        ;;
      F)
        if ! session_probe_file "$root" "$value" banner; then
          missing=$missing$banner$'\n'
          failed="$failed$line "
        fi
        ;;
    esac
  done <<<"$out"
  out=$(DR_PHASE=render DR_FAILED=$failed DR_BODY=$body_at DR_FILE=$file_text LC_ALL=C exec awk \
    -f "$dir/datarim-rules.awk" -f "$dir/frontmatter.awk" -f "$dir/session-format.awk" \
    -f "$dir/session-replay.awk" </dev/null) || {
    dr_err "$prog" "datarim/sessions/$id.session.md cannot be rendered"
    return 2
  }
  cta=${out%%$'\n'*}
  body=${out#*$'\n'}
  # Stale repositories first, then claims, then files; each banner once.
  session_unique_lines "$stale$claims$missing" banners
  [ -z "$banners" ] || printf '%s\n\n' "$banners"
  replay_render_prompt "$cta" "${body%.}"
}

# session_unique_lines <text> <out-var>: the lines of <text> (each ending in
# LF) without repeats, in order of first appearance, the last LF dropped.
session_unique_lines() {
  local line seen=$'\n' out=''
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    case $seen in *$'\n'"$line"$'\n'*) continue ;; esac
    seen=$seen$line$'\n'
    out=$out$line$'\n'
  done <<<"$1"
  printf -v "$2" '%s' "${out%$'\n'}"
}

# session_replay: the resume's command line (see the top of this file).
session_replay() { dr_call session_replay_body "$@"; } # with our shell options
session_replay_body() {
  local prog=session-replay status=0 finished root file id msg why
  local opt_session='' opt_latest='' opt_root=''
  dr_reader_flags "$prog" 3 finished "--session= --latest --root=" "" "$@" || status=$?
  [ -z "$finished" ] || return "$status"
  if [ -n "$opt_session" ] && [ -n "$opt_latest" ]; then
    dr_err "$prog" "give --session or --latest, not both"
    return 3
  fi
  if [ -z "$opt_session$opt_latest" ]; then
    dr_err "$prog" "want --session <SESSION-ID> or --latest"
    return 3
  fi
  if [ -n "$opt_session" ] && ! dr_session_id_ok "$opt_session"; then
    dr_session_id_fault "$opt_session" why
    dr_err "$prog" "$why"
    return 3
  fi
  dr_reader_root "$prog" "$opt_root" root || return 3
  dr_refuse_symlinked "$prog" "$root" sessions || return 2
  if [ -n "$opt_latest" ]; then
    if ! session_latest "$root/datarim/sessions" file; then
      dr_err "$prog" "no session artefact in datarim/sessions; nothing to resume"
      return 1
    fi
    id=${file##*/}
    id=${id%.session.md}
  else
    id=$opt_session
    file=$root/datarim/sessions/$id.session.md
  fi
  dr_artifact_state "$file" msg || status=$?
  case $status in
    0) ;;
    1)
      dr_err "$prog" "datarim/sessions/$id.session.md $msg; nothing to resume"
      return 1
      ;;
    *)
      dr_err "$prog" "datarim/sessions/$id.session.md $msg; not resuming from an invalid handoff"
      return 2
      ;;
  esac
  session_replay_run "$root" "$file" "$id"
}

[ -z "${_dr_aliases_session_replay-}" ] || shopt -s expand_aliases
unset _dr_aliases_session_replay
