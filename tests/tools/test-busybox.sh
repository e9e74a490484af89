#!/usr/bin/env bash
# Runs the bats conformance suite (and the bash lock tests) a second time with
# every tool the bash implementation calls taken from BusyBox: a PATH directory
# holding one symlink per BusyBox applet, plus bash itself. BusyBox's strict,
# non-GNU coreutils, grep, sed and awk stand in for macOS's BSD ones. git,
# which BusyBox does not have, is linked in as it is.
#
#   tests/tools/test-busybox.sh [bats args...]     (make bats-busybox)
#
# Installs Debian's busybox package when it is missing and we are root; else
# prints a skip notice and exits 0, unless DATARIM_REQUIRE_BUSYBOX=1 (CI),
# which makes a missing busybox an error.
set -euo pipefail
cd "$(dirname -- "$0")/../.."
repo=$PWD
dir=$repo/.busybox/bin

skip() {
  if [ "${DATARIM_REQUIRE_BUSYBOX:-}" = 1 ]; then
    echo "busybox conformance run: $1 (DATARIM_REQUIRE_BUSYBOX=1)" >&2
    exit 1
  fi
  echo "SKIPPED: busybox conformance run: $1"
  exit 0
}

if ! command -v busybox >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing busybox (apt-get)"
    apt-get install -y -q busybox >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q busybox >/dev/null 2>&1; } || :
  fi
  command -v busybox >/dev/null 2>&1 || skip "busybox is not installed (apt-get install busybox, as root)"
fi
busybox=$(command -v busybox)

rm -rf "$dir"
mkdir -p "$dir"
count=0
for applet in $(busybox --list); do
  ln -s "$busybox" "$dir/$applet"
  count=$((count + 1))
done
ln -sf "$(command -v bash)" "$dir/bash"
# git is no POSIX tool (macOS has it too): the session probes call it as it is.
if command -v git >/dev/null 2>&1; then ln -sf "$(command -v git)" "$dir/git"; fi
# Make sure the run cannot reach a GNU tool: every entry is busybox but bash and git.
for tool in awk sed grep mkdir mv rm sleep date cat sync ps; do
  [ "$(readlink "$dir/$tool")" = "$busybox" ] || skip "busybox has no $tool applet"
done
echo "busybox conformance run: PATH=$dir ($count BusyBox applets and bash)"
CONFORMANCE_PATH=$dir bats "$@" tests/bats/conformance.bats tests/bats/lock.bats
