#!/usr/bin/env bats
# The libraries under a caller's shell options: sourced into a shell with
# failglob, nocasematch, noglob, keyword (set -k), an odd IFS or aliases, or run as entry points
# with SHELLOPTS/BASHOPTS in the environment, they behave as under the
# defaults, and the caller has its options back afterwards, on every return path.

setup() {
  REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)
  ROOT=$BATS_TEST_TMPDIR/ws
  mkdir -p "$ROOT/datarim/snapshots"
  printf 'body\n' >"$BATS_TEST_TMPDIR/body.md"
  WRITE_ARGS=(--root "$ROOT" --stage plan --command /dr-plan --captured-by agent
    --recommended-next /dr-do --body-file "$BATS_TEST_TMPDIR/body.md")
  WRITE="${WRITE_ARGS[*]}" # for the callers' scripts (no blank in these paths)
}

# caller <setup> <call>: a shell that sets options, sources the writer, makes
# the call and prints its code and then its options.
caller() {
  bash -c "$1
    . '$REPO/scripts/lib/snapshot-writer.sh'
    . '$REPO/scripts/lib/snapshot-lifecycle.sh'
    code=0
    $2 || code=\$?
    echo \"code=\$code\"
    shopt -p failglob nocasematch nullglob
    case \$- in *f*) echo noglob ;; esac
    echo \"ifs=[\$IFS]\""
}

@test "failglob: the caller's shell carries on, the snapshot is written, no lock is left" {
  run caller 'shopt -s failglob' "write_stage_snapshot --task TUNE-0254 $WRITE"
  [ "${lines[0]}" = "code=0" ]
  [ "${lines[1]}" = "shopt -s failglob" ]
  [ -f "$ROOT/datarim/snapshots/TUNE-0254.snapshot.md" ]
  [ "$(ls -A "$ROOT/datarim/snapshots")" = TUNE-0254.snapshot.md ]
}

@test "nocasematch: a lower-case task ID is refused, nothing is written" {
  run caller 'shopt -s nocasematch' "write_stage_snapshot --task tune-0254 $WRITE 2>/dev/null"
  [ "${lines[0]}" = "code=1" ]
  [ "${lines[2]}" = "shopt -s nocasematch" ]
  [ -z "$(ls -A "$ROOT/datarim/snapshots")" ]
}

@test "noglob: list lists the snapshots, sourced and as an entry point" {
  "$REPO/dev-tools/snapshot-writer-wrapper.sh" --task TUNE-0254 "${WRITE_ARGS[@]}"
  run caller 'set -f' "lifecycle_list_main --root '$ROOT'"
  [ "${lines[1]%% *}" = TUNE-0254 ]
  [ "${lines[2]}" = "code=0" ]
  [ "${lines[6]}" = noglob ]
  run env SHELLOPTS=noglob "$REPO/dev-tools/snapshot-list.sh" --root "$ROOT"
  [ "$status" -eq 0 ]
  [ "${lines[1]%% *}" = TUNE-0254 ]
}

@test "BASHOPTS=failglob:nocasematch: the entry point refuses a lower-case ID and writes the right one" {
  run env BASHOPTS=failglob:nocasematch "$REPO/dev-tools/snapshot-writer-wrapper.sh" --task tune-0254 "${WRITE_ARGS[@]}"
  [ "$status" -eq 1 ]
  run env BASHOPTS=failglob:nocasematch "$REPO/dev-tools/snapshot-writer-wrapper.sh" --task TUNE-0254 "${WRITE_ARGS[@]}"
  [ "$status" -eq 0 ]
  [ "$(ls -A "$ROOT/datarim/snapshots")" = TUNE-0254.snapshot.md ]
}

