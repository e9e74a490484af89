# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_snapshot_emit.py
# One call from a stage's final answer to its snapshot (spec §7 and §2):
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

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac
dr_source snapshot-writer.sh

# emit_parse_cta <program> <answer-file> <task> <prefix>: reads the answer
# ("-": the standard input) once, to its end: the CTA block that ends it
# (scripts/lib/cta-parse.awk) sets <prefix>_task (the task: <task>, or when
# <task> is empty the one the block's header names), <prefix>_next
# (recommended_next), <prefix>_json (the --json object) and <prefix>_options
# (the options lines, the primary first, each ending in a newline); its first
# bytes, as far as a snapshot body is read, set <prefix>_body_text, _body_len
# and _body_nul (as dr_read_prefix sets them). Returns 0, or 1 after printing
# the refusal on stderr.
emit_parse_cta() {
  if [ "$2" = - ]; then
    emit_parse_stream "$1" "$3" "$4"
  else
    emit_parse_stream "$1" "$3" "$4" <"$2"
  fi
}

# emit_parse_stream <program> <task> <prefix>: emit_parse_cta of the answer on
# the standard input.
emit_parse_stream() {
  local LC_ALL=C dir out status=0 stage_id nl=$'\n' task window head_soh head_len head_nul
  dr_lib_dir_into dir
  snapshot_body_window window
  emit_read_head $((window + 1)) head
  printf -v "$3_body_len" '%s' "$head_len"
  printf -v "$3_body_nul" '%s' "$head_nul"
  if [ "$head_nul" -ge 0 ]; then
    printf -v "$3_body_text" '%s' "${head_soh:0:head_nul}"
  else
    printf -v "$3_body_text" '%s' "$head_soh"
  fi
  # Some awks (BusyBox, macOS) end a line at NUL. NUL and SOH get the same
  # verdict from the CTA rules (a control character), so hand awk SOH instead:
  # the head as read, then the rest of the answer.
  out=$({
    printf '%s' "$head_soh"
    tr '\000' '\001'
  } | LC_ALL=C DR_TASK=$2 DR_REDACT=${DATARIM_SNAPSHOT_REDACT:-1} \
    DR_CTA_HEADERS=$dir/text/cta-headers.txt awk -f "$dir/datarim-rules.awk" -f "$dir/datarim-redact.awk" -f "$dir/cta-parse.awk" 2>/dev/null) ||
    status=$?
  stage_id=${out%%"$nl"*}
  out=${out#*"$nl"}
  task=$2
  if [ "$status" -eq 0 ] && [ -z "$task" ]; then task=${out%%"$nl"*}; fi
  # A stage header on line 1 (**{ID} · {title}**) may name only this task.
  if [ -n "$stage_id" ] && [ -n "$task" ] && dr_task_id_ok "$stage_id" && [ "$stage_id" != "$task" ]; then
    dr_err "$1" "the answer's stage header names $stage_id, not --task $task"
    return 1
  fi
  if [ "$status" -ne 0 ]; then
    dr_err "$1" "${out:-cannot read the CTA block}"
    return 1
  fi
  out=${out%.}
  printf -v "$3_task" '%s' "${out%%"$nl"*}"
  out=${out#*"$nl"}
  printf -v "$3_next" '%s' "${out%%"$nl"*}"
  out=${out#*"$nl"}
  printf -v "$3_json" '%s' "${out%%"$nl"*}"
  printf -v "$3_options" '%s' "${out#*"$nl"}"
}

# emit_read_head <limit> <prefix>: at most <limit> bytes of the standard input,
# read with builtins: <prefix>_soh holds them with each NUL as SOH,
# <prefix>_len their number and <prefix>_nul the offset of the first NUL
# (-1: none). What follows stays unread, for the CTA reader.
emit_read_head() {
  local LC_ALL=C chunk soh='' total=0 nul=-1 want rc
  while [ "$total" -lt "$1" ]; do
    want=$(($1 - total))
    chunk=
    rc=0
    IFS= read -r -d '' -n "$want" chunk || rc=$?
    soh=$soh$chunk
    total=$((total + ${#chunk}))
    # The end of the input, or <want> bytes with no NUL among them.
    [ "$rc" -eq 0 ] && [ "${#chunk}" -lt "$want" ] || break
    # read stopped at a NUL, which it took and did not store.
    [ "$nul" -ge 0 ] || nul=$total
    soh=$soh$'\001'
    total=$((total + 1))
  done
  printf -v "$2_soh" '%s' "$soh"
  printf -v "$2_len" '%s' "$total"
  printf -v "$2_nul" '%s' "$nul"
}

# emit_render <program> <root> <task> <stage> <command> <answer-file>
#   <captured-by> <captured-at>: the CTA block (emit_parse_cta; an empty
# <task> is the one its header names) and the snapshot rendered through the
# writer's own renderer. Sets the caller's locals cta_task, cta_next,
# cta_json, cta_options, cta_body_text, cta_body_len, cta_body_nul, content
# and content_redacted. 0, or 1 after printing the refusal on stderr.
emit_render() {
  local anchor
  emit_parse_cta "$1" "$6" "$3" cta || return 1
  git_anchor_probe "$2" anchor
  snapshot_render_core content "$1" "$cta_task" "$4" "$5" "$7" \
    "$cta_next" "$8" "$cta_options" "${#cta_options}" -1 \
    --response-file "$cta_body_text" "$cta_body_len" "$cta_body_nul" '' "$anchor"
}

# emit_answer_snapshot <program> <root> <task> <stage> <command> <answer-file>
#   <captured-by> <captured-at> <lock-timeout> [<new-kb-var>]: writes the snapshot of the
# answer's CTA block (an empty <task>: the one its header names), the whole
# answer as the body. 0 written; 1 refused or I/O failure; 3 lock timeout.
# The call behind emit-stage-snapshot and the Stop hook (stop-hook.sh).
emit_answer_snapshot() {
  local LC_ALL=C content content_redacted cta_task='' cta_next='' cta_json='' cta_options=''
  local cta_body_text='' cta_body_len=0 cta_body_nul=-1
  emit_render "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" || return 1
  snapshot_publish "$1" "$2" "$cta_task" "$9" "$content" || return $?
  # <new-kb-var> (emit-stage-snapshot's): the knowledge base this write started.
  [ -z "${10:-}" ] || dr_new_knowledge_base_notice "$1" "${!10}"
  [ "$content_redacted" = 0 ] || dr_err "$1" "redacted $content_redacted secret(s) before saving"
  return 0
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
  local LC_ALL=C prog=emit-stage-snapshot timeout finished content content_redacted root preview status=0
  # shellcheck disable=SC2034 # set by dr_new_knowledge_base, read by name by emit_answer_snapshot
  local new_kb
  local nl=$'\n'
  local cta_task='' cta_next='' cta_json='' cta_options='' cta_body_text='' cta_body_len=0 cta_body_nul=-1
  local opt_root='' opt_task='' opt_stage='' opt_command='' opt_response_file=''
  local opt_captured_by=agent opt_captured_at='' opt_dry_run='' opt_json=''
  dr_writer_flags "$prog" DR_SNAPSHOT_LOCK_TIMEOUT timeout finished \
    "--root= --task= --stage= --command= --response-file= --captured-by= --captured-at= --dry-run --json" \
    "--root --task --stage --command --response-file" "$@" || return $?
  [ -z "$finished" ] || return 0 # --version
  dr_check_task_flag "$prog" "$opt_task" || return 1
  dr_readable_file "$prog" --response-file "$opt_response_file" || return 1
  if [ -z "$opt_dry_run$opt_json" ]; then
    dr_new_knowledge_base "$prog" "$opt_root" new_kb
    emit_answer_snapshot "$prog" "$opt_root" "$opt_task" "$opt_stage" "$opt_command" \
      "$opt_response_file" "$opt_captured_by" "$opt_captured_at" "$timeout" new_kb || status=$?
    return "$status"
  fi
  emit_render "$prog" "$opt_root" "$opt_task" "$opt_stage" "$opt_command" \
    "$opt_response_file" "$opt_captured_by" "$opt_captured_at" || return 1
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
