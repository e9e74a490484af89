#!/usr/bin/env bash
# Runs the snapshot writer of each reference release on inputs of our own and
# keeps what it wrote: tests/conformance/fixtures/history/<commit>/gen-<case>/.
# The files are data (the outputs of the reference's code, not its code);
# test_fuzz_validators.py validates and replays every one in both languages.
#
#   tests/tools/reference-history.sh <reference git dir> [<out dir>]
#
# The reference is github.com/Arcanada-one/datarim; the commits are those that
# changed scripts/lib/snapshot-writer.sh (see history/SOURCE.txt).
set -euo pipefail
reference=${1:?usage: reference-history.sh <reference git dir> [<out dir>]}
out=${2:-$(cd "$(dirname -- "$0")/../conformance/fixtures/history" && pwd)}
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
export LC_ALL=C.UTF-8 TZ=UTC

# body <file> <text bytes> <filler> <first line>: an answer ending in a CTA block, its
# middle <text bytes> of <filler> (a byte or a character) on lines of 60.
body() {
  {
    printf '%s\n\n' "$4"
    awk -v n="$2" -v f="$3" 'BEGIN { for (i = 1; i <= n; i++) { printf "%s", f; if (i % 60 == 0) printf "\n" } printf "\n" }'
    printf '\n---\n\n**Следующий шаг — TUNE-0254**\n\n'
    # shellcheck disable=SC2016 # the backticks are the CTA's, not a command
    printf '%s\n' '1. `/dr-do TUNE-0254` — **рекомендуется** — implement' \
      '2. `/dr-qa TUNE-0254` — check first: "quotes", #hash, a: colon'
  } >"$1"
}

# run <commit> <case> <body file> <options file or ->
run() {
  local tree=$work/$1 ws=$work/ws-$1-$2 options=()
  [ -d "$tree" ] || {
    mkdir -p "$tree"
    git --git-dir="$reference" archive "$1" scripts | tar -x -C "$tree"
  }
  mkdir -p "$ws/datarim/snapshots"
  [ "$4" = - ] || options=(--options-file "$4")
  bash "$tree/scripts/lib/snapshot-writer.sh" --root "$ws" --task TUNE-0254 --stage plan \
    --command /dr-plan --captured-by agent --recommended-next /dr-do "${options[@]}" \
    --body-file "$3" >/dev/null
  mkdir -p "$out/$1/gen-$2"
  # The time the writer stamped is the run's; pin it, so a rerun changes nothing.
  sed 's/^captured_at: .*/captured_at: 2026-06-01T10:00:00Z/' \
    "$ws/datarim/snapshots/TUNE-0254.snapshot.md" >"$out/$1/gen-$2/TUNE-0254.snapshot.md"
}

printf '/dr-do TUNE-0254 | implement\n/dr-qa TUNE-0254 | check first: "quotes", #hash, a: colon\n' >"$work/options"
body "$work/b700" 700 y '**TUNE-0254 · Fix the writer**'
body "$work/cyrillic" 900 ж '**TUNE-0254 · Починить writer**'
body "$work/plain-first" 1500 z 'Plan ready, no stage header.'
body "$work/near-cap" 7600 q '**TUNE-0254 · Fix the writer**'
# The glued releases declare 999 for a file of 999 bytes and 1000 for one of
# 1001: the size's fourth digit is where they start to count one byte short.
body "$work/size-999" 457 y '**TUNE-0254 · Fix the writer**'
body "$work/size-1000" 458 y '**TUNE-0254 · Fix the writer**'
for commit in 5cf271d 65cd2b2 6fa0baa bb70c8e 2b4d857 2d44813; do
  run "$commit" body-700 "$work/b700" "$work/options"
  run "$commit" cyrillic "$work/cyrillic" "$work/options"
  run "$commit" plain-first-line "$work/plain-first" -
  run "$commit" near-cap "$work/near-cap" "$work/options"
  run "$commit" size-999 "$work/size-999" "$work/options"
  run "$commit" size-1000 "$work/size-1000" "$work/options"
done
