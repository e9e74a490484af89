#!/usr/bin/env bats
# Checks the corpus cannot express: the resume libraries leave the caller's
# shell alone, and the SessionStart hook stays silent when its stdin is
# closed or the machine misbehaves (bash and Python alike).

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)
LIBS="snapshot-resume.sh session-start-hook.sh snapshot-lifecycle.sh"

setup() {
  WS=$BATS_TEST_TMPDIR/ws
  mkdir -p "$WS/datarim/snapshots" "$WS/src"
  printf 'Plan ready.\n' >"$BATS_TEST_TMPDIR/body"
  "$REPO/dev-tools/snapshot-writer-wrapper.sh" --root "$WS" --task TUNE-0254 --stage plan \
    --command /dr-plan --captured-by agent --recommended-next /dr-do --body-file "$BATS_TEST_TMPDIR/body"
  printf '## Active Tasks\n- **TUNE-0254** — resume\n' >"$WS/datarim/activeContext.md"
}

# The caller's shell state that a library must not touch: options, traps, and
# variables (those bash itself changes on every command aside).
shell_state() {
  set -o
  shopt
  trap -p
  declare -p | grep -v -E '^declare -[-a-zA-Z]* (BASH_[A-Z_]+|FUNCNAME|_|PIPESTATUS|LINENO|RANDOM|SECONDS|SRANDOM|EPOCH[A-Z]+|BASHPID|before|after|lib|status|rc)='
}

@test "sourcing a resume library, twice, changes no option, trap or variable of the caller" {
  for lib in $LIBS; do
    run bash -c '
      set -euo pipefail
      trap "echo bye" EXIT
      '"$(declare -f shell_state)"'
      before=$(shell_state)
      . "$1"; . "$1"
      after=$(shell_state)
      trap - EXIT
      [ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); exit 1; }
    ' _ "$REPO/scripts/lib/$lib"
    [ "$status" -eq 0 ] || {
      echo "$lib: $output"
      return 1
    }
  done
}

@test "the command functions return codes to a set -e caller and leave its variables alone" {
  run bash -c '
    set -euo pipefail
    '"$(declare -f shell_state)"'
    . "$1/scripts/lib/session-start-hook.sh"
    . "$1/scripts/lib/snapshot-lifecycle.sh"
    before=$(shell_state)
    rc=0; resume_replay_main --task TUNE-0999 --root "$2" || rc=$?; [ "$rc" -eq 1 ]
    rc=0; resume_replay_main --task bad --root "$2" 2>/dev/null || rc=$?; [ "$rc" -eq 3 ]
    rc=0; resume_replay_main --root "$2" --hint >/dev/null || rc=$?; [ "$rc" -eq 0 ]
    rc=0; resume_task_main --task TUNE-0999 --root "$2/src" 2>/dev/null || rc=$?; [ "$rc" -eq 1 ]
    rc=0; resume_task_main --root "$2" --json >/dev/null || rc=$?; [ "$rc" -eq 0 ]
    rc=0; lifecycle_show_main TUNE-0254 --root "$2" --json >/dev/null || rc=$?; [ "$rc" -eq 0 ]
    rc=0; lifecycle_list_main --root "$2" >/dev/null || rc=$?; [ "$rc" -eq 0 ]
    rc=0; lifecycle_archive_main TUNE-0999 --root "$2" 2>/dev/null || rc=$?; [ "$rc" -eq 1 ]
    rc=0; session_start_hook </dev/null || rc=$?; [ "$rc" -eq 0 ]
    after=$(shell_state)
    [ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); exit 1; }
  ' _ "$REPO" "$WS"
  [ "$status" -eq 0 ] || {
    echo "$output"
    return 1
  }
}

# Runs the hook of one implementation; prints its exit code, then its output.
hook() {
  local impl=$1
  shift
  if [ "$impl" = bash ]; then
    "$REPO/dev-tools/session-start-hook.sh" "$@"
  else
    "$REPO/.venv/bin/python" -m datarim_snapshot session-start-hook "$@"
  fi
}

# silent_in_both <script> [<arg>...]: bash -c <script> (hook defined; $1 the
# repository, $2 the implementation, $3... the <arg>s) exits 0 and prints
# nothing, for each implementation.
silent_in_both() {
  local impl script=$1 code said
  shift
  for impl in bash python; do
    code=0
    said=$(bash -c "$(declare -f hook); REPO=\$1; $script" _ "$REPO" "$impl" "$@" 2>&1) || code=$?
    [ "$code" -eq 0 ] && [ -z "$said" ] || {
      echo "$impl: $code $said"
      return 1
    }
  done
}

@test "the hook prints nothing and exits 0 when stdin is closed (bash and Python)" {
  # shellcheck disable=SC2016 # expanded by the inner shell
  silent_in_both 'hook $2 <&-'
}

