# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_snapshot_lifecycle.py
# Snapshot lifecycle: look at one snapshot, list them all, archive a final one.
#
#   lifecycle_show_main [<ID> | --task <ID>] [--root <dir>] [--json]   (<ID> anywhere)
#       snapshot-show: 0 shown, 1 missing, 2 invalid, 3 usage
#   lifecycle_list_main [--root <dir>] [--json]
#       snapshot-list: 0 listed (invalid snapshots included, with the reason), 2 the
#       snapshots directory is a symlink or cannot be read, 3 usage (a bad DATARIM_NOW too)
#   lifecycle_archive_main [<ID> | --task <ID>] [--root <dir>] [--area <area>]   (<ID> anywhere)
#       snapshot-archive: 0 archived, 1 missing or refused, 2 invalid, 3 usage
#
# Without --root: the root spec §8 finds (dr_discover_root). Sourcing
# defines lifecycle_* functions (plus those of the libraries it loads) and
# nothing else.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_snapshot_lifecycle=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac
dr_source snapshot-resume.sh

# lifecycle_render <mode> <stdin-text> <msg-var>: prints what
# snapshot-lifecycle.awk makes (the caller sets its DR_* environment); when
# it fails, returns its exit code with its message in <msg-var>.
lifecycle_render() {
  local LC_ALL=C dir out status=0
  dr_lib_dir_into dir
  out=$(printf '%s' "$2" | DR_MODE=$1 LC_ALL=C awk -f "$dir/datarim-rules.awk" -f "$dir/snapshot-lifecycle.awk") || status=$?
  if [ "$status" -ne 0 ]; then
    printf -v "$3" '%s' "$out"
    return "$status"
  fi
  # A stdout that cannot be written is bash's to report; the code stays.
  printf '%s' "${out%.}" || :
}

# lifecycle_task_arg <program> <out-task-var> <task-flag>: checks --task.
lifecycle_task_arg() {
  if [ -z "$3" ]; then
    dr_err "$1" "missing required flag(s): --task"
    return 3
  fi
  resume_pick_task "$1" '' "$3" "$2"
}

# lifecycle_show_main: snapshot-show's command line (see the top).
lifecycle_show_main() { dr_call lifecycle_show_main_body "$@"; } # with our shell options
lifecycle_show_main_body() {
  local prog=snapshot-show status=0 finished root task msg rel snapshot='' field name
  local opt_task='' opt_root='' opt_json=''
  local show_stage show_command show_captured_at show_captured_by show_recommended_next show_options
  local show_size_bytes show_truncated show_body
  dr_reader_flags "$prog" 3 finished "--task= @--task --root= --json" "" "$@" || status=$?
  [ -z "$finished" ] || return "$status"
  lifecycle_task_arg "$prog" task "$opt_task" || return 3
  dr_reader_root "$prog" "$opt_root" root || return 3
  rel=datarim/snapshots/$task.snapshot.md
  snapshot_read_task "$prog" "$root" "$task" snapshot || return
  if [ -z "$opt_json" ]; then
    # A terminal shows it: escape sequences and other controls of the body as '?'.
    snapshot_field "$snapshot" text field
    dr_shown_text_into "$field" field
    printf '%s' "$field"
    return 0
  fi
  for name in stage command captured_at captured_by recommended_next options size_bytes truncated body; do
    snapshot_field "$snapshot" "$name" "show_$name"
  done
  DR_TASK=$task DR_PATH=$rel DR_STAGE=$show_stage DR_COMMAND=$show_command DR_CAPTURED_AT=$show_captured_at \
    DR_CAPTURED_BY=$show_captured_by DR_NEXT=$show_recommended_next DR_OPTIONS=$show_options \
    DR_SIZE=$show_size_bytes DR_TRUNCATED=$show_truncated DR_BODY=$show_body lifecycle_render show-json '' msg
}

# lifecycle_list_main: snapshot-list's command line (see the top).
lifecycle_list_main() { dr_call lifecycle_list_main_body "$@"; } # with our shell options
lifecycle_list_main_body() {
  local LC_ALL=C prog=snapshot-list status=0 finished root dir msg now rows=''
  local opt_root='' opt_json=''
  dr_reader_flags "$prog" 3 finished "--root= --json" "" "$@" || status=$?
  [ -z "$finished" ] || return "$status"
  dr_reader_root "$prog" "$opt_root" root || return 3
  dir=$root/datarim/snapshots
  dr_refuse_symlinked "$prog" "$root" snapshots || return 2
  # A directory that cannot be listed or searched would read as empty.
  if [ -d "$dir" ] && { [ ! -r "$dir" ] || [ ! -x "$dir" ]; }; then
    dr_err "$prog" "datarim/snapshots cannot be read"
    return 2
  fi
  now=${DATARIM_NOW:-}
  [ -n "$now" ] || dr_now_utc now
  # Every snapshot judged in one awk process, as snapshot_read_file judges one.
  if [ -d "$dir" ] && ! snapshot_batch list "$dir" rows; then
    dr_err "$prog" "datarim/snapshots cannot be read"
    return 2
  fi
  status=0
  if [ -n "$opt_json" ]; then
    DR_NOW=$now lifecycle_render list-json "$rows" msg || status=$?
  else
    DR_NOW=$now lifecycle_render list-text "$rows" msg || status=$?
  fi
  if [ "$status" -ne 0 ]; then
    dr_err "$prog" "$msg"
    return 3
  fi
}

