#!/usr/bin/env bash
# Test probe: holds a datarim lock through the bash library.
#   lock-probe.sh <lock-dir> <timeout-s> <hold-s|until:FILE> <inside-marker-dir|->
# Prints "held" once it holds the lock, and holds it <hold-s> seconds or until
# FILE exists (for tests that release it when they are ready, not by a clock). While holding, it makes <marker>
# (mkdir fails if another holder is inside: prints VIOLATION, exit 9); before
# releasing it checks that the lock's owner file is still its own (else LOST,
# exit 8); an absent one is read again for up to 30 s, since a waiter that
# judged a stale record moves it aside for a moment before it puts it back, and
# on a loaded machine that moment can last seconds (the lock protocol keeps the
# record aside meanwhile; another record, or none for 30 s, is a loss).
# Exit codes of dr_lock_acquire otherwise (1, 3).
set -euo pipefail
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/datarim-common.sh
. "$here/../../scripts/lib/datarim-common.sh"
lock=$1 marker=$4
status=0
dr_lock_acquire lock-probe "$lock" "$2" || status=$?
[ "$status" -eq 0 ] || exit "$status"
echo held
if [ "$marker" != - ]; then mkdir "$marker" 2>/dev/null || {
  echo VIOLATION
  exit 9
}; fi
case $3 in
  until:*) until [ -e "${3#until:}" ]; do sleep 0.01 2>/dev/null || sleep 1; done ;;
  *) sleep "$3" ;;
esac
if [ "$marker" != - ]; then rmdir "$marker"; fi
dr_process_start "${BASHPID:-$$}" start
dr_host_name host
began=$SECONDS
until dr_lock_read_owner "$lock" seen; do
  seen=
  [ $((SECONDS - began)) -lt 30 ] || break
  sleep 0.005 2>/dev/null || sleep 1
done
# shellcheck disable=SC2154 # host and start: set by dr_host_name and dr_process_start
if [ "$seen" != "pid=${BASHPID:-$$}"$'\n'"host=$host"$'\n'"start=$start"$'\n'"impl=bash"$'\n' ]; then
  echo LOST
  exit 8
fi
dr_lock_release "$lock"
