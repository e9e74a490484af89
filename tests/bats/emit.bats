#!/usr/bin/env bats
# emit (bash side), beyond the data-driven corpus in tests/conformance/suites/emit:
# the library's sourcing contract, and the replay of an emitted snapshot.

setup() {
  REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)
  WS=$BATS_TEST_TMPDIR/ws
  mkdir -p "$WS"
  # The primary is option 2, and option 1 has the same first word (test_emit.py reads it too).
  cp "$REPO/tests/fixtures/cta-primary-second.md" "$BATS_TEST_TMPDIR/answer.md"
}

emit_args() {
  printf '%s\n' --root "$WS" --task TUNE-0032 --stage verify --command /dr-verify \
    --response-file "$BATS_TEST_TMPDIR/answer.md" --captured-at 2026-05-21T13:45:00Z
}

@test "sourcing snapshot-emit.sh twice defines functions and changes no option, trap or variable" {
  run bash -c '
    set -euo pipefail
    trap "echo bye" EXIT
    before=$(set -o; shopt; trap -p; declare -p | grep -v "^declare -[-a-zA-Z]* \(BASH_\|_=\|FUNCNAME\|PIPESTATUS\|before=\)")
    . "$1/scripts/lib/snapshot-emit.sh"
    . "$1/scripts/lib/snapshot-emit.sh"
    after=$(set -o; shopt; trap -p; declare -p | grep -v "^declare -[-a-zA-Z]* \(BASH_\|_=\|FUNCNAME\|PIPESTATUS\|before=\)")
    [ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); exit 9; }
    declare -F emit_stage_snapshot emit_parse_cta write_stage_snapshot >/dev/null
    trap - EXIT
    echo sourced
  ' _ "$REPO"
  [ "$status" -eq 0 ]
  [ "$output" = sourced ]
}

@test "a refusal returns 1 to a caller under set -euo pipefail, whose variables stay as they were" {
  printf 'no CTA block here\n' >"$BATS_TEST_TMPDIR/bare.md"
  run bash -c '
    set -euo pipefail
    . "$1/scripts/lib/snapshot-emit.sh"
    opt_task=mine cta_next=mine content=mine status=0
    emit_stage_snapshot --root "$2" --task TUNE-0032 --stage plan --command /dr-plan \
      --response-file "$3" 2>/dev/null || status=$?
    echo "status=$status $opt_task $cta_next $content"
  ' _ "$REPO" "$WS" "$BATS_TEST_TMPDIR/bare.md"
  [ "$status" -eq 0 ]
  [ "$output" = "status=1 mine mine mine" ]
  [ ! -e "$WS/datarim" ]
}

@test "the replay of an emitted snapshot shows the primary option with its purpose as the CTA line" {
  local -a args=()
  local line
  while IFS= read -r line; do args+=("$line"); done < <(emit_args)
  "$REPO/dev-tools/emit-stage-snapshot.sh" "${args[@]}"
  run "$REPO/dev-tools/render-replay-prompt.sh" --task TUNE-0032 --root "$WS" --hint
  [ "$status" -eq 0 ]
  [ "$output" = /dr-do ]
  # Option 1 also starts with /dr-do; the replay must still show the primary.
  run "$REPO/dev-tools/render-replay-prompt.sh" --task TUNE-0032 --root "$WS"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "/dr-do TUNE-0032 | TDD implementation" ]
  [[ "$output" == *$'\n'"done before:"$'\n'"$(cat "$BATS_TEST_TMPDIR/answer.md")" ]]
}

@test "--dry-run and --json print what the write then holds, and touch nothing" {
  local -a args=()
  local line
  while IFS= read -r line; do args+=("$line"); done < <(emit_args)
  run "$REPO/dev-tools/emit-stage-snapshot.sh" "${args[@]}" --dry-run
  [ "$status" -eq 0 ]
  preview=$output
  run "$REPO/dev-tools/emit-stage-snapshot.sh" "${args[@]}" --json
  [ "$status" -eq 0 ]
  [[ "$output" == '{"task_id":"TUNE-0032","recommended_next":"/dr-do","options":["/dr-do TUNE-0032 | TDD implementation",'* ]] || false
  [ ! -e "$WS/datarim" ]
  "$REPO/dev-tools/emit-stage-snapshot.sh" "${args[@]}"
  [[ "$(cat "$WS/datarim/snapshots/TUNE-0032.snapshot.md")" == *$'\n'"$preview"$'\n'size_bytes:* ]]
}
