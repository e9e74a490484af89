#!/usr/bin/env bash
# Python twin: python/src/datarim_snapshot/_snapshot_validator.py
# Entry point for the stage-snapshot validator: exit 0 valid, 1 missing,
# 2 malformed, 3 usage. See scripts/lib/snapshot-validator.sh.
set -euo pipefail
# Bytes whatever the caller's locale: a multibyte one (Shift_JIS, Big5) reads
# a backslash or a quote as half of a character (docs/hardening.md). Two
# statements: under a caller's set -k, `export LC_ALL=C` would export nothing.
LC_ALL=C
export LC_ALL
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/snapshot-validator.sh
. "$here/../scripts/lib/snapshot-validator.sh"
dr_main check_stage_snapshot "$@"
