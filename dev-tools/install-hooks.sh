#!/usr/bin/env bash
# Python twin: python/src/datarim_snapshot/_install_hooks.py
# Entry point: this project's hooks into a Claude Code settings.json or a
# Codex hooks.json. Flags: see scripts/lib/install-hooks.sh.
set -euo pipefail
# Bytes whatever the caller's locale: a multibyte one (Shift_JIS, Big5) reads
# a backslash or a quote as half of a character (docs/hardening.md). Two
# statements: under a caller's set -k, `export LC_ALL=C` would export nothing.
LC_ALL=C
export LC_ALL
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/install-hooks.sh
. "$here/../scripts/lib/install-hooks.sh"
dr_main install_hooks_main "$@"