@test "keyword (set -k): sourced and as every entry point, the libraries load and write; the caller keeps -k" {
  run caller 'set -k' "write_stage_snapshot --task TUNE-0254 $WRITE; case \$- in *k*) echo keyword ;; esac"
  [ "${lines[0]}" = "keyword" ]
  [ "${lines[1]}" = "code=0" ]
  [ -f "$ROOT/datarim/snapshots/TUNE-0254.snapshot.md" ]
  run env SHELLOPTS=keyword "$REPO/dev-tools/snapshot-writer-wrapper.sh" --task TUNE-0255 "${WRITE_ARGS[@]}"
  [ "$status" -eq 0 ]
  [ -f "$ROOT/datarim/snapshots/TUNE-0255.snapshot.md" ]
  # Every entry point loads its libraries and answers --help as without -k.
  for entry in "$REPO"/dev-tools/*.sh; do
    case ${entry##*/} in demo*.sh | session-start-hook.sh | stop-hook.sh | prompt-hook.sh) continue ;; esac
    plain=$("$entry" --help 2>&1) && plain_status=0 || plain_status=$?
    run env SHELLOPTS=keyword "$entry" --help
    [ "$status" -eq "$plain_status" ] || {
      echo "${entry##*/}: exit $status, not $plain_status: $output"
      return 1
    }
    [ "$output" = "$plain" ] || {
      echo "${entry##*/}: $output"
      return 1
    }
  done
  run env SHELLOPTS=keyword DATARIM_STATE_DIR="$BATS_TEST_TMPDIR/state" "$REPO/dev-tools/session-start-hook.sh" </dev/null
  [ "$status" -eq 0 ]
  [ -z "$output" ]
}

@test "an IFS of digits: the write reads its settings as usual" {
  run caller 'IFS=0123456789' "write_stage_snapshot --task TUNE-0254 $WRITE"
  [ "${lines[0]}" = "code=0" ]
  [ "${lines[4]}" = "ifs=[0123456789]" ]
  [ -f "$ROOT/datarim/snapshots/TUNE-0254.snapshot.md" ]
}

@test "aliases defined before sourcing never enter the library's functions" {
  run caller "shopt -s expand_aliases; alias cd='echo cd'; alias mv='echo mv'; alias rm='echo rm'" \
    "write_stage_snapshot --task TUNE-0254 $WRITE"
  [ "${lines[0]}" = "code=0" ]
  [ -f "$ROOT/datarim/snapshots/TUNE-0254.snapshot.md" ]
  [ "$(ls -A "$ROOT/datarim/snapshots")" = TUNE-0254.snapshot.md ]
  # The caller keeps its aliases and alias expansion.
  run bash -c "shopt -s expand_aliases; alias cd='echo cd'
    . '$REPO/scripts/lib/snapshot-writer.sh'
    shopt -p expand_aliases; alias"
  [ "${lines[0]}" = "shopt -s expand_aliases" ]
  [ "${lines[1]}" = "alias cd='echo cd'" ]
}