@test "the hook exits 0 and says nothing when stdout is a closed descriptor (bash and Python)" {
  payload='{"source":"clear","cwd":"'$WS'"}'
  # shellcheck disable=SC2016 # expanded by the inner shell
  silent_in_both 'printf "%s" "$3" | hook $2 >&-' "$payload"
}

@test "the hook exits 0 and says nothing when its stdout reader has gone (EPIPE; bash and Python)" {
  payload='{"source":"clear","cwd":"'$WS'"}'
  for impl in bash python; do
    # A FIFO opened read-write, then for writing, then its only reader
    # closed: every write to fd 6 fails with EPIPE and raises SIGPIPE. bats
    # ignores SIGPIPE, which a shell cannot undo: the inner shell starts with
    # it at its default again, as a Node parent leaves it.
    # shellcheck disable=SC2016 # expanded by the inner shell
    run "$REPO/.venv/bin/python" -c 'import os, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
os.execvp("bash", ["bash"] + sys.argv[1:])' -c "$(declare -f hook)"'
      REPO=$1
      mkfifo "$4/fifo" && exec 5<>"$4/fifo" 6>"$4/fifo" 5<&-
      printf "%s" "$3" | hook "$2" >&6
      echo "exit $?"' _ "$REPO" "$impl" "$payload" "$BATS_TEST_TMPDIR"
    [ "$status" -eq 0 ] && [ "$output" = "exit 0" ] || {
      echo "$impl: $status $output"
      return 1
    }
    rm -f "$BATS_TEST_TMPDIR/fifo"
  done
}

@test "the hook exits 0 and says nothing when stdout is full (/dev/full; bash and Python)" {
  payload='{"source":"clear","cwd":"'$WS'"}'
  for impl in bash python; do
    run bash -c "$(declare -f hook); REPO=\$1; printf '%s' \"\$3\" | hook \$2 >/dev/full; echo \"exit \$?\"" \
      _ "$REPO" "$impl" "$payload"
    [ "$status" -eq 0 ] && [ "$output" = "exit 0" ] || {
      echo "$impl: $status $output"
      return 1
    }
    # The same payload through a pipe does print the hook's one JSON line.
    run bash -c "$(declare -f hook); REPO=\$1; printf '%s' \"\$3\" | hook \$2" _ "$REPO" "$impl" "$payload"
    [ "$status" -eq 0 ] && [ "${#lines[@]}" -eq 1 ] && [[ ${lines[0]} == '{"hookSpecificOutput":'*'}}' ]] ||
      {
        echo "$impl: $status $output"
        return 1
      }
  done
}

@test "awk always runs in the C locale, even when the caller sets only LANG (byte-exact on gawk too)" {
  # A stand-in awk that refuses to run unless LC_ALL=C reaches it: a
  # multibyte-aware awk (gawk) would otherwise count characters, not bytes.
  mkdir -p "$BATS_TEST_TMPDIR/bin" "$WS/datarim/tasks"
  # shellcheck disable=SC2016 # the stand-in's own script
  printf '#!/bin/sh\n[ "$LC_ALL" = C ] || { echo "awk without LC_ALL=C" >&2; exit 99; }\nexec %s "$@"\n' \
    "$(command -v awk)" >"$BATS_TEST_TMPDIR/bin/awk"
  chmod +x "$BATS_TEST_TMPDIR/bin/awk"
  printf 'ж legacy ж\n' >"$WS/datarim/tasks/TUNE-0777-task-description.md"
  payload='{"source":"clear","cwd":"'$WS'"}'
  for step in "snapshot-writer-wrapper.sh --root . --task TUNE-0254 --stage do --command /dr-do --captured-by agent --recommended-next /dr-qa --body-file datarim/tasks/TUNE-0777-task-description.md" \
    "render-replay-prompt.sh --task TUNE-0254 --json" "resume-task.sh --task TUNE-0777 --json" \
    "snapshot-show.sh TUNE-0254 --json" "snapshot-list.sh" "session-start-hook.sh" "snapshot-archive.sh TUNE-0254"; do
    # shellcheck disable=SC2016 # expanded by the inner shell
    run env -i PATH="$BATS_TEST_TMPDIR/bin:$PATH" LANG=C.UTF-8 HOME="$HOME" bash -c \
      'cd "$1" && printf "%s" "$2" | "$3" $4' _ "$WS" "$payload" "$REPO/dev-tools/${step%% *}" "${step#"${step%% *}"}"
    # (The hook exits 0 whatever happens: its output shows it worked; the writer prints nothing.)
    [ "$status" -eq 0 ] && [[ $output != *"without LC_ALL"* ]] &&
      { [ -n "$output" ] || [ "${step%% *}" = snapshot-writer-wrapper.sh ]; } || {
      echo "$step: $status $output"
      return 1
    }
  done
}
