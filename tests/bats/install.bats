#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # each test exports its own DATARIM_RUNTIME
# dev-tools/install.sh (spec §8) in throw-away runtimes and homes: after an
# install the exact command lines of tests/conformance/fixtures/CALLS.md run this
# project's code, and --restore gives back every byte, mode and symlink the
# runtime had: a fresh machine, a copy-mode and a symlink-mode reference
# install, a second install, files changed in between.

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)
LEGACY=$REPO/tests/conformance/fixtures/legacy

setup() {
  T=$BATS_TEST_TMPDIR
  mkdir -p "$T/home"
  export HOME=$T/home
  unset DATARIM_RUNTIME
  export GIT_CEILING_DIRECTORIES=$T
}

# tree <dir>: every entry below <dir>: mode and path, a file's bytes, a link's target.
tree() {
  (
    cd "$1" || exit 1
    find . -print | LC_ALL=C sort | while IFS= read -r path; do
      line=$(ls -ld -- "$path")
      if [ -L "$path" ]; then
        printf '%s %s -> %s\n' "${line:0:10}" "$path" "$(readlink -- "$path")"
      elif [ -f "$path" ]; then
        printf '%s %s %s\n' "${line:0:10}" "$path" "$(od -An -tx1 <"$path" | tr -d ' \n')"
      else
        printf '%s %s\n' "${line:0:10}" "$path"
      fi
    done
  )
}

# reference <dir>: a checkout of the reference as far as CALLS.md reaches it,
# each script saying it is the reference's, plus scripts the suite never ships.
reference() {
  local name
  mkdir -p "$1/dev-tools" "$1/scripts/lib" "$1/skills"
  for name in snapshot-writer-wrapper.sh check-stage-snapshot-on-exit.sh check-session-handoff.sh \
    session-handoff-writer-wrapper.sh reverify-session-claims.sh check-init-task-presence.sh; do
    printf '#!/usr/bin/env bash\necho "reference %s"\nexit 42\n' "$name" >"$1/dev-tools/$name"
    chmod 755 "$1/dev-tools/$name"
  done
  printf '# the reference writer\n' >"$1/scripts/lib/snapshot-writer.sh"
  printf '# the reference session writer\n' >"$1/scripts/lib/session-handoff-writer.sh"
  printf '# the reference plugin system\n' >"$1/scripts/lib/plugin-system.sh"
  printf '# a skill\n' >"$1/skills/cta-format.md"
}

# reference_runtime: DATARIM_RUNTIME, exported, is $T/runtime holding the
# reference's checkout (reference).
reference_runtime() {
  export DATARIM_RUNTIME=$T/runtime
  reference "$DATARIM_RUNTIME"
}

