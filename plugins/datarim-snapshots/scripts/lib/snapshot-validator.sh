# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_snapshot_validator.py
# Stage-snapshot validator (spec §3): may this snapshot be trusted?
#
#   snapshot_check_file <file> <task-id> <msg-var>   0 valid, 1 missing, 2 malformed
#   check_stage_snapshot --task <ID> [--root <dir>] [--validate-frontmatter]
#   check_stage_snapshot --self-test
#
# Sourcing defines functions only; nothing of the caller's shell changes.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_snapshot_validator=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac
dr_source snapshot-writer.sh

# snapshot_check_file <file> <task-id> <msg-var> [<extra-keys>]: judges one
# file; <msg-var> gets the first broken rule (empty when valid). <task-id>
# must already have passed dr_task_id_ok.
snapshot_check_file() {
  snapshot_judge_file "$1" "$2" "$3" "${4:-}" ''
}

# snapshot_read_file <file> <task-id> <msg-var> <record-var> [<extra-keys>]:
# as snapshot_check_file, and when the file is valid sets <record-var> to
# exactly what was validated, so a reader never parses the frontmatter a
# second time. The record is one string: the validator's field lines (see
# emit_fields in snapshot-validate.awk), a LF, then the whole file; read it
# with snapshot_field.
snapshot_read_file() {
  snapshot_judge_file "$1" "$2" "$3" "${5:-}" "$4"
}

# snapshot_read_task <program> <root> <task-id> <record-var>: the task's
# validated snapshot under a resolved root into <record-var> (as
# snapshot_read_file), for a reader that shows it (show, next); Python's
# read_snapshot. A symlinked datarim/snapshots is refused (2, said by
# dr_refuse_symlinked of datarim-roots.sh, which the caller has loaded); a
# missing (1) or invalid (2) file is said as "<program>: <path> <rule>".
snapshot_read_task() {
  local rel=datarim/snapshots/$3.snapshot.md msg status=0
  dr_refuse_symlinked "$1" "$2" snapshots || return 2
  snapshot_read_file "$2/$rel" "$3" msg "$4" || status=$?
  [ "$status" -eq 0 ] || dr_err "$1" "$rel $msg"
  return "$status"
}

# snapshot_judge_file <file> <task-id> <msg-var> <extra-keys> <record-var-or-empty>
snapshot_judge_file() {
  local LC_ALL=C dir out status=0 file_text file_len file_nul emit=''
  dr_artifact_state "$1" "$3" || return $?
  dr_read_prefix "$1" 8193 file
  dr_lib_dir_into dir
  [ -z "$5" ] || emit=1
  out=$(DR_TASK=$2 DR_EXTRA_KEYS=$4 DR_EMIT_FIELDS=$emit DR_FILE=$file_text DR_FILE_LEN=$file_len \
    DR_FILE_NUL=$file_nul LC_ALL=C exec awk -f "$dir/datarim-rules.awk" -f "$dir/git-anchor.awk" \
    -f "$dir/frontmatter.awk" -f "$dir/snapshot-validate.awk" </dev/null) || status=$?
  if [ "$status" -eq 0 ]; then
    [ -z "$5" ] || printf -v "$5" '%s\n%s' "$out" "$file_text"
    return 0
  fi
  printf -v "$3" '%s' "${out:-cannot be read}"
  return 2
}

# snapshot_batch <mode> <dir> <out-var>: judges every <dir>/*.snapshot.md in
# one awk process (snapshot-validate.awk's batch_main), the files read here
# with builtins as snapshot_judge_file reads one, in the glob's order.
# <mode> list: <out-var> gets snapshot-list's rows, a file whose name is not a
# task ID left out; doctor: doctor.sh's records, such a file "ignored", and
# before them one line: the newest valid captured_at (maybe empty). Same
# verdicts, byte for byte, as snapshot_read_file on each file.
snapshot_batch() {
  local LC_ALL=C dir out status=0
  dr_lib_dir_into dir
  out=$(snapshot_batch_records "$1" "$2" | DR_BATCH=$1 DR_EXTRA_KEYS='' LC_ALL=C exec awk \
    -f "$dir/datarim-rules.awk" -f "$dir/git-anchor.awk" -f "$dir/frontmatter.awk" \
    -f "$dir/snapshot-validate.awk" && printf .) || status=$?
  printf -v "$3" '%s' "${out%.}"
  return "$status"
}

