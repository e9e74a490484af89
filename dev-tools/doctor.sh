#!/usr/bin/env bash
# Python twin: python/src/datarim_snapshot/_doctor.py
# Entry point for doctor: why something resumed or did not (docs/doctor.md);
# flags and exit codes: see scripts/lib/doctor.sh.
set -euo pipefail
# Bytes whatever the caller's locale: a multibyte one (Shift_JIS, Big5) reads
# a backslash or a quote as half of a character (docs/hardening.md). Two
# statements: under a caller's set -k, `export LC_ALL=C` would export nothing.
LC_ALL=C
export LC_ALL
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/doctor.sh
. "$here/../scripts/lib/doctor.sh"
dr_main doctor_main "$@"
