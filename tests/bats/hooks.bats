#!/usr/bin/env bats
# The agent-runtime hooks' bash libraries as a caller sources them (spec §9):
# they define functions and nothing else, and a call, a snapshot written
# included, leaves the caller's options, traps, variables, locale, directory
# and umask as they were. (Functions the Stop hook loads on the way, emit's,
# are the one thing a call adds.)

load caller-state

setup() {
  caller_setup
  mkdir "$ROOT/datarim"
  printf '# Tasks\n' >"$ROOT/datarim/tasks.md"
}

caller_state_here() {
  caller_state 'dr_|_?snapshot_|git_anchor_|write_stage_snapshot|emit_|hook_|stop_hook|prompt_hook|install_hooks' 'lib|codes'
}

@test "sourcing the hook libraries once or twice defines functions only" {
  run bash -c "$(caller_state_here)
    set -euo pipefail
    trap 'echo bye' EXIT
    export LC_ALL=C.UTF-8
    cd /tmp && cd '$ROOT'
    before=\$(state)
    for lib in hook-state stop-hook prompt-hook install-hooks hook-state stop-hook; do
      . '$REPO/scripts/lib/'\$lib.sh
    done
    after=\$(state)
    [ \"\$before\" = \"\$after\" ] || { diff <(echo \"\$before\") <(echo \"\$after\"); exit 9; }
    declare -F stop_hook prompt_hook install_hooks_main hook_state_dir >/dev/null"
  [ "$status" -eq 0 ] || {
    echo "$output"
    false
  }
  [ "$output" = "bye" ]
}

@test "a turn through the hook functions and install-hooks calls leave the caller's state" {
  local answer=$BATS_TEST_TMPDIR/payload.json
  python3 - "$ROOT" "$answer" <<'PY'
import json, sys
root, out = sys.argv[1], sys.argv[2]
text = ("**TUNE-0032 · t**\n\n---\n\n**Следующий шаг — TUNE-0032** (L1, in_progress)\n\n"
        "1. `/dr-do TUNE-0032` — **рекомендуется** — go\n\n---\n")
json.dump({"session_id": "s-1", "cwd": root, "last_assistant_message": text}, open(out, "w"))
PY
  run bash -c "$(caller_state_here)
    set -euo pipefail
    trap 'echo bye' EXIT
    export LC_ALL=C.UTF-8 DATARIM_STATE_DIR='$BATS_TEST_TMPDIR/state'
    cd /tmp && cd '$ROOT'
    umask 027
    . '$REPO/scripts/lib/stop-hook.sh'
    . '$REPO/scripts/lib/prompt-hook.sh'
    . '$REPO/scripts/lib/install-hooks.sh'
    before=\$(state)
    printf '{\"session_id\": \"s-1\", \"cwd\": \"%s\", \"prompt\": \"/dr-do TUNE-0032\"}' '$ROOT' | prompt_hook
    stop_hook <'$answer'
    printf 'not json' | prompt_hook
    stop_hook --verbose </dev/null
    codes=
    install_hooks_main --runtime claude --file '$ROOT/settings.json' >/dev/null || codes=\"\$codes \$?\"
    printf '[]' >'$ROOT/bad.json'
    install_hooks_main --runtime claude --file '$ROOT/bad.json' 2>/dev/null || codes=\"\$codes \$?\"
    install_hooks_main --runtime nope 2>/dev/null || codes=\"\$codes \$?\"
    after=\$(state)
    [ \"\$before\" = \"\$after\" ] || { diff <(echo \"\$before\") <(echo \"\$after\"); exit 9; }
    echo \"codes:\$codes\""
  [ "$status" -eq 0 ] || {
    echo "$output"
    false
  }
  [ "$output" = $'codes: 1 2\nbye' ]
  [ -f "$ROOT/datarim/snapshots/TUNE-0032.snapshot.md" ]
  [ -f "$ROOT/settings.json" ]
  grep -q 'takes no arguments' "$BATS_TEST_TMPDIR/state/hooks.log"
}

@test "a turn and an install with SHELLOPTS and BASHOPTS in the environment work as under the defaults" {
  local state=$BATS_TEST_TMPDIR/state opts='failglob:nullglob:dotglob:nocaseglob:nocasematch'
  printf '{"session_id": "s-1", "cwd": "%s", "prompt": "/dr-do TUNE-0032"}' "$ROOT" |
    env SHELLOPTS=noglob BASHOPTS=$opts DATARIM_STATE_DIR="$state" "$REPO/dev-tools/prompt-hook.sh"
  [ "$(cat "$state/turns/s-1")" = $'stage=do\ntask=TUNE-0032\nturn=' ]
  # shellcheck disable=SC2016 # the backticks are the CTA's, for Python
  python3 -c 'import json, sys; print(json.dumps({"session_id": "s-1", "cwd": sys.argv[1],
    "last_assistant_message": "**Следующий шаг — TUNE-0032** (L1, x)\n\n1. `/dr-qa TUNE-0032` — **рекомендуется** — go\n"}))' "$ROOT" |
    env SHELLOPTS=noglob BASHOPTS=$opts DATARIM_STATE_DIR="$state" "$REPO/dev-tools/stop-hook.sh"
  [ -f "$ROOT/datarim/snapshots/TUNE-0032.snapshot.md" ]
  [ -z "$(ls -A "$state/turns")" ]
  [ ! -e "$state/hooks.log" ]
  run env SHELLOPTS=noglob BASHOPTS=$opts "$REPO/dev-tools/install-hooks.sh" --runtime codex --file "$ROOT/hooks.json"
  [ "$status" -eq 0 ]
  run env SHELLOPTS=noglob BASHOPTS=$opts "$REPO/dev-tools/install-hooks.sh" --runtime codex --file "$ROOT/hooks.json"
  [ "$output" = "install-hooks: the hooks are already in $ROOT/hooks.json; nothing changed" ]
}
