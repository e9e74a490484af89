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

@test "a session ID's date and time are judged by the rule of --captured-at (is_timestamp)" {
  # Every day from 0000 to the 13th month, of a leap, a century, a 400 and a
  # plain year, then times at each edge: the bash verdict (dr_session_id_ok)
  # and awk's is_timestamp, which judges --captured-at, must agree on each.
  # shellcheck source=scripts/lib/datarim-common.sh
  . "$LIB/datarim-common.sh"
  local y m d t id bash_says
  : >"$BATS_TEST_TMPDIR/ids"
  for y in 0000 0001 1900 2000 2024 2026 2100; do
    for m in 00 01 02 03 04 06 09 11 12 13; do
      for d in 00 01 28 29 30 31 32; do
        printf 'SESSION-%s%s%s-000000\n' "$y" "$m" "$d" >>"$BATS_TEST_TMPDIR/ids"
      done
    done
  done
  for t in 000000 235959 240000 236000 235960 099999 995959; do
    printf 'SESSION-20260521-%s\n' "$t" >>"$BATS_TEST_TMPDIR/ids"
  done
  : >"$BATS_TEST_TMPDIR/bash"
  while IFS= read -r id; do
    if dr_session_id_ok "$id"; then bash_says=1; else bash_says=0; fi
    printf '%s %s\n' "$id" "$bash_says" >>"$BATS_TEST_TMPDIR/bash"
  done <"$BATS_TEST_TMPDIR/ids"
  LC_ALL=C awk -f "$LIB/datarim-rules.awk" -f /dev/stdin "$BATS_TEST_TMPDIR/ids" >"$BATS_TEST_TMPDIR/awk" <<'AWK'
{ s = $0; printf "%s %d\n", s, is_timestamp(substr(s, 9, 4) "-" substr(s, 13, 2) "-" substr(s, 15, 2) "T" substr(s, 18, 2) ":" substr(s, 20, 2) ":" substr(s, 22, 2) "Z") }
AWK
  run diff "$BATS_TEST_TMPDIR/bash" "$BATS_TEST_TMPDIR/awk"
  [ "$status" -eq 0 ]
  # Both verdicts occur, so the comparison says something.
  grep -q ' 1$' "$BATS_TEST_TMPDIR/bash"
  grep -q ' 0$' "$BATS_TEST_TMPDIR/bash"
}
