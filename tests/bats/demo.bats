#!/usr/bin/env bats
# make demo's two scripts run to the end, and the round trip resumes the task
# through the hook in both implementations (README's first command).

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)
# As make demo runs them: the venv's Python (with the port installed) first.
PATH=$REPO/.venv/bin:$PATH

@test "demo.sh runs to the end" {
  run "$REPO/dev-tools/demo.sh"
  [ "$status" -eq 0 ]
  [[ "$output" == *"redacted 1 secret(s) before saving"* ]] || false
  [[ "$output" == *"body on disk: Deployed to staging with GITHUB_TOKEN=[REDACTED]."* ]]
}

@test "demo-resume.sh: write, /clear, resume; the same text from bash and Python" {
  local impl texts=()
  for impl in bash python; do
    DEMO_IMPL=$impl run "$REPO/dev-tools/demo-resume.sh"
    [ "$status" -eq 0 ]
    [[ "$output" == *"/clear: Claude Code runs the SessionStart hook; the agent receives"*$'\n'"/dr-verify TUNE-0254 | tri-layer plan verification"$'\n'* ]] || false
    [[ "$output" == *"==> datarim/tasks/TUNE-0254-task-description.md <=="* ]] || false
    # Workspace paths, capture times and ages differ between runs; the rest may not.
    texts+=("$(printf '%s\n' "$output" | sed -e 's#/[^ ]*/tmp\.[A-Za-z0-9]*#WS#g' \
      -e 's/20[0-9-]*T[0-9:]*Z  *[0-9][0-9]*[smhd] /TIME AGE /g' -e 's/20[0-9-]*T[0-9:]*Z/TIME/g')")
  done
  diff <(printf '%s\n' "${texts[0]}") <(printf '%s\n' "${texts[1]}")
}