# snapshot_batch_records <mode> <dir>: snapshot_batch's input (see batch_main
# in snapshot-validate.awk). Costs one pass over the folder: the task-ID rule
# is awk's (is_task_id); a name with a byte no ID holds goes as shown; a file
# is read with one builtin read unless it holds a NUL or is over the cap.
snapshot_batch_records() {
  local LC_ALL=C file name task msg status chunk f_text f_len f_nul
  for file in "$2"/*.snapshot.md; do
    name=${file##*/}
    task=${name%.snapshot.md}
    if [[ $task == *[!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-]* ]]; then
      [[ -e $file || -L $file ]] || continue
      [ "$1" = list ] || printf 'I\t%s\n' "${name//[$'\001'-$'\037'$'\177']/?}"
      continue
    fi
    if [[ ! -f $file || ! -r $file || -L $file ]]; then
      [[ -e $file || -L $file ]] || continue
      status=0
      dr_artifact_state "$file" msg || status=$?
      if [ "$status" -ne 0 ]; then
        printf 'S\t%s\t%s\n' "$task" "$msg"
        continue
      fi
    fi
    chunk=
    # Status 0: a NUL or 8193 bytes met before the end; dr_read_prefix then.
    if IFS= read -r -d '' -n 8193 chunk <"$file"; then
      dr_read_prefix "$file" 8193 f
    else
      f_text=$chunk f_len=${#chunk} f_nul=-1
    fi
    printf 'F\t%s\t%s\t%s\t%s\n%s\n' "$task" "$f_len" "$f_nul" "${#f_text}" "$f_text"
  done
}

# snapshot_field <record> <name> <out-var>: one field of a snapshot_read_file
# record: stage, command, captured_at, captured_by, recommended_next,
# size_bytes, truncated; options (the items, quoting undone, each followed by
# LF), option_count; extra ("<key> <value>" lines of the optional fields, in
# file order); body (the bytes after the blank line that ends the
# frontmatter) or text (the whole file).
snapshot_field() {
  local LC_ALL=C fields=${1%%$'\n'body_offset *} rest line value='' count=0 offset
  case $2 in text | body)
    # What follows the fields: "\nbody_offset <offset>\n" (13 bytes and the
    # number), then the file.
    rest=${1:${#fields}+13}
    offset=${rest%%$'\n'*}
    rest=${rest:${#offset}+1}
    [ "$2" = text ] || rest=${rest:offset}
    printf -v "$3" '%s' "$rest"
    return 0
    ;;
  esac
  rest=$fields$'\n'
  while [ -n "$rest" ]; do
    line=${rest%%$'\n'*}
    rest=${rest#*$'\n'}
    case $2:$line in
      options:'option '*) value=$value${line#option }$'\n' ;;
      option_count:'option '*) count=$((count + 1)) ;;
      extra:'extra '*) value=$value${line#extra }$'\n' ;;
      options:* | option_count:* | extra:*) ;;
      "$2:$2 "*)
        value=${line#"$2 "}
        break
        ;;
    esac
  done
  [ "$2" != option_count ] || value=$count
  printf -v "$3" '%s' "$value"
}

# check_stage_snapshot: the validator's command line (dr_checker). 0 valid,
# 1 missing, 2 malformed, 3 usage. Prints nothing on stdout; one line on stderr.
check_stage_snapshot() { # with our shell options
  dr_call dr_checker check-stage-snapshot --task snapshot_self_test snapshots .snapshot.md \
    snapshot_check_file "$@"
}

# snapshot_self_test: writes, checks and breaks a snapshot in a scratch root.
snapshot_self_test() {
  dr_self_test check-stage-snapshot snapshot_self_test_write snapshot_check_file \
    datarim/snapshots/SELF-0001.snapshot.md SELF-0001
}
# snapshot_self_test_write <root>: the self-test's writes: its snapshot under <root>.
snapshot_self_test_write() {
  printf 'self-test body\n' >"$1/body.md" &&
    write_stage_snapshot --root "$1" --task SELF-0001 --stage plan --command /dr-plan \
      --captured-by agent --recommended-next /dr-do --body-file "$1/body.md" \
      --captured-at 2026-01-01T00:00:00Z 2>/dev/null
}

[ -z "${_dr_aliases_snapshot_validator-}" ] || shopt -s expand_aliases
unset _dr_aliases_snapshot_validator
