#!/usr/bin/env bash
# Python twin: python/src/datarim_snapshot/_snapshot_next.py
# Entry point for snapshot-next; exit codes and flags: see scripts/lib/snapshot-next.sh.
set -euo pipefail
# Bytes whatever the caller's locale: a multibyte one (Shift_JIS, Big5) reads
# a backslash or a quote as half of a character (docs/hardening.md). Two
# statements: under a caller's set -k, `export LC_ALL=C` would export nothing.
LC_ALL=C
export LC_ALL
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/snapshot-next.sh
. "$here/../scripts/lib/snapshot-next.sh"
dr_main snapshot_next_main "$@"