# lifecycle_lower <text> <out-var>: ASCII letters lower-cased (bash 3.2 has no ${x,,}).
lifecycle_lower() {
  local LC_ALL=C text=$1 out='' char upper=ABCDEFGHIJKLMNOPQRSTUVWXYZ lower=abcdefghijklmnopqrstuvwxyz rest
  while [ -n "$text" ]; do
    char=${text:0:1}
    text=${text:1}
    case $char in [ABCDEFGHIJKLMNOPQRSTUVWXYZ])
      rest=${upper#*"$char"}
      char=${lower:$((25 - ${#rest})):1}
      ;;
    esac
    out=$out$char
  done
  printf -v "$2" '%s' "$out"
}

# lifecycle_archive_dir <program> <root> <rel-dir> <out-created-var>: makes
# <root>/<rel-dir> one directory at a time, refusing a symlink anywhere on
# the way; <out-created-var> lists what it made (for the undo). 1 refused.
# (Its locals carry a prefix: a caller's <out-created-var> must never be
# shadowed by one of them.)
lifecycle_archive_dir() {
  local la_part='' la_rest=$3/ la_made=''
  while [ -n "$la_rest" ]; do
    la_part=$la_part${la_part:+/}${la_rest%%/*}
    la_rest=${la_rest#*/}
    if [ -L "$2/$la_part" ]; then
      dr_err "$1" "$la_part is a symlink; refusing to write through it"
      lifecycle_undo_dirs "$2" "$la_made"
      return 1
    fi
    [ -d "$2/$la_part" ] && continue
    if ! mkdir -- "$2/$la_part" 2>/dev/null; then
      [ -d "$2/$la_part" ] && [ ! -L "$2/$la_part" ] && continue
      dr_err "$1" "cannot create $la_part"
      lifecycle_undo_dirs "$2" "$la_made"
      return 1
    fi
    la_made="$la_part"$'\n'"$la_made"
  done
  printf -v "$4" '%s' "$la_made"
}

# lifecycle_undo_dirs <root> <dirs>: removes the directories made (newest
# first, one a line), when they are still empty.
lifecycle_undo_dirs() {
  local rest=$2 part
  while [ -n "$rest" ]; do
    part=${rest%%$'\n'*}
    rest=${rest#*$'\n'}
    rmdir -- "$1/$part" 2>/dev/null || :
  done
}

# lifecycle_archive_main: snapshot-archive's command line (see the top).
lifecycle_archive_main() { dr_call lifecycle_archive_main_body "$@"; } # with our shell options
lifecycle_archive_main_body() {
  local prog=snapshot-archive status=0 finished root dir task area timeout rel
  local opt_task='' opt_root='' opt_area=''
  dr_reader_flags "$prog" 3 finished "--task= @--task --root= --area=" "" "$@" || status=$?
  [ -z "$finished" ] || return "$status"
  lifecycle_task_arg "$prog" task "$opt_task" || return 3
  area=$opt_area
  [ -n "$area" ] || lifecycle_lower "${task%%-*}" area
  if [ ${#area} -gt 64 ] || [[ ! $area =~ ^[ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789][ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-]*$ ]]; then
    dr_err "$prog" "invalid --area (want one path segment: letters, digits, '.', '_' or '-', at most 64)"
    return 3
  fi
  dr_lock_timeout "$prog" DR_SNAPSHOT_LOCK_TIMEOUT timeout || return 3
  dr_reader_root "$prog" "$opt_root" root || return 3
  dr_resolve_root "$prog" "$root" root || return 1
  dir=$root/datarim/snapshots
  rel=datarim/snapshots/$task.snapshot.md
  dr_refuse_symlinked "$prog" "$root" snapshots || return 2
  if [ ! -e "$root/$rel" ] && [ ! -L "$root/$rel" ]; then
    dr_err "$prog" "$rel is missing"
    return 1
  fi
  dr_lock_acquire "$prog" "$dir/.lock.$task" "$timeout" || return 1
  lifecycle_archive_locked "$prog" "$root" "$task" "$area" || status=$?
  dr_lock_release "$dir/.lock.$task"
  return "$status"
}

# lifecycle_archive_locked <program> <root> <task> <area>: the move, under
# the task's snapshot lock: validate, link under the first free name (link
# never replaces a file, so an earlier archive is never overwritten), then
# unlink the snapshot. Prints the archive's path.
lifecycle_archive_locked() {
  local prog=$1 root=$2 task=$3 rel msg status=0 adir made='' target n=1
  rel=datarim/snapshots/$task.snapshot.md
  snapshot_check_file "$root/$rel" "$task" msg || status=$?
  if [ "$status" -ne 0 ]; then
    dr_err "$prog" "$rel $msg"
    return "$status"
  fi
  adir=documentation/archive/$4/snapshots
  lifecycle_archive_dir "$prog" "$root" "$adir" made || return 1
  target=$adir/$task-final-stage.md
  while [ -e "$root/$target" ] || [ -L "$root/$target" ] || ! ln -- "$root/$rel" "$root/$target" 2>/dev/null; do
    if [ ! -e "$root/$target" ] && [ ! -L "$root/$target" ]; then
      dr_err "$prog" "cannot link $target (is documentation/ on another file system?)"
      lifecycle_undo_dirs "$root" "$made"
      return 1
    fi
    n=$((n + 1))
    if [ "$n" -gt 999 ]; then
      dr_err "$prog" "$adir already holds 999 archives of $task"
      lifecycle_undo_dirs "$root" "$made"
      return 1
    fi
    target=$adir/$task-final-stage-$n.md
  done
  if ! rm -f -- "$root/$rel" 2>/dev/null || [ -e "$root/$rel" ]; then
    rm -f -- "$root/$target" 2>/dev/null || :
    lifecycle_undo_dirs "$root" "$made"
    dr_err "$prog" "cannot remove $rel"
    return 1
  fi
  printf '%s\n' "$target"
}

[ -z "${_dr_aliases_snapshot_lifecycle-}" ] || shopt -s expand_aliases
unset _dr_aliases_snapshot_lifecycle
