#!/usr/bin/env bash
# make test-netfs probe: takes a datarim lock through the bash library <holds>
# times, and proves each hold exclusive.
#   hold.sh <lock-dir> <timeout-s> <holds> <marker-dir> <log>
# Holding, it makes <marker-dir> (on a local filesystem every holder shares:
# mkdir fails while another holder is inside) and appends "start"/"end" lines
# with the time to <log>. Exit 9 on a second holder, the lock's codes otherwise.
set -euo pipefail
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/datarim-common.sh
. "$here/../../scripts/lib/datarim-common.sh"
lock=$1 timeout=$2 holds=$3 marker=$4 log=$5
dr_host_name host
n=0
while [ "$n" -lt "$holds" ]; do
  status=0
  dr_lock_acquire hold "$lock" "$timeout" || status=$?
  [ "$status" -eq 0 ] || exit "$status"
  mkdir "$marker" 2>/dev/null || {
    # shellcheck disable=SC2154 # host: set by dr_host_name
    echo "VIOLATION $host bash $$" >>"$log"
    exit 9
  }
  echo "start ${EPOCHREALTIME:-$SECONDS} $host bash $$" >>"$log"
  sleep 0.005
  echo "end ${EPOCHREALTIME:-$SECONDS} $host bash $$" >>"$log"
  rmdir "$marker"
  dr_lock_release "$lock"
  n=$((n + 1))
done
