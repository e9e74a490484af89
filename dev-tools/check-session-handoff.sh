#!/usr/bin/env bash
# Python twin: python/src/datarim_snapshot/_session_handoff_validator.py
# Entry point for the session-handoff validator: exit 0 valid, 1 missing,
# 2 malformed, 3 usage. See scripts/lib/session-handoff-validator.sh.
set -euo pipefail
# Bytes whatever the caller's locale: a multibyte one (Shift_JIS, Big5) reads
# a backslash or a quote as half of a character (docs/hardening.md). Two
# statements: under a caller's set -k, `export LC_ALL=C` would export nothing.
LC_ALL=C
export LC_ALL
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/session-handoff-validator.sh
. "$here/../scripts/lib/session-handoff-validator.sh"
dr_main check_session_handoff "$@"
