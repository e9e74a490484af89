#!/usr/bin/env bash
# Runs a command (make test's suites) and fails when it left a file in the
# repository that git neither tracks nor ignores: tests write into temp
# directories only. Outside a git checkout it only runs the command.
#
#   tests/tools/leaves-no-files.sh <command> [args...]
set -euo pipefail
cd "$(dirname -- "$0")/../.."
untracked() { git ls-files --others --exclude-standard -z | tr '\0' '\n' | LC_ALL=C sort; }
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then exec "$@"; fi
before=$(untracked)
status=0
"$@" || status=$?
new=$(LC_ALL=C comm -13 <(printf '%s\n' "$before") <(untracked) | sed '/^$/d')
if [ -n "$new" ]; then
  printf 'leaves-no-files: the run left files in the repository (tests must write into a temp directory):\n%s\n' "$new" >&2
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
