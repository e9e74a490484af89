#!/usr/bin/env bash
# Python twin: python/src/datarim_snapshot/session_replay.py
# Entry point for the session resume (/dr-continue): exit 0 printed, 1 no
# artefact, 2 invalid artefact, 3 usage. See scripts/lib/session-replay.sh.
set -euo pipefail
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/session-replay.sh
. "$here/../scripts/lib/session-replay.sh"
dr_main session_replay "$@"
