#!/usr/bin/env bash
# Python twin: none (bash only)
# Demo: write -> /clear -> resume, in a throw-away workspace. A stage writes
# its snapshot; Claude Code's SessionStart hook, fed the payload of a /clear,
# hands the agent the replay prompt; an orchestrator asks for the hint; after
# the archive, resume falls back to the legacy context.
# Usage: dev-tools/demo-resume.sh   (DEMO_IMPL=python runs the Python port)
set -euo pipefail
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
here=$(cd "$here" && pwd -P)

# run <command> <args...>: one step, through the chosen implementation.
run() {
  local name=$1
  shift
  if [ "${DEMO_IMPL:-bash}" = python ]; then
    case $name in
      snapshot-writer-wrapper) name='write' ;;
      render-replay-prompt) name=replay ;;
      resume-task) name=resume ;;
      snapshot-list) name=list ;;
      snapshot-archive) name=archive ;;
    esac
    python3 -m datarim_snapshot "$name" "$@"
  else
    "$here/$name.sh" "$@"
  fi
}

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

ws=$(mktemp -d)
trap 'rm -rf -- "$ws"' EXIT
mkdir -p "$ws/datarim/tasks"
printf '# Active context\n\n## Active Tasks\n\n- **TUNE-0254** — Snapshot-first resume (Level 3, in_progress)\n' \
  >"$ws/datarim/activeContext.md"
printf '# TUNE-0254\n\nMake resume snapshot-first.\n' >"$ws/datarim/tasks/TUNE-0254-task-description.md"
printf '**TUNE-0254 · Snapshot-first resume**\n\nPlan ready: 6 steps; threat model written.\n' >"$ws/answer.md"
printf '%s\n' '/dr-do TUNE-0254 | TDD implementation' '/dr-verify TUNE-0254 | tri-layer plan verification' \
  '/dr-status | escape hatch' >"$ws/options.txt"

step "/dr-plan ends: its answer becomes the snapshot"
run snapshot-writer-wrapper --root "$ws" --task TUNE-0254 --stage plan --command /dr-plan \
  --captured-by agent --recommended-next /dr-verify --body-file "$ws/answer.md" --options-file "$ws/options.txt"
run snapshot-list --root "$ws"

step "/clear: Claude Code runs the SessionStart hook; the agent receives"
printf '{"session_id":"demo","hook_event_name":"SessionStart","source":"clear","cwd":"%s"}' "$ws" |
  run session-start-hook | python3 -c 'import json,sys; print(json.load(sys.stdin)["hookSpecificOutput"]["additionalContext"])'

step "an orchestrator asks only for the hint (render-replay-prompt --hint)"
(cd "$ws" && run render-replay-prompt --hint)

step "the operator overrides the recommendation (--option /dr-do): first line"
run render-replay-prompt --root "$ws" --option /dr-do | head -n 1

step "the task is done: archive its final snapshot"
run snapshot-archive TUNE-0254 --root "$ws"

step "resume now falls back to the legacy context"
run resume-task --root "$ws"
