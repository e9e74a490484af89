#!/usr/bin/env bash
# Python twin: python/src/datarim_snapshot/install_hooks.py
# Entry point: this project's hooks into a Claude Code settings.json or a
# Codex hooks.json. Flags: see scripts/lib/install-hooks.sh.
set -euo pipefail
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
# shellcheck source=scripts/lib/install-hooks.sh
. "$here/../scripts/lib/install-hooks.sh"
dr_main install_hooks_main "$@"
