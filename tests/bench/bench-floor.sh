#!/usr/bin/env bash
# `make bench`'s floor: what any bash implementation of the write protocol
# costs before it does any work of its own. bash started as the entry points
# are, then the five tools the protocol needs (render, lock, fsync, rename,
# release) on throw-away paths under <dir>, with no validation, no rendering
# and no error handling.
#
#   tests/bench/bench-floor.sh <dir>
set -eu
dir=$1
out=$(LC_ALL=C exec awk 'BEGIN { printf "x." }' </dev/null)
LC_ALL=C mkdir -m 700 "$dir/lock"
printf 'pid=1\n' >"$dir/lock/owner"
(
  umask 077
  printf '%s' "$out" >"$dir/tmp"
  LC_ALL=C exec sync -- "$dir/tmp"
)
LC_ALL=C mv -f -- "$dir/tmp" "$dir/target"
LC_ALL=C rm -rf -- "$dir/lock"
