#!/usr/bin/env bash
# Python twin: none (bash only)
# `make demo`: a sample task through several stages in a throw-away workspace.
# Each step prints the command it runs, then what came of it.
set -euo pipefail
repo=$(cd "$(dirname -- "$0")/.." && pwd -P)
tools=$repo/dev-tools
work=$(mktemp -d "${TMPDIR:-/tmp}/datarim-demo.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
root=$work/project
mkdir -p "$root"
cd "$work"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() {
  printf '$ %s\n' "$*"
  "$@"
}

emit_stage() { # <stage> <command> [--dry-run]; the stage's answer, ending in its CTA block, on stdin
  cat >"$work/answer.md"
  # One call from the stage's answer to its snapshot: no hand-made options file.
  show "$tools/emit-stage-snapshot.sh" --root "$root" --task DEMO-0001 --stage "$1" \
    --command "$2" --response-file "$work/answer.md" ${3+"$3"}
  [ $# -eq 3 ] && return 0
  show "$tools/check-stage-snapshot-on-exit.sh" --task DEMO-0001 --root "$root"
  echo "valid (exit $?)"
}

step "Workspace: $root"
emit_stage init /dr-init <<'EOF'
**DEMO-0001 · Retries for the fetcher**

Task DEMO-0001 created: add retries to the fetcher.

---

**Следующий шаг — DEMO-0001** (L2, init)

1. `/dr-plan DEMO-0001` — **рекомендуется** — plan the work
2. `/dr-status` — backlog overview

---
EOF
plan_answer() {
  cat <<'EOF'
**DEMO-0001 · Retries for the fetcher**

Plan: 3 steps. 1) backoff helper 2) wire into fetcher 3) tests.

---

**Следующий шаг — DEMO-0001** (L2, planned)

1. `/dr-do DEMO-0001` — альтернатива — TDD implementation
2. `/dr-verify DEMO-0001` — **рекомендуется** — tri-layer plan verification
3. `/dr-status` — escape hatch

---
EOF
}
plan_answer | emit_stage plan /dr-plan --dry-run
plan_answer | emit_stage plan /dr-plan

step "The Python port writes the same bytes (stage do)"
printf 'Implemented: backoff helper, fetcher wiring, 12 tests green.\n' >"$work/answer.md"
printf '/dr-qa DEMO-0001 | coverage check\n/dr-archive DEMO-0001 | finalise\n' >"$work/options.txt"
mkdir -p "$work/twin"
for impl in bash python; do
  dest=$root
  [ "$impl" = python ] && dest=$work/twin
  if [ "$impl" = bash ]; then
    "$tools/snapshot-writer-wrapper.sh" --root "$dest" --task DEMO-0001 --stage 'do' --command /dr-do \
      --captured-by agent --recommended-next /dr-qa --body-file "$work/answer.md" \
      --options-file "$work/options.txt" --captured-at 2026-11-30T12:00:00Z
  else
    python -m datarim_snapshot write --root "$dest" --task DEMO-0001 --stage 'do' --command /dr-do \
      --captured-by agent --recommended-next /dr-qa --body-file "$work/answer.md" \
      --options-file "$work/options.txt" --captured-at 2026-11-30T12:00:00Z
  fi
done
show cmp "$root/datarim/snapshots/DEMO-0001.snapshot.md" "$work/twin/datarim/snapshots/DEMO-0001.snapshot.md"
echo "identical"
show cat "$root/datarim/snapshots/DEMO-0001.snapshot.md"

step "A 1 MiB answer is cut at a UTF-8 boundary to fit 8192 bytes"
awk 'BEGIN { for (i = 0; i < 40000; i++) print "строка ответа " i }' >"$work/long.md"
show "$tools/snapshot-writer-wrapper.sh" --root "$root" --task DEMO-0002 --stage qa --command /dr-qa \
  --captured-by agent --recommended-next /dr-archive --body-file "$work/long.md"
file=$root/datarim/snapshots/DEMO-0002.snapshot.md
printf 'size on disk: %s bytes; ' "$(wc -c <"$file" | tr -d ' ')"
grep -E '^(size_bytes|truncated):' "$file" | tr '\n' ' '
printf '\nlast line: %s\n' "$(tail -n 1 "$file")"
show "$tools/check-stage-snapshot-on-exit.sh" --task DEMO-0002 --root "$root"
echo "valid (exit $?)"

step "Bad input is refused and the existing snapshot stays as it was"
before=$(cksum <"$root/datarim/snapshots/DEMO-0001.snapshot.md")
status=0
show "$tools/snapshot-writer-wrapper.sh" --root "$root" --task 'DEMO-0001/../../etc' --stage 'do' \
  --command /dr-do --captured-by agent --recommended-next /dr-qa --body-file "$work/answer.md" || status=$?
echo "exit $status"
[ "$before" = "$(cksum <"$root/datarim/snapshots/DEMO-0001.snapshot.md")" ] && echo "DEMO-0001 unchanged"

step "A token quoted in the answer is saved as [REDACTED]"
printf 'Deployed to staging with GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a.\n' >"$work/leaky.md"
show "$tools/snapshot-writer-wrapper.sh" --root "$root" --task DEMO-0003 --stage 'do' --command /dr-do \
  --captured-by agent --recommended-next /dr-qa --body-file "$work/leaky.md"
printf 'body on disk: %s\n' "$(tail -n 1 "$root/datarim/snapshots/DEMO-0003.snapshot.md")"

step "Snapshots in the workspace"
ls -l "$root/datarim/snapshots"

step "Git anchoring: the snapshot records where the code stood, and replay notices a commit"
repo=$work/repo
export GIT_CEILING_DIRECTORIES=$work # never look at a repository enclosing the demo
export GIT_AUTHOR_NAME=Demo GIT_AUTHOR_EMAIL=demo@example.com
export GIT_COMMITTER_NAME=Demo GIT_COMMITTER_EMAIL=demo@example.com
mkdir -p "$repo"
git -C "$repo" init -q -b main
printf 'def fetch(): ...\n' >"$repo/fetcher.py"
git -C "$repo" add fetcher.py
git -C "$repo" commit -q -m "fetcher"
plan_answer >"$work/answer.md"
show "$tools/emit-stage-snapshot.sh" --root "$repo" --task DEMO-0001 --stage plan \
  --command /dr-plan --response-file "$work/answer.md"
grep -E '^git_' "$repo/datarim/snapshots/DEMO-0001.snapshot.md"
printf 'def fetch(retries=3): ...\n' >"$repo/fetcher.py"
show git -C "$repo" commit -q -am "fetcher: retries"
show "$tools/render-replay-prompt.sh" --task DEMO-0001 --root "$repo"
