#!/usr/bin/env bash
# Runs the Python port under a Python 3.9 interpreter when the machine has one
# (python3.9 on PATH, or a pyenv 3.9): compiles every module, then writes and
# validates a snapshot. Without one it says so; vermin (make lint) still checks.
set -euo pipefail
cd "$(dirname -- "$0")/../.."
py39=
if command -v pyenv >/dev/null 2>&1; then
  for candidate in "$(pyenv root)"/versions/3.9*/bin/python3.9; do
    [ -x "$candidate" ] && py39=$candidate
  done
fi
if [ -z "$py39" ] && python3.9 -V >/dev/null 2>&1; then py39=$(command -v python3.9); fi
if [ -z "$py39" ]; then
  echo "python 3.9: no interpreter on this machine; skipped (vermin checked the syntax)"
  exit 0
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
PYTHONPYCACHEPREFIX=$scratch/pycache "$py39" -m compileall -q python/src tests/python tests/probes >/dev/null
printf 'body\n' >"$scratch/body.md"
PYTHONPATH=python/src "$py39" -m datarim_snapshot write --root "$scratch" --task TUNE-0254 \
  --stage plan --command /dr-plan --captured-by agent --recommended-next /dr-do \
  --body-file "$scratch/body.md"
PYTHONPATH=python/src "$py39" -m datarim_snapshot check --task TUNE-0254 --root "$scratch"
PYTHONPATH=python/src "$py39" -m datarim_snapshot check --self-test >/dev/null
echo "python 3.9: $("$py39" -V 2>&1) compiles and runs the port"
