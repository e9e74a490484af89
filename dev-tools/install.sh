#!/usr/bin/env bash
# Python twin: none (bash only)
# Installs this project's suite where the reference's /dr-* commands call it,
# ${DATARIM_RUNTIME:-$HOME/.claude}/dev-tools/ and /scripts/lib/, keeping what
# it replaces; --restore puts that back. See scripts/lib/runtime-install.sh.
set -euo pipefail
# Bytes whatever the caller's locale: a multibyte one (Shift_JIS, Big5) reads
# a backslash or a quote as half of a character (docs/hardening.md). Two
# statements: under a caller's set -k, `export LC_ALL=C` would export nothing.
LC_ALL=C
export LC_ALL
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/runtime-install.sh
. "$here/../scripts/lib/runtime-install.sh"
dr_main runtime_install_main "$@"
