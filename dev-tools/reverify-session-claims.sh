#!/usr/bin/env bash
# Python twin: python/src/datarim_snapshot/_session_probes.py
# Entry point for the claim re-verification probes: exit 0 the probe ran (a
# failed claim's banner on stdout; with --exit-code 1 when the claim failed),
# 2 bad input, 3 not a git work tree. See scripts/lib/session-probes.sh.
set -euo pipefail
# Bytes whatever the caller's locale: a multibyte one (Shift_JIS, Big5) reads
# a backslash or a quote as half of a character (docs/hardening.md). Two
# statements: under a caller's set -k, `export LC_ALL=C` would export nothing.
LC_ALL=C
export LC_ALL
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/session-probes.sh
. "$here/../scripts/lib/session-probes.sh"
dr_main reverify_session_claims "$@"
