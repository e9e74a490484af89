#!/usr/bin/env bats
# The bash lock's orphan recovery, run with the tools in CONFORMANCE_PATH (make
# bats-busybox runs it with BusyBox's). Both implementations, and SIGKILLed
# holders, are covered by tests/python/test_lock_recovery.py.

setup() {
  REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)
  LOCK=$BATS_TEST_TMPDIR/.lock.TUNE-0254
  read -r HOST </proc/sys/kernel/hostname
  printf 'body\n' >"$BATS_TEST_TMPDIR/body.md"
}

probe() {
  PATH=${CONFORMANCE_PATH:-$PATH} "$REPO/tests/probes/lock-probe.sh" "$LOCK" "$@"
}

gone_pid() {
  bash -c 'exit 0' &
  GONE=$!
  wait "$GONE"
}

@test "a dead owner's lock is taken over at once" {
  gone_pid
  mkdir "$LOCK"
  printf 'pid=%s\nhost=%s\nstart=1\nimpl=python\n' "$GONE" "$HOST" >"$LOCK/owner"
  local began=${EPOCHREALTIME:-}
  SECONDS=0
  run probe 10 0 -
  [ "$status" -eq 0 ]
  [ "$output" = held ]
  # Well under the 2 s grace (bash 5's clock in microseconds; else whole seconds).
  if [ -n "$began" ]; then
    [ $(((${EPOCHREALTIME//[.,]/} - ${began//[.,]/}) / 1000)) -lt 1500 ]
  else
    [ "$SECONDS" -le 1 ]
  fi
  [ ! -e "$LOCK" ]
}

@test "the writer recovers a dead owner's lock and leaves none behind" {
  gone_pid
  root=$BATS_TEST_TMPDIR/ws
  mkdir -p "$root/datarim/snapshots/.lock.TUNE-0254"
  printf 'pid=%s\nhost=%s\nstart=\nimpl=bash\n' "$GONE" "$HOST" >"$root/datarim/snapshots/.lock.TUNE-0254/owner"
  PATH=${CONFORMANCE_PATH:-$PATH} DR_SNAPSHOT_LOCK_TIMEOUT=5 "$REPO/dev-tools/snapshot-writer-wrapper.sh" \
    --root "$root" --task TUNE-0254 --stage plan --command /dr-plan --captured-by agent \
    --recommended-next /dr-do --body-file "$BATS_TEST_TMPDIR/body.md"
  [ "$(ls -A "$root/datarim/snapshots")" = TUNE-0254.snapshot.md ]
  "$REPO/dev-tools/check-stage-snapshot-on-exit.sh" --task TUNE-0254 --root "$root"
}

@test "a live owner's lock and another host's are waited for, then exit 3" {
  local start stat
  read -r stat </proc/$$/stat
  # shellcheck disable=SC2086
  set -- ${stat##*) }
  start=${20}
  mkdir "$LOCK"
  printf 'pid=%s\nhost=%s\nstart=%s\nimpl=bash\n' "$$" "$HOST" "$start" >"$LOCK/owner"
  cp "$LOCK/owner" "$BATS_TEST_TMPDIR/live"
  run probe 1 0 -
  [ "$status" -eq 3 ]
  cmp "$LOCK/owner" "$BATS_TEST_TMPDIR/live"
  gone_pid
  printf 'pid=%s\nhost=elsewhere.example\nstart=1\nimpl=bash\n' "$GONE" >"$LOCK/owner"
  run probe 1 0 -
  [ "$status" -eq 3 ]
  grep -qx host=elsewhere.example "$LOCK/owner"
}

@test "a lock without an owner record is waited for during the grace, then taken over" {
  mkdir "$LOCK"
  run probe 1 0 -
  [ "$status" -eq 3 ]
  [ ! -e "$LOCK/owner" ]
  SECONDS=0
  run probe 10 0 -
  [ "$status" -eq 0 ]
  [ "$output" = held ]
  [ "$SECONDS" -ge 2 ]
}

@test "a waiter whose sleep takes over a second still takes over a lock without an owner record" {
  # A sleep that rounds 0.02 up to whole seconds, on a loaded machine: looks
  # 1.4 s apart, each under the grace from the last, so the watch goes on.
  local slow=$BATS_TEST_TMPDIR/slow real_sleep
  real_sleep=$(PATH=${CONFORMANCE_PATH:-$PATH} command -v sleep)
  mkdir "$slow"
  # shellcheck disable=SC2016 # $1 is the wrapper's own argument
  printf '#!/bin/sh\ncase $1 in *.*) exec %s 1.4 ;; esac\nexec %s "$1"\n' "$real_sleep" "$real_sleep" >"$slow/sleep"
  # No FIFO either, so that bash 4.1 and later nap with sleep too.
  printf '#!/bin/sh\nexit 1\n' >"$slow/mkfifo"
  chmod +x "$slow/sleep" "$slow/mkfifo"
  mkdir "$LOCK"
  SECONDS=0
  run env PATH="$slow:${CONFORMANCE_PATH:-$PATH}" "$REPO/tests/probes/lock-probe.sh" "$LOCK" 10 0 -
  [ "$status" -eq 0 ]
  [ "$output" = held ]
  [ "$SECONDS" -ge 2 ]
  [ ! -e "$LOCK" ]
}

@test "a waiter forks no sleep a poll (bash 4.1 and later) and leaves no FIFO" {
  [ "${BASH_VERSINFO[0]}" -gt 4 ] || { [ "${BASH_VERSINFO[0]}" -eq 4 ] && [ "${BASH_VERSINFO[1]}" -ge 1 ]; } ||
    skip "bash $BASH_VERSION naps with sleep"
  # A `sleep` that counts its calls; the lock is another host's, so only waited for.
  local counting=$BATS_TEST_TMPDIR/counting real_sleep
  real_sleep=$(PATH=${CONFORMANCE_PATH:-$PATH} command -v sleep)
  mkdir "$counting"
  # shellcheck disable=SC2016 # $1 is the wrapper's own argument
  printf '#!/bin/sh\necho x >>%s/calls\nexec %s "$1"\n' "$counting" "$real_sleep" >"$counting/sleep"
  chmod +x "$counting/sleep"
  mkdir "$LOCK"
  printf 'pid=1\nhost=elsewhere.example\nstart=\nimpl=bash\n' >"$LOCK/owner"
  mkdir "$BATS_TEST_TMPDIR/tmp"
  run env PATH="$counting:${CONFORMANCE_PATH:-$PATH}" TMPDIR="$BATS_TEST_TMPDIR/tmp" \
    "$REPO/tests/probes/lock-probe.sh" "$LOCK" 2 0 -
  [ "$status" -eq 3 ]
  [ ! -e "$counting/calls" ]
  [ -z "$(ls -A "$BATS_TEST_TMPDIR/tmp")" ]
  grep -qx host=elsewhere.example "$LOCK/owner"
}
