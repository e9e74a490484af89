#!/usr/bin/env bash
# Static checks over the whole tree: shellcheck on every shell file, mypy
# (strict) and ruff on the Python port and its tests, portability (bash 3.2,
# BSD/BusyBox tools, Python 3.9).
set -euo pipefail
cd "$(dirname -- "$0")/../.."
shell_files=()
while IFS= read -r file; do shell_files+=("$file"); done < <(
  { find scripts dev-tools tests .ci -type f \( -name '*.sh' -o -name '*.bash' -o -name '*.bats' \) 2>/dev/null
    [ -f .ci/run ] && echo .ci/run; } | LC_ALL=C sort -u
)
python_paths=(python/src/datarim_snapshot tests/python tests/probes tests/bench tests/tools)
echo "shellcheck: ${#shell_files[@]} files"
shellcheck -x -P SCRIPTDIR -s bash "${shell_files[@]}"
echo "mypy: python/src tests"
mypy --config-file python/pyproject.toml "${python_paths[@]}"
echo "ruff"
ruff check --config python/pyproject.toml "${python_paths[@]}"
python tests/tools/lint-portable.py
echo "vermin: Python 3.9"
vermin -q --target=3.9- --violations --no-tips "${python_paths[@]}"
tests/tools/check-python39.sh