@test "every entry point gives the caller its options back, on success and on refusal" {
  run bash -c "
    export DATARIM_STATE_DIR='$BATS_TEST_TMPDIR/state'
    set -k
    for lib in '$REPO'/scripts/lib/*.sh; do . \"\$lib\"; done
    shopt -s failglob nullglob nocaseglob dotglob nocasematch
    set -f -E -T
    before=\$(shopt -p; set +o)
    for call in write_stage_snapshot write_session_handoff emit_stage_snapshot check_stage_snapshot \
      check_session_handoff resume_replay_main resume_task_main reverify_session_claims \
      session_replay lifecycle_show_main lifecycle_list_main lifecycle_archive_main replay_render_prompt \
      runtime_install_main; do
      \"\$call\" --no-such-flag >/dev/null 2>&1 || :
      \"\$call\" --help >/dev/null 2>&1 || :
      after=\$(shopt -p; set +o)
      [ \"\$before\" = \"\$after\" ] || { echo \"\$call changed the options\"; diff <(echo \"\$before\") <(echo \"\$after\"); }
    done
    session_start_hook </dev/null
    [ \"\$before\" = \"\$(shopt -p; set +o)\" ] || echo 'session_start_hook changed the options'
    for call in stop_hook prompt_hook install_hooks_main; do
      \"\$call\" --no-such-flag </dev/null >/dev/null 2>&1 || :
      \"\$call\" </dev/null >/dev/null 2>&1 || :
      [ \"\$before\" = \"\$(shopt -p; set +o)\" ] || echo \"\$call changed the options\"
    done
    echo done"
  [ "$status" -eq 0 ]
  echo "$output"
  [ "$output" = "done" ]
}

@test "aliases on when a lock found held loads its part of the library: none enters it" {
  local gone
  bash -c 'exit 0' &
  gone=$!
  wait "$gone"
  mkdir "$ROOT/datarim/snapshots/.lock.TUNE-0254"
  printf 'pid=%s\nhost=%s\nstart=\nimpl=bash\n' "$gone" "$(cat /proc/sys/kernel/hostname)" \
    >"$ROOT/datarim/snapshots/.lock.TUNE-0254/owner"
  # datarim-lock-held.sh is read on this first call, inside the caller's shell.
  run caller "shopt -s expand_aliases; alias rm='echo rm'; alias mv='echo mv'; alias ln='echo ln'" \
    "write_stage_snapshot --task TUNE-0254 $WRITE"
  [ "${lines[0]}" = "code=0" ]
  [ "$(ls -A "$ROOT/datarim/snapshots")" = TUNE-0254.snapshot.md ]
  run bash -c "shopt -s expand_aliases; alias rm='echo rm'
    . '$REPO/scripts/lib/snapshot-writer.sh'
    dr_lock_read_owner /nonexistent seen || :
    declare -f dr_lock_take_over | grep -c 'echo rm' || :
    shopt -p expand_aliases; alias"
  [ "${lines[0]}" = 0 ]
  [ "${lines[1]}" = "shopt -s expand_aliases" ]
  [ "${lines[2]}" = "alias rm='echo rm'" ]
}

# allexport_caller <before> <after>: a shell that runs <before>, sources the
# writer, runs <after>, then has the writer refuse a bad task ID (its message
# loads a part of the library) and starts a bash of its own: that bash's
# exported functions, then the entry point and a direct call refusing the same.
allexport_caller() {
  bash -c "$1
    . '$REPO/scripts/lib/snapshot-writer.sh'
    $2
    write_stage_snapshot --task bad.id $WRITE || echo \"code=\$?\"
    bash -c 'declare -Fx | grep -c \"declare -fx dr_\"' || :
    '$REPO/dev-tools/snapshot-writer-wrapper.sh' --task bad.id $WRITE || echo \"code=\$?\"
    bash -c \"write_stage_snapshot --task bad.id $WRITE\" || echo \"code=\$?\"" 2>&1
}

@test "allexport (set -a) on after sourcing: what a call loads is not exported, an entry point refuses as usual" {
  run allexport_caller '' 'set -a'
  echo "$output"
  [ "${lines[0]}" = 'snapshot-writer: invalid --task "bad.id": holds '"'.'"'; a task ID holds only letters, digits and dashes' ]
  [ "${lines[1]}" = "code=1" ]
  [ "${lines[2]}" = 0 ]
  [ "${lines[3]}" = "${lines[0]}" ]
  [ "${lines[4]}" = "code=1" ]
  [[ ${lines[5]} == *"write_stage_snapshot: command not found" ]]
  [ "${lines[6]}" = "code=127" ]
  [ "${#lines[@]}" -eq 7 ]
}

@test "allexport (set -a) while sourcing, off after: a bash started after a call that loaded a part still has it" {
  run allexport_caller 'set -a' 'set +a'
  echo "$output"
  [ "${lines[0]}" = 'snapshot-writer: invalid --task "bad.id": holds '"'.'"'; a task ID holds only letters, digits and dashes' ]
  [ "${lines[1]}" = "code=1" ]
  [ "${lines[2]}" -gt 0 ]
  [ "${lines[3]}" = "${lines[0]}" ]
  [ "${lines[4]}" = "code=1" ]
  [ "${lines[5]}" = "${lines[0]}" ]
  [ "${lines[6]}" = "code=1" ]
  [ "${#lines[@]}" -eq 7 ]
}
