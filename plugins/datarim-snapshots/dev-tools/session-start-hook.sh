#!/usr/bin/env bash
# Port twin: datarim_snapshot/_session_start_hook.py (a hook script never names the port's language: test_plugin.py)
# Entry point for the Claude Code SessionStart hook: the hook's JSON payload
# on stdin, the hook output JSON on stdout. It never blocks a session: it
# prints nothing and exits 0 on any failure. See scripts/lib/session-start-hook.sh.
set -euo pipefail
# Bytes whatever the caller's locale: a multibyte one (Shift_JIS, Big5) reads
# a backslash or a quote as half of a character (docs/hardening.md). Two
# statements: under a caller's set -k, `export LC_ALL=C` would export nothing.
LC_ALL=C
export LC_ALL
# A reader that has gone must not kill the hook with SIGPIPE: the write fails
# instead, quietly (stderr goes to /dev/null), and the hook still exits 0.
trap '' PIPE
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/session-start-hook.sh
. "$here/../scripts/lib/session-start-hook.sh" 2>/dev/null || exit 0
session_start_hook "$@" 2>/dev/null || :
exit 0
