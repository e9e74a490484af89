#!/usr/bin/env bash
# Python twin: python/src/datarim_snapshot/doctor.py
# Entry point for doctor: why something resumed or did not (docs/doctor.md);
# flags and exit codes: see scripts/lib/doctor.sh.
set -euo pipefail
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/doctor.sh
. "$here/../scripts/lib/doctor.sh"
dr_main doctor_main "$@"
