#!/usr/bin/env bash
# Python twin: python/src/datarim_snapshot/_session_replay.py
# Entry point for the session resume (/dr-continue): exit 0 printed, 1 no
# artefact, 2 invalid artefact, 3 usage. See scripts/lib/session-replay.sh.
set -euo pipefail
# Bytes whatever the caller's locale: a multibyte one (Shift_JIS, Big5) reads
# a backslash or a quote as half of a character (docs/hardening.md). Two
# statements: under a caller's set -k, `export LC_ALL=C` would export nothing.
LC_ALL=C
export LC_ALL
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/session-replay.sh
. "$here/../scripts/lib/session-replay.sh"
dr_main session_replay "$@"
