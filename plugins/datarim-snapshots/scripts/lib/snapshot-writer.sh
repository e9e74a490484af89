# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_snapshot_writer.py
# Stage-snapshot writer (spec §2): one file per task,
# <root>/datarim/snapshots/{TASK-ID}.snapshot.md, replaced whole on each call.
#
#   source scripts/lib/snapshot-writer.sh
#   write_stage_snapshot --root . --task TUNE-0254 --stage plan \
#     --command /dr-plan --captured-by agent --recommended-next /dr-verify \
#     --body-file answer.md [--options-file options.txt] [--captured-at ...]
#
# Also runnable directly: bash scripts/lib/snapshot-writer.sh --root ...
# Sourcing defines functions only; nothing of the caller's shell changes.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_snapshot_writer=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac
dr_source git-anchor.sh datarim-journal.sh

# snapshot_render <out-var> <task> <stage> <command> <captured-by> <recommended-next>
#                 <captured-at> <options-file-or-empty> <body-file> [<extra-frontmatter>
#                 [<git-anchor>]]
# Validates every value and byte and renders the file into <out-var>.
# Either file may be "-", the standard input. Returns 0, or 1 after printing
# the refusal on stderr.
snapshot_render() {
  local LC_ALL=C options_text='' options_len=0 options_nul=-1 body_text body_len body_nul window
  if [ -n "$8" ]; then dr_read_input "$8" 8193 options; fi
  snapshot_body_window window
  dr_read_input "$9" $((window + 1)) body
  snapshot_render_core "$1" snapshot-writer "$2" "$3" "$4" "$5" "$6" "$7" \
    "$options_text" "$options_len" "$options_nul" --body-file "$body_text" "$body_len" "$body_nul" \
    "${10:-}" "${11:-}"
}

# snapshot_body_window <out-var>: how much of a body the renderer reads:
# twice the cap, so that what redaction removes is made up from further on.
# Callers read one byte more, which tells whether the body goes on.
snapshot_body_window() {
  printf -v "$1" '%s' 16384
}

