#!/usr/bin/env bash
# Static checks over the whole tree: shellcheck on every shell file, mypy
# (strict) and ruff on the Python port and its tests.
set -euo pipefail
cd "$(dirname -- "$0")/.."
shell_files=()
while IFS= read -r file; do shell_files+=("$file"); done < <(
  { find scripts dev-tools tests .ci -type f \( -name '*.sh' -o -name '*.bash' -o -name '*.bats' \) 2>/dev/null
    [ -f .ci/run ] && echo .ci/run; } | LC_ALL=C sort -u
)
echo "shellcheck: ${#shell_files[@]} files"
shellcheck -x -P SCRIPTDIR -s bash "${shell_files[@]}"
echo "mypy: python/src tests/python"
mypy --config-file python/pyproject.toml python/src/datarim_snapshot tests/python dev-tools/bench.py
echo "ruff"
ruff check --config python/pyproject.toml python/src tests/python dev-tools/bench.py
