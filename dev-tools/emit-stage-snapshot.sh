#!/usr/bin/env bash
# Python twin: python/src/datarim_snapshot/_snapshot_emit.py
# Entry point: a stage's final answer (its CTA block) to its snapshot; runs
# under bash whatever the parent shell. Flags: see scripts/lib/snapshot-emit.sh.
set -euo pipefail
# Bytes whatever the caller's locale: a multibyte one (Shift_JIS, Big5) reads
# a backslash or a quote as half of a character (docs/hardening.md). Two
# statements: under a caller's set -k, `export LC_ALL=C` would export nothing.
LC_ALL=C
export LC_ALL
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/snapshot-emit.sh
. "$here/../scripts/lib/snapshot-emit.sh"
dr_main emit_stage_snapshot "$@"
