#!/usr/bin/env bash
# Port twin: datarim_snapshot/_prompt_hook.py (a hook script never names the port's language: test_plugin.py)
# Entry point for the UserPromptSubmit hook of Claude Code and Codex: the
# hook's JSON payload on stdin; records a /dr-<stage> turn for the Stop hook.
# Never blocks a prompt: prints nothing, exits 0. See scripts/lib/prompt-hook.sh.
set -euo pipefail
# (Every hook entry point opens alike, on purpose: it must work before any library
# is loaded, and a broken installation must still read the payload.)
# Bytes whatever the caller's locale: a multibyte one (Shift_JIS, Big5) reads
# a backslash or a quote as half of a character (docs/hardening.md). Two
# statements: under a caller's set -k, `export LC_ALL=C` would export nothing.
LC_ALL=C
export LC_ALL
trap '' PIPE
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/prompt-hook.sh
# A broken installation still reads the payload: the runtime's write must not fail.
. "$here/../scripts/lib/prompt-hook.sh" 2>/dev/null || {
  cat >/dev/null 2>&1
  exit 0
}
prompt_hook "$@" 2>/dev/null || :
exit 0