# snapshot_render_core <out-var> <program> <task> <stage> <command> <captured-by>
#   <recommended-next> <captured-at> <options-text> <options-len> <options-nul>
#   <body-flag> <body-text> <body-len> <body-nul> [<extra-frontmatter> [<git-anchor>]]
# The renderer behind snapshot_render, for callers that already hold the
# options and the body as text (one option a line; <options-len> bytes read,
# <options-nul> the offset of a NUL or -1, as dr_read_prefix sets them; the
# body read as far as snapshot_body_window says, plus one byte). Refusals go to
# stderr as "<program>: ..."; a bad body is named <body-flag>. <git-anchor>
# is what git_anchor_probe found (empty: the snapshot records no git fields).
# Sets <out-var>_redacted to the number of secrets redacted from the body
# (DATARIM_SNAPSHOT_REDACT=0: none are).
snapshot_render_core() {
  local LC_ALL=C dir out status=0 window
  dr_lib_dir_into dir
  snapshot_body_window window
  out=$(DR_TASK=$3 DR_STAGE=$4 DR_COMMAND=$5 DR_CAPTURED_BY=$6 DR_RECOMMENDED_NEXT=$7 \
    DR_CAPTURED_AT=$8 DR_EXTRA=${16:-} DR_GIT_ANCHOR=${17:-} DR_BODY_FLAG=${12} \
    DR_OPTIONS=$9 DR_OPTIONS_LEN=${10} DR_OPTIONS_NUL=${11} \
    DR_BODY=${13} DR_BODY_LEN=${14} DR_BODY_NUL=${15} DR_BODY_WINDOW=$window \
    DR_REDACT=${DATARIM_SNAPSHOT_REDACT:-1} \
    LC_ALL=C exec awk -f "$dir/datarim-rules.awk" -f "$dir/datarim-redact.awk" \
    -f "$dir/git-anchor.awk" -f "$dir/snapshot-render.awk" </dev/null) ||
    status=$?
  if [ "$status" -ne 0 ]; then
    dr_err "$2" "${out:-cannot render the snapshot}"
    return 1
  fi
  printf -v "$1_redacted" '%s' "${out%%$'\n'*}"
  out=${out#*$'\n'}
  printf -v "$1" '%s' "${out%.}"
}

# snapshot_publish <program> <root> <task> <timeout-seconds> <content>: resolves
# the root, then, holding the task's lock, replaces its snapshot with <content>.
# 0 written, 1 refused or I/O failure, 3 lock timeout.
snapshot_publish() {
  local root dir status=0 recovered
  dr_resolve_root "$1" "$2" root || return 1
  dir=$root/datarim/snapshots
  dr_artifact_dir "$1" "$dir" || return 1
  dr_lock_acquire "$1" "$dir/.lock.$3" "$4" recovered || return $?
  dr_publish "$1" "$dir" "$3.snapshot.md" "$3" "$5" "$recovered" || status=$?
  # A stage turn's record of leaving no snapshot (stop-hook.sh) is over now.
  if [ "$status" -eq 0 ] && { [ -e "$dir/.missed.$3" ] || [ -L "$dir/.missed.$3" ]; }; then
    rm -f -- "$dir/.missed.$3" 2>/dev/null || :
  fi
  dr_lock_release "$dir/.lock.$3"
  return "$status"
}

# write_stage_snapshot --root <dir> --task <ID> --stage <stage> --command </cmd>
#   --captured-by agent|operator --recommended-next </cmd> --body-file <file>
#   [--options-file <file>] [--captured-at YYYY-MM-DDTHH:MM:SSZ]
# 0 written (or disabled), 1 refused or I/O failure, 2 usage, 3 lock timeout.
write_stage_snapshot() { dr_call write_stage_snapshot_body "$@"; } # with our shell options
write_stage_snapshot_body() {
  [ "${DATARIM_DISABLE_SNAPSHOT:-}" = 1 ] && return 0
  local prog=snapshot-writer timeout finished content content_redacted anchor new_kb
  local opt_root='' opt_task='' opt_stage='' opt_command='' opt_captured_by='' opt_recommended_next=''
  local opt_body_file='' opt_options_file='' opt_captured_at=''
  dr_writer_flags "$prog" DR_SNAPSHOT_LOCK_TIMEOUT timeout finished \
    "--root= --task= --stage= --command= --captured-by= --recommended-next= --body-file= --options-file= --captured-at=" \
    "--root --task --stage --command --captured-by --recommended-next --body-file" "$@" || return $?
  [ -z "$finished" ] || return 0 # --version
  dr_one_stdin "$prog" --body-file "$opt_body_file" --options-file "$opt_options_file" || return 2
  dr_check_task_flag "$prog" "$opt_task" || return 1
  if [ -n "$opt_options_file" ]; then dr_readable_file "$prog" --options-file "$opt_options_file" || return 1; fi
  dr_readable_file "$prog" --body-file "$opt_body_file" || return 1
  git_anchor_probe "$opt_root" anchor
  snapshot_render content "$opt_task" "$opt_stage" "$opt_command" "$opt_captured_by" \
    "$opt_recommended_next" "$opt_captured_at" "$opt_options_file" "$opt_body_file" '' "$anchor" || return 1
  dr_new_knowledge_base "$prog" "$opt_root" new_kb
  snapshot_publish "$prog" "$opt_root" "$opt_task" "$timeout" "$content" || return $?
  dr_new_knowledge_base_notice "$prog" "$new_kb"
  [ "$content_redacted" = 0 ] || dr_err "$prog" "redacted $content_redacted secret(s) before saving"
  snapshot_journal "$opt_task" "$opt_stage" "$opt_captured_at" "$opt_body_file" "$content"
}

[ -z "${_dr_aliases_snapshot_writer-}" ] || shopt -s expand_aliases
unset _dr_aliases_snapshot_writer

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  write_stage_snapshot "$@"
  exit $?
fi
