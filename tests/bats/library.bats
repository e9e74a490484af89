#!/usr/bin/env bats
# The bash libraries as a caller sources them: they define functions and nothing
# else, never exit the caller's shell, and leave its options, traps, variables,
# locale, directory and umask as they were.

load caller-state

setup() {
  caller_setup
  printf 'body\n' >"$BATS_TEST_TMPDIR/body.md"
}

# A caller script's opening: state (what a sourced library must leave as it was),
# then strict mode, a trap, a locale and a directory changed twice (so OLDPWD is set).
caller_state_here() {
  caller_state 'dr_|_?snapshot_|git_anchor_|write_stage_snapshot|check_stage_snapshot|replay_' ''
  printf "set -euo pipefail\ntrap 'echo bye' EXIT\nexport LC_ALL=C.UTF-8\ncd /tmp && cd '%s'\n" "$ROOT"
}

@test "sourcing the writer once or twice defines functions only" {
  run bash -c "$(caller_state_here)
    before=\$(state)
    . '$REPO/scripts/lib/snapshot-writer.sh'
    . '$REPO/scripts/lib/snapshot-writer.sh'
    . '$REPO/scripts/lib/snapshot-validator.sh'
    . '$REPO/scripts/lib/replay-render.sh'
    after=\$(state)
    [ \"\$before\" = \"\$after\" ] || { diff <(echo \"\$before\") <(echo \"\$after\"); exit 9; }
    declare -F write_stage_snapshot check_stage_snapshot replay_render_prompt >/dev/null"
  [ "$status" -eq 0 ]
  [ "$output" = "bye" ]
}

@test "a failing call under set -euo pipefail returns its code and leaves the caller's state" {
  run bash -c "$(caller_state_here)
    umask 027
    . '$REPO/scripts/lib/snapshot-writer.sh'
    codes=
    before=\$(state)
    write_stage_snapshot --root '$ROOT' 2>/dev/null || codes=\"\$codes \$?\"
    write_stage_snapshot --root '$ROOT' --task ../x --stage plan --command /dr-plan \
      --captured-by agent --recommended-next /dr-do --body-file '$BATS_TEST_TMPDIR/body.md' 2>/dev/null || codes=\"\$codes \$?\"
    write_stage_snapshot --root '$ROOT/nope' --task TUNE-0254 --stage plan --command /dr-plan \
      --captured-by agent --recommended-next /dr-do --body-file '$BATS_TEST_TMPDIR/body.md' 2>/dev/null || codes=\"\$codes \$?\"
    mkdir -p '$ROOT/datarim/snapshots/.lock.TUNE-0254'
    DR_SNAPSHOT_LOCK_TIMEOUT=0 write_stage_snapshot --root '$ROOT' --task TUNE-0254 --stage plan --command /dr-plan \
      --captured-by agent --recommended-next /dr-do --body-file '$BATS_TEST_TMPDIR/body.md' 2>/dev/null || codes=\"\$codes \$?\"
    rmdir '$ROOT/datarim/snapshots/.lock.TUNE-0254'
    write_stage_snapshot --root '$ROOT' --task TUNE-0254 --stage plan --command /dr-plan \
      --captured-by agent --recommended-next /dr-do --body-file '$BATS_TEST_TMPDIR/body.md' || codes=\"\$codes \$?\"
    after=\$(state)
    [ \"\$before\" = \"\$after\" ] || { diff <(echo \"\$before\") <(echo \"\$after\"); exit 9; }
    echo \"codes:\$codes\""
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "codes: 2 1 1 3" ]
  [ "${lines[1]}" = "bye" ]
  [ -f "$ROOT/datarim/snapshots/TUNE-0254.snapshot.md" ]
}

@test "the default captured_at is now, in UTC" {
  before=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  TZ=Asia/Tokyo "$REPO/dev-tools/snapshot-writer-wrapper.sh" --root "$ROOT" --task TUNE-0254 \
    --stage plan --command /dr-plan --captured-by agent --recommended-next /dr-do \
    --body-file "$BATS_TEST_TMPDIR/body.md"
  after=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  stamp=$(sed -n 's/^captured_at: //p' "$ROOT/datarim/snapshots/TUNE-0254.snapshot.md")
  [[ $stamp =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$ ]] || false
  # Stamps of this one format order as their text does: before <= stamp <= after.
  in_order=$(printf '%s\n' "$before" "$stamp" "$after")
  [ "$(printf '%s\n' "$in_order" | LC_ALL=C sort)" = "$in_order" ]
}

@test "the library runs directly, and its usage goes to stdout with exit 2" {
  run bash "$REPO/scripts/lib/snapshot-writer.sh" --help
  [ "$status" -eq 2 ]
  [ "${lines[0]}" = "Usage: write_stage_snapshot --root <dir> --task <TASK-ID> --stage <stage>" ]
  run bash "$REPO/scripts/lib/snapshot-writer.sh" --root "$ROOT" --task TUNE-0254 --stage plan \
    --command /dr-plan --captured-by agent --recommended-next /dr-do \
    --body-file "$BATS_TEST_TMPDIR/body.md" --captured-at 2026-05-21T13:45:00Z
  [ "$status" -eq 0 ]
  "$REPO/dev-tools/check-stage-snapshot-on-exit.sh" --task TUNE-0254 --root "$ROOT"
}

@test "the wrapper works when started from a zsh-like parent with a foreign environment" {
  run env -i PATH="$PATH" sh -c "cd / && '$REPO/dev-tools/snapshot-writer-wrapper.sh' --root '$ROOT' \
    --task TUNE-0254 --stage plan --command /dr-plan --captured-by agent --recommended-next /dr-do \
    --body-file '$BATS_TEST_TMPDIR/body.md' --captured-at 2026-05-21T13:45:00Z"
  [ "$status" -eq 0 ]
  # The only output: the root had no knowledge base, and now has one.
  [ "$output" = "snapshot-writer: created a new knowledge base in $(cd "$ROOT" && pwd -P)/datarim (is --root right?)" ]
}

@test "a stub whose file does not define its function fails once: command not found, no loop" {
  run bash -c ". '$REPO/scripts/lib/datarim-common.sh'
    dr_missing() { dr_autoload datarim-rules.sh dr_missing \"\$@\"; }
    dr_missing a b
    echo \"code=\$?\""
  [ "${lines[-1]}" = "code=127" ]
  [[ $output == *"dr_missing: command not found"* ]]
}

@test "a function loaded on first use runs with its arguments and replaces its stub" {
  run bash -c ". '$REPO/scripts/lib/datarim-common.sh'
    declare -f dr_lock_read_owner | grep -c dr_autoload
    mkdir -p '$BATS_TEST_TMPDIR/.lock.X'
    printf 'pid=1\n' >'$BATS_TEST_TMPDIR/.lock.X/owner'
    dr_lock_read_owner '$BATS_TEST_TMPDIR/.lock.X' seen && printf '%s' \"\$seen\"
    declare -f dr_lock_read_owner | grep -c dr_autoload"
  [ "${lines[0]}" = 1 ]
  [ "${lines[1]}" = "pid=1" ]
  [ "${lines[2]}" = 0 ]
}