# restored <dir> <before> [<install command>...]: --restore (this checkout's
# dev-tools/install.sh unless a command is given) exits 0 and leaves <dir> as
# tree printed it <before> the install.
restored() {
  local dir=$1 before=$2
  shift 2
  [ $# -gt 0 ] || set -- "$REPO/dev-tools/install.sh"
  run "$@" --restore
  [ "$status" -eq 0 ]
  [ "$(tree "$dir")" = "$before" ]
}

# workspace: a git work tree with a knowledge base, a snapshot and a session the
# reference wrote, and the temp files the commands fill in.
workspace() {
  . "$REPO/tests/conformance/fixtures/git-fixture.sh"
  fixture_repo "$T/ws" "$T/origin.git"
  mkdir -p "$T/ws/datarim/snapshots" "$T/ws/datarim/sessions" "$T/ws/src/deep"
  printf '# Tasks\n' >"$T/ws/datarim/tasks.md"
  cp "$LEGACY/snapshots/recommended-with-args/TUNE-0032.snapshot.md" "$T/ws/datarim/snapshots/"
  cp "$LEGACY/sessions/colon-in-next-action/SESSION-20260615-120001.session.md" "$T/ws/datarim/sessions/"
  mkdir "$T/ws/src/deep/datarim" # a stray datarim/ that must not hide the real one
  cat >"$T/body.md" <<'EOF'
**TUNE-0032 · Ship the widget**

Plan ready.

---

**Следующий шаг — TUNE-0032** (L3, in_progress)

1. `/dr-design TUNE-0032` — **рекомендуется** — auto-transition after plan for L3
2. `/dr-do TUNE-0032` — if no creative phase is needed

---
EOF
  printf '/dr-design TUNE-0032 | auto-transition after plan for L3\n/dr-do TUNE-0032 | if no creative phase is needed\n' >"$T/options.txt"
  printf 'TUNE-0420 | in_progress\n' >"$T/tasks.txt"
  printf '## Layer 1\nrepo: %s  HEAD: 539b8f5\n\n## Layer 5\nnone yet\n' "$T/ws" >"$T/session-body.md"
}

# calls: the command lines of CALLS.md, verbatim, from deep inside the
# workspace; each one's stdout, stderr and exit code into $T/calls.
calls() {
  (
    cd "$T/ws/src/deep" || exit 1
    TASK_ID=TUNE-0032 STAGE=plan COMMAND=/dr-plan CTA_PRIMARY="/dr-design TUNE-0032"
    OPTIONS_TMP=$T/options.txt BODY_TMP=$T/body.md TASKS_TMP=$T/tasks.txt
    SESSION_ID=SESSION-20260615-120001
    step() {
      local name=$1 status=0
      shift
      "$@" >"$T/calls/$name.out" 2>"$T/calls/$name.err" || status=$?
      echo "$status" >"$T/calls/$name.code"
    }
    mkdir -p "$T/calls"
    step legacy-snapshot-check \
      bash "${DATARIM_RUNTIME:-$HOME/.claude}/dev-tools/check-stage-snapshot-on-exit.sh" --validate-frontmatter --task "$TASK_ID"
    step legacy-session-check \
      bash "${DATARIM_RUNTIME:-$HOME/.claude}/dev-tools/check-session-handoff.sh" --validate-frontmatter --session "${SESSION_ID}"
    # shellcheck disable=SC2329 # step runs it
    write_snapshot() {
      REPO_ROOT="$(git rev-parse --show-toplevel)"
      bash "${DATARIM_RUNTIME:-$HOME/.claude}/dev-tools/snapshot-writer-wrapper.sh" --root "$REPO_ROOT" --task "$TASK_ID" \
        --stage "$STAGE" --command "$COMMAND" --captured-by agent \
        --recommended-next "$CTA_PRIMARY" --options-file "$OPTIONS_TMP" --body-file "$BODY_TMP" ||
        echo "warn: snapshot-writer-wrapper failed for $TASK_ID (continuing per V-AC-7)" >&2
    }
    step writer write_snapshot
    step snapshot-check \
      bash "${DATARIM_RUNTIME:-$HOME/.claude}/dev-tools/check-stage-snapshot-on-exit.sh" --validate-frontmatter --task "$TASK_ID"
    # shellcheck disable=SC2329 # step runs it
    write_session() {
      REPO_ROOT="$(git rev-parse --show-toplevel)"
      BODY_TMP=$T/session-body.md
      SESSION_ID=SESSION-20260615-130000
      bash "${DATARIM_RUNTIME:-$HOME/.claude}/dev-tools/session-handoff-writer-wrapper.sh" --root "$REPO_ROOT" --session "$SESSION_ID" \
        --captured-by agent --recommended-next "/dr-next TUNE-0420" --next-action "…" \
        --active-tasks-file "$TASKS_TMP" --body-file "$BODY_TMP"
    }
    step session-writer write_session
    step session-check \
      bash "${DATARIM_RUNTIME:-$HOME/.claude}/dev-tools/check-session-handoff.sh" --validate-frontmatter --session "SESSION-20260615-130000"
    step sha-presence \
      bash "${DATARIM_RUNTIME:-$HOME/.claude}/dev-tools/reverify-session-claims.sh" --sha-presence --repo "$T/ws" --sha e35ea16 --files tools/tool.sh
    step stale \
      bash "${DATARIM_RUNTIME:-$HOME/.claude}/dev-tools/reverify-session-claims.sh" --stale --repo "$T/ws" --saved-sha 680cc13
    step file-missing \
      bash "${DATARIM_RUNTIME:-$HOME/.claude}/dev-tools/reverify-session-claims.sh" --file-missing --path docs/gone.md
    # A missing flag: the line, then the usage the reference prints.
    step writer-missing-flag \
      bash "${DATARIM_RUNTIME:-$HOME/.claude}/dev-tools/snapshot-writer-wrapper.sh" --task "$TASK_ID"
  )
}

# calls_ran_this_project: what calls saw is this project's answer to each line.
calls_ran_this_project() {
  local name
  for name in legacy-snapshot-check legacy-session-check writer snapshot-check session-writer \
    session-check sha-presence stale file-missing; do
    [ "$(cat "$T/calls/$name.code")" = 0 ] || {
      echo "$name: exit $(cat "$T/calls/$name.code"): $(cat "$T/calls/$name.err")"
      return 1
    }
  done
  [ ! -s "$T/calls/writer.err" ] && [ ! -s "$T/calls/snapshot-check.err" ]
  grep -q '^recommended_next: /dr-design TUNE-0032$' "$T/ws/datarim/snapshots/TUNE-0032.snapshot.md"
  grep -q '^  - "/dr-do TUNE-0032 | if no creative phase is needed"$' "$T/ws/datarim/snapshots/TUNE-0032.snapshot.md"
  grep -q '^/dr-continue SESSION-20260615-130000$' "$T/calls/session-writer.out"
  grep -q '^next_action: "…"$' "$T/ws/datarim/sessions/SESSION-20260615-130000.session.md"
  [ "$(cat "$T/calls/sha-presence.out")" = "CLAIM-UNVERIFIED: SHA e35ea16 not found in origin/main.
CONTENT-LANDED: diff e35ea16..origin/main for the saved files is empty — work landed under a foreign squash-commit header, not lost." ]
  [ "$(cat "$T/calls/stale.out")" = "STALE SNAPSHOT: $T/ws origin/main changed from 680cc13 to 539b8f594838b231dde1bfac28f70d21a96b1ed9" ]
  [ "$(cat "$T/calls/file-missing.out")" = "FILE-MISSING: docs/gone.md — may have moved, merged, or been deleted." ]
  [ "$(cat "$T/calls/writer-missing-flag.code")" = 2 ]
  [ "$(sed -n 1p "$T/calls/writer-missing-flag.err")" = "snapshot-writer: missing required flag(s): --root --stage --command --captured-by --recommended-next --body-file" ]
  [ "$(sed -n 2p "$T/calls/writer-missing-flag.err" | cut -d' ' -f1-2)" = "Usage: write_stage_snapshot" ]
}

@test "a fresh machine: install into the default ~/.claude, the CALLS.md lines run this project's code, restore leaves no trace" {
  workspace
  before=$(tree "$HOME")
  run "$REPO/dev-tools/install.sh"
  [ "$status" -eq 0 ]
  [[ $output == *"files installed into $HOME/.claude"* ]]
  [ -f "$HOME/.claude/dev-tools/check-stage-snapshot-on-exit.sh" ]
  [ -f "$HOME/.claude/scripts/lib/snapshot-writer.sh" ]
  [ ! -e "$HOME/.claude/dev-tools/demo.sh" ] # the demos stay home
  # The installed copy names nothing of the repository: it runs from where it is.
  run grep -rlF "$REPO" "$HOME/.claude/dev-tools" "$HOME/.claude/scripts"
  [ "$status" -eq 1 ]
  calls
  calls_ran_this_project
  restored "$HOME" "$before"
  [ ! -e "$HOME/.claude" ]
}

@test "a copy-mode reference runtime: the calls run ours, the reference's other files stay, restore gives back every byte and mode" {
  workspace
  reference_runtime
  printf '{"hooks":{}}\n' >"$DATARIM_RUNTIME/settings.json"
  before=$(tree "$DATARIM_RUNTIME")
  calls
  [ "$(cat "$T/calls/writer.code")" = 0 ] # the reference's wrapper failed; the call warns and goes on
  grep -q 'warn: snapshot-writer-wrapper failed for TUNE-0032' "$T/calls/writer.err"
  run "$REPO/dev-tools/install.sh"
  [ "$status" -eq 0 ]
  [ "$(bash "$DATARIM_RUNTIME/dev-tools/check-init-task-presence.sh")" = "reference check-init-task-presence.sh" ]
  [ -f "$DATARIM_RUNTIME/scripts/lib/plugin-system.sh" ]
  rm -rf "$T/calls"
  calls
  calls_ran_this_project
  restored "$DATARIM_RUNTIME" "$before"
}

@test "a symlink-mode reference runtime: nothing is written into the checkout, restore puts the symlinks back" {
  workspace
  reference "$T/checkout"
  export DATARIM_RUNTIME=$T/runtime
  mkdir -p "$DATARIM_RUNTIME"
  ln -s "$T/checkout/dev-tools" "$DATARIM_RUNTIME/dev-tools"
  ln -s ../checkout/scripts "$DATARIM_RUNTIME/scripts"
  ln -s "$T/checkout/skills" "$DATARIM_RUNTIME/skills"
  before=$(tree "$DATARIM_RUNTIME")
  checkout=$(tree "$T/checkout")
  run "$REPO/dev-tools/install.sh"
  [ "$status" -eq 0 ]
  [ "$(tree "$T/checkout")" = "$checkout" ]
  [ -d "$DATARIM_RUNTIME/dev-tools" ] && [ ! -L "$DATARIM_RUNTIME/dev-tools" ]
  [ -L "$DATARIM_RUNTIME/dev-tools/check-init-task-presence.sh" ]
  [ "$(bash "$DATARIM_RUNTIME/dev-tools/check-init-task-presence.sh")" = "reference check-init-task-presence.sh" ]
  [ -L "$DATARIM_RUNTIME/scripts/lib/plugin-system.sh" ]
  calls
  calls_ran_this_project
  [ "$(tree "$T/checkout")" = "$checkout" ]
  restored "$DATARIM_RUNTIME" "$before"
  [ "$(tree "$T/checkout")" = "$checkout" ]
}

@test "a second install keeps the first backup: one restore gives back the reference's files" {
  reference_runtime
  before=$(tree "$DATARIM_RUNTIME")
  run "$REPO/dev-tools/install.sh"
  [ "$status" -eq 0 ]
  run "$REPO/dev-tools/install.sh"
  [ "$status" -eq 0 ]
  [ "$(cat "$DATARIM_RUNTIME/.datarim-backup/files/dev-tools/check-stage-snapshot-on-exit.sh")" = "#!/usr/bin/env bash
echo \"reference check-stage-snapshot-on-exit.sh\"
exit 42" ]
  restored "$DATARIM_RUNTIME" "$before"
}

@test "a file the reference's updater rewrote after the install is what a later install keeps and restore brings back" {
  reference_runtime
  "$REPO/dev-tools/install.sh" >/dev/null
  printf '# the reference writer, updated\n' >"$DATARIM_RUNTIME/scripts/lib/snapshot-writer.sh"
  "$REPO/dev-tools/install.sh" >/dev/null
  cmp "$REPO/scripts/lib/snapshot-writer.sh" "$DATARIM_RUNTIME/scripts/lib/snapshot-writer.sh"
  "$REPO/dev-tools/install.sh" --restore >/dev/null
  [ "$(cat "$DATARIM_RUNTIME/scripts/lib/snapshot-writer.sh")" = "# the reference writer, updated" ]
  [ "$(cat "$DATARIM_RUNTIME/scripts/lib/plugin-system.sh")" = "# the reference plugin system" ]
}

@test "restore keeps a file that changed after the install, and says so" {
  reference_runtime
  "$REPO/dev-tools/install.sh" >/dev/null
  printf '# edited by hand\n' >>"$DATARIM_RUNTIME/dev-tools/snapshot-writer-wrapper.sh"
  edited=$(cat "$DATARIM_RUNTIME/dev-tools/snapshot-writer-wrapper.sh")
  run "$REPO/dev-tools/install.sh" --restore
  [ "$status" -eq 0 ]
  [[ $output == *"kept dev-tools/snapshot-writer-wrapper.sh: it changed after the install"* ]]
  [ "$(cat "$DATARIM_RUNTIME/dev-tools/snapshot-writer-wrapper.sh")" = "$edited" ]
  [ "$(bash "$DATARIM_RUNTIME/dev-tools/check-session-handoff.sh")" = "reference check-session-handoff.sh" ]
  [ ! -e "$DATARIM_RUNTIME/.datarim-backup" ]
}

@test "a symlink standing at a file it installs is replaced, never written through; restore puts it back" {
  export DATARIM_RUNTIME=$T/runtime
  reference "$T/elsewhere"
  mkdir -p "$DATARIM_RUNTIME/dev-tools"
  ln -s "$T/elsewhere/dev-tools/snapshot-writer-wrapper.sh" "$DATARIM_RUNTIME/dev-tools/snapshot-writer-wrapper.sh"
  target=$(tree "$T/elsewhere")
  before=$(tree "$DATARIM_RUNTIME")
  run "$REPO/dev-tools/install.sh"
  [ "$status" -eq 0 ]
  [ ! -L "$DATARIM_RUNTIME/dev-tools/snapshot-writer-wrapper.sh" ]
  [ "$(tree "$T/elsewhere")" = "$target" ]
  restored "$DATARIM_RUNTIME" "$before"
}

@test "a file added by hand to an exploded directory after the install stops restore there, and says what is left" {
  reference "$T/checkout"
  export DATARIM_RUNTIME=$T/runtime
  mkdir -p "$DATARIM_RUNTIME"
  ln -s "$T/checkout/dev-tools" "$DATARIM_RUNTIME/dev-tools"
  "$REPO/dev-tools/install.sh" >/dev/null
  printf 'mine\n' >"$DATARIM_RUNTIME/dev-tools/my-tool.sh"
  run "$REPO/dev-tools/install.sh" --restore
  [ "$status" -eq 1 ]
  [[ $output == *"dev-tools holds files added after the install; left as it is"* ]]
  [ "$(cat "$DATARIM_RUNTIME/dev-tools/my-tool.sh")" = mine ]
  [ -L "$DATARIM_RUNTIME/.datarim-backup/dirs/dev-tools/.link" ]
  # Once the file is moved away, restore finishes the job.
  rm "$DATARIM_RUNTIME/dev-tools/my-tool.sh"
  run "$REPO/dev-tools/install.sh" --restore
  [ "$status" -eq 0 ]
  [ "$(readlink "$DATARIM_RUNTIME/dev-tools")" = "$T/checkout/dev-tools" ]
  [ ! -e "$DATARIM_RUNTIME/.datarim-backup" ]
}

@test "an install that stops part-way is undone by restore" {
  reference_runtime
  # The libraries go first; the entry point standing in the way is refused late.
  rm "$DATARIM_RUNTIME/dev-tools/snapshot-writer-wrapper.sh"
  mkdir "$DATARIM_RUNTIME/dev-tools/snapshot-writer-wrapper.sh"
  printf 'kept\n' >"$DATARIM_RUNTIME/dev-tools/snapshot-writer-wrapper.sh/note"
  before=$(tree "$DATARIM_RUNTIME")
  run "$REPO/dev-tools/install.sh"
  [ "$status" -eq 1 ]
  [[ $output == *"snapshot-writer-wrapper.sh is a directory; move it away first"* ]]
  [[ $output == *"install stopped part-way"* ]]
  cmp "$REPO/scripts/lib/snapshot-writer.sh" "$DATARIM_RUNTIME/scripts/lib/snapshot-writer.sh"
  restored "$DATARIM_RUNTIME" "$before"
}

@test "restore runs from the installed copy, without the repository" {
  reference_runtime
  before=$(tree "$DATARIM_RUNTIME")
  "$REPO/dev-tools/install.sh" >/dev/null
  restored "$DATARIM_RUNTIME" "$before" bash "$DATARIM_RUNTIME/dev-tools/install.sh"
}

@test "restore with nothing to restore says so and changes nothing" {
  reference_runtime
  before=$(tree "$DATARIM_RUNTIME")
  run "$REPO/dev-tools/install.sh" --restore
  [ "$status" -eq 0 ]
  [ "$output" = "datarim install: nothing to restore in $DATARIM_RUNTIME (no .datarim-backup)" ]
  [ "$(tree "$DATARIM_RUNTIME")" = "$before" ]
}

@test "refuses / as the runtime, the source tree itself, a bad flag, and a backup that is a symlink" {
  run env DATARIM_RUNTIME=/ "$REPO/dev-tools/install.sh"
  [ "$status" -eq 1 ]
  [[ $output == *"refusing to install into /"* ]]
  export DATARIM_RUNTIME=$T/runtime
  "$REPO/dev-tools/install.sh" >/dev/null
  run bash "$DATARIM_RUNTIME/dev-tools/install.sh"
  [ "$status" -eq 1 ]
  [[ $output == *"is this source tree"* ]]
  run "$REPO/dev-tools/install.sh" --bogus
  [ "$status" -eq 2 ]
  mkdir -p "$T/other" "$T/evil"
  ln -s "$T/evil" "$T/other/.datarim-backup"
  run "$REPO/dev-tools/install.sh" --runtime "$T/other"
  [ "$status" -eq 1 ]
  [[ $output == *".datarim-backup is not a directory"* ]]
  [ -z "$(ls -A "$T/evil")" ]
}

# killable_source <dir>: a source tree whose payload is the few files install.sh
# needs plus some that replace the reference's, so that an install can be
# killed at every one of its steps in a few seconds.
killable_source() {
  local name
  mkdir -p "$1/scripts/lib/text" "$1/dev-tools"
  for name in datarim-common.sh datarim-rules.sh datarim-inputs.sh datarim-roots.sh datarim-lock.sh \
    datarim-lock-held.sh datarim-publish.sh datarim-flags.sh datarim-reading.sh datarim-messages.sh \
    runtime-install.sh snapshot-writer.sh; do
    cp "$REPO/scripts/lib/$name" "$1/scripts/lib/"
  done
  cp "$REPO/scripts/lib/text/usage-install.txt" "$REPO/scripts/lib/text/drift-notice.txt" "$1/scripts/lib/text/"
  cp "$REPO/dev-tools/install.sh" "$REPO/dev-tools/check-stage-snapshot-on-exit.sh" "$1/dev-tools/"
}

# killing_tools <dir>: cp, mv, mkdir, rm, chmod and ln in <dir> that count
# their calls in $KILL_COUNTER (each one's command line in $KILL_COUNTER.log)
# and, at call $KILL_AT, kill their whole
# process group (the install's) with SIGKILL; a cp writes part of its
# file first, as a copy killed half-way does.
killing_tools() {
  local name
  mkdir -p "$1"
  cat >"$1/tool" <<'TOOL'
#!/usr/bin/env bash
n=$(($(cat "$KILL_COUNTER") + 1))
echo "$n" >"$KILL_COUNTER"
printf '%s %s\n' "${0##*/}" "$*" >>"$KILL_COUNTER.log"
if [ "$n" = "${KILL_AT:-0}" ]; then
  if [ "${0##*/}" = cp ]; then eval "dest=\${$#} src=\${$(($# - 1))}"; head -c 100 -- "$src" >"$dest"; fi
  kill -KILL 0
fi
PATH=$KILL_REAL_PATH exec "${0##*/}" "$@"
TOOL
  chmod 755 "$1/tool"
  for name in cp mv mkdir rm chmod ln; do ln -s tool "$1/$name"; done
}

# killed_install <source> <kill-at>: runs <source>'s install in its own
# process group with the killing tools first on PATH.
killed_install() {
  local real_path=$PATH
  echo 0 >"$T/calls"
  : >"$T/calls.log"
  KILL_COUNTER=$T/calls KILL_AT=$2 KILL_REAL_PATH=$real_path PATH=$T/tools:$real_path \
    setsid -w bash "$1/dev-tools/install.sh" >"$T/install.out" 2>&1
}

# restore_after_every_kill <runtime-maker>: for each kind of step of an
# install into the runtime <runtime-maker> makes, an install killed there and
# a restore give back the runtime byte for byte. Steps that differ only in the
# file's name (the same step for the next library) count as one kind.
restore_after_every_kill() {
  local steps at status
  killable_source "$T/src"
  killing_tools "$T/tools"
  export DATARIM_RUNTIME=$T/runtime
  "$1" "$DATARIM_RUNTIME"
  before=$(tree "$DATARIM_RUNTIME")
  killed_install "$T/src" 0
  [ "$(cat "$T/calls")" -gt 40 ]
  steps=$(sed -E 's#/[A-Za-z0-9_-]+\.(sh|txt)#/F#g; s#\.datarim-install\.[0-9]+#TMP#g' "$T/calls.log" |
    awk '!seen[$0]++ { print NR }')
  "$T/src/dev-tools/install.sh" --restore >/dev/null
  [ "$(tree "$DATARIM_RUNTIME")" = "$before" ]
  for at in $steps; do
    status=0
    killed_install "$T/src" "$at" || status=$?
    [ "$status" -eq 137 ] || {
      echo "step $at: install exit $status: $(cat "$T/install.out")"
      return 1
    }
    run "$T/src/dev-tools/install.sh" --restore
    [ "$status" -eq 0 ] || {
      echo "step $at: restore exit $status: $output"
      return 1
    }
    [[ $output == *"as it was before the install"* ]] || [[ $output == *"nothing to restore"* ]]
    [ "$(tree "$DATARIM_RUNTIME")" = "$before" ] || {
      echo "step $at: the runtime differs after restore:"
      diff <(echo "$before") <(tree "$DATARIM_RUNTIME")
      return 1
    }
  done
}

symlinked_reference() {
  reference "$T/checkout"
  mkdir -p "$1"
  ln -s "$T/checkout/dev-tools" "$1/dev-tools"
  ln -s ../checkout/scripts "$1/scripts"
}

@test "an install killed at any step (SIGKILL, a file half-copied) is undone by restore, byte for byte: a copy-mode runtime" {
  restore_after_every_kill reference
}

@test "an install killed at any step is undone by restore, byte for byte: a symlink-mode runtime" {
  restore_after_every_kill symlinked_reference
  [ -z "$(ls -A "$T/checkout/scripts/lib/text" 2>/dev/null)" ]
}
