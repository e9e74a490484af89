#!/usr/bin/env bats
# The session-handoff bash libraries as a caller sources them: they define
# functions only, keep the caller's options and traps, and return codes
# instead of exiting the caller's shell (which runs with set -euo pipefail).

setup() {
  LIB=$(cd "$BATS_TEST_DIRNAME/../../scripts/lib" && pwd -P)
  WS=$BATS_TEST_TMPDIR/ws
  mkdir -p "$WS"
}

# The caller: strict options and a trap; reports what sourcing changed.
caller() {
  bash -c '
    set -euo pipefail
    trap "echo trapped" USR1
    before_opts=$-:$(set -o | tr -s " \t" " ")
    before_trap=$(trap -p)
    before_vars=$(compgen -v | grep -v -e "^BASH" -e "^_$" -e "^FUNCNAME$" -e "^PIPESTATUS$" -e "^before_" | sort)
    . "$1"
    . "$1"
    after_vars=$(compgen -v | grep -v -e "^BASH" -e "^_$" -e "^FUNCNAME$" -e "^PIPESTATUS$" -e "^before_" | sort)
    [ "$before_opts" = "$-:$(set -o | tr -s " \t" " ")" ] || { echo "options changed"; exit 9; }
    [ "$before_trap" = "$(trap -p)" ] || { echo "traps changed"; exit 9; }
    [ "$before_vars" = "$after_vars" ] || { echo "variables added: $(comm -13 <(echo "$before_vars") <(echo "$after_vars"))"; exit 9; }
    shift
    status=0
    "$@" >/dev/null 2>&1 || status=$?
    echo "returned $status"
  ' caller "$@"
}

@test "sourcing session-handoff-writer.sh defines functions only; a refusal returns 2" {
  run caller "$LIB/session-handoff-writer.sh" write_session_handoff --bogus
  [ "$status" -eq 0 ]
  [ "$output" = "returned 2" ]
}

@test "a writer refusal returns 1 without exiting the caller" {
  run caller "$LIB/session-handoff-writer.sh" write_session_handoff --root "$WS" --session bad \
    --captured-by agent --recommended-next /dr-do --next-action x --active-tasks-file /dev/null --body-file /dev/null
  [ "$status" -eq 0 ]
  [ "$output" = "returned 1" ]
}

@test "sourcing session-handoff-validator.sh defines functions only; a missing artefact returns 1" {
  run caller "$LIB/session-handoff-validator.sh" check_session_handoff --session SESSION-20260521-134500 --root "$WS"
  [ "$status" -eq 0 ]
  [ "$output" = "returned 1" ]
}

@test "sourcing session-replay.sh defines functions only; usage returns 3" {
  run caller "$LIB/session-replay.sh" session_replay --latest --session SESSION-20260521-134500
  [ "$status" -eq 0 ]
  [ "$output" = "returned 3" ]
}

@test "sourcing session-probes.sh defines functions only; a failed probe returns 1 with --exit-code" {
  run caller "$LIB/session-probes.sh" reverify_session_claims --file-missing --path "$WS/none" --exit-code
  [ "$status" -eq 0 ]
  [ "$output" = "returned 1" ]
}

@test "the writer library also runs directly" {
  run bash "$LIB/session-handoff-writer.sh" --help
  [ "$status" -eq 2 ]
  [ "${lines[0]%% *}" = "Usage:" ]
}
