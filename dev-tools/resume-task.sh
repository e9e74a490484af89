#!/usr/bin/env bash
# Python twin: python/src/datarim_snapshot/_snapshot_resume.py
# Entry point for the one-call resume: the replay prompt of a valid snapshot, else the
# task's legacy context; exit 0 printed, 1 nothing to resume, 3 usage.
# See scripts/lib/snapshot-resume.sh.
set -euo pipefail
# Bytes whatever the caller's locale: a multibyte one (Shift_JIS, Big5) reads
# a backslash or a quote as half of a character (docs/hardening.md). Two
# statements: under a caller's set -k, `export LC_ALL=C` would export nothing.
LC_ALL=C
export LC_ALL
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/snapshot-resume.sh
. "$here/../scripts/lib/snapshot-resume.sh"
dr_main resume_task_main "$@"
