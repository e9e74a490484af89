# shellcheck shell=bash
# One call from a stage's final answer to its snapshot (CONTRACT §7 and §2):
# reads the CTA block that ends the answer and writes the snapshot through
# the writer's own renderer and publish step, the whole answer as the body.
#
#   source scripts/lib/snapshot-emit.sh
#   emit_stage_snapshot --root . --task TUNE-0032 --stage plan --command /dr-plan \
#     --response-file answer.md [--captured-by agent|operator] [--captured-at ...]
#     [--dry-run] [--json]
#
# Sourcing defines functions only; nothing of the caller's shell changes.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_snapshot_emit=1 && shopt -u expand_aliases; fi

_emit_load() {
  local dir=${BASH_SOURCE[0]}
  case $dir in */*) dir=${dir%/*} ;; *) dir=. ;; esac
  # shellcheck source=scripts/lib/snapshot-writer.sh
  . "$dir/snapshot-writer.sh"
}
_emit_load
unset -f _emit_load

# emit_parse_cta <program> <answer-file> <task> <prefix>: reads the CTA block
# that ends the answer (scripts/lib/cta-parse.awk) and sets <prefix>_next
# (recommended_next), <prefix>_json (the --json object) and <prefix>_options
# (the options lines, the primary first, each ending in a newline). Returns 0,
# or 1 after printing the refusal on stderr.
emit_parse_cta() {
  local LC_ALL=C dir out status=0 stage_id nl=$'\n'
  dr_lib_dir_into dir
  # Some awks (BusyBox, macOS) end a line at NUL. NUL and SOH get the same
  # verdict from the CTA rules (a control character), so hand awk SOH instead.
  out=$(tr '\000' '\001' <"$2" | LC_ALL=C DR_TASK=$3 DR_REDACT=${DATARIM_SNAPSHOT_REDACT:-1} \
    awk -f "$dir/datarim-rules.awk" -f "$dir/datarim-redact.awk" -f "$dir/cta-parse.awk" 2>/dev/null) ||
    status=$?
  stage_id=${out%%"$nl"*}
  out=${out#*"$nl"}
  # A stage header on line 1 (**{ID} · {title}**) may name only this task.
  if [ -n "$stage_id" ] && dr_task_id_ok "$stage_id" && [ "$stage_id" != "$3" ]; then
    dr_err "$1" "the answer's stage header names $stage_id, not --task $3"
    return 1
  fi
  if [ "$status" -ne 0 ]; then
    dr_err "$1" "${out:-cannot read the CTA block}"
    return 1
  fi
  out=${out%.}
  printf -v "$4_next" '%s' "${out%%"$nl"*}"
  out=${out#*"$nl"}
  printf -v "$4_json" '%s' "${out%%"$nl"*}"
  printf -v "$4_options" '%s' "${out#*"$nl"}"
}

# emit_stage_snapshot --root <dir> --task <ID> --stage <stage> --command </cmd>
#   --response-file <answer> [--captured-by agent|operator] [--captured-at ...]
#   [--dry-run] [--json]
# 0 written, printed (--dry-run, --json) or disabled; 1 refused or I/O
# failure; 2 usage; 3 lock timeout. --captured-by defaults to agent: the
# stage's own last step is what calls this.
emit_stage_snapshot() { dr_call emit_stage_snapshot_body "$@"; } # with our shell options
emit_stage_snapshot_body() {
  [ "${DATARIM_DISABLE_SNAPSHOT:-}" = 1 ] && return 0
  local LC_ALL=C prog=emit-stage-snapshot timeout content content_redacted root preview anchor
  local nl=$'\n'
  local cta_next='' cta_json='' cta_options=''
  local opt_root='' opt_task='' opt_stage='' opt_command='' opt_response_file=''
  local opt_captured_by=agent opt_captured_at='' opt_dry_run='' opt_json=''
  dr_writer_flags "$prog" DR_SNAPSHOT_LOCK_TIMEOUT timeout \
    "--root= --task= --stage= --command= --response-file= --captured-by= --captured-at= --dry-run --json" \
    "--root --task --stage --command --response-file" "$@" || return $?
  dr_check_task_flag "$prog" "$opt_task" || return 1
  dr_readable_file "$prog" --response-file "$opt_response_file" || return 1
  emit_parse_cta "$prog" "$opt_response_file" "$opt_task" cta || return 1
  git_anchor_probe "$opt_root" anchor
  snapshot_render_core content "$prog" "$opt_task" "$opt_stage" "$opt_command" "$opt_captured_by" \
    "$cta_next" "$opt_captured_at" "$cta_options" "${#cta_options}" -1 \
    --response-file "$opt_response_file" '' "$anchor" || return 1
  if [ -z "$opt_dry_run$opt_json" ]; then
    snapshot_publish "$prog" "$opt_root" "$opt_task" "$timeout" "$content" || return $?
    [ "$content_redacted" = 0 ] || dr_err "$prog" "redacted $content_redacted secret(s) before saving"
    return 0
  fi
  dr_resolve_root "$prog" "$opt_root" root || return 1
  dr_publish_check "$prog" "$root/datarim/snapshots" "$opt_task.snapshot.md" \
    "$root/datarim/snapshots/.lock.$opt_task" || return 1
  if [ -n "$opt_json" ]; then
    printf '%s\n' "$cta_json"
  else
    # The two fields exactly as the snapshot's frontmatter would hold them.
    preview=${content#*"$nl"recommended_next: }
    preview=${preview%%"$nl"size_bytes: *}
    printf 'recommended_next: %s\n' "$preview"
  fi
}

[ -z "${_dr_aliases_snapshot_emit-}" ] || shopt -s expand_aliases
unset _dr_aliases_snapshot_emit
