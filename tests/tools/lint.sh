#!/usr/bin/env bash
# Static checks over the whole tree (make lint): shellcheck on every shell file,
# mypy (strict) and ruff on the Python port, its tests and tools, portability
# (bash 3.2, BSD/BusyBox tools, Python 3.9).
set -euo pipefail
cd "$(dirname -- "$0")/../.."
shell_files=() entry_points=()
# The real files only: scripts/lib and the three hook scripts in dev-tools are
# links into plugins/datarim-snapshots (find -type f passes over them).
while IFS= read -r file; do
  case $file in
    dev-tools/* | plugins/*/dev-tools/*) entry_points+=("$file") ;;
    *) shell_files+=("$file") ;;
  esac
done < <(
  {
    find scripts dev-tools plugins tests .ci -type f \( -name '*.sh' -o -name '*.bash' -o -name '*.bats' \) 2>/dev/null
    [ -f .ci/run ] && echo .ci/run
  } | LC_ALL=C sort -u
)
python_paths=(python/src/datarim_snapshot tests/python tests/probes tests/bench tests/tools tests/netfs)
echo "shellcheck: ${#shell_files[@]} files following what they source, ${#entry_points[@]} entry points"
shellcheck -x -P SCRIPTDIR -s bash "${shell_files[@]}"
# The entry points are a few lines over one library each, checked above with what it
# sources: following it again from each entry point cost a minute and showed nothing new.
shellcheck -P SCRIPTDIR -s bash -e SC1091 "${entry_points[@]}"
echo "mypy: the package against Python 3.9, the tests and tools against $(python -V)"
mypy --config-file python/pyproject.toml python/src/datarim_snapshot
running_python=$(python -c 'import sys; print("%d.%d" % sys.version_info[:2])')
mypy --config-file python/pyproject.toml --python-version "$running_python" "${python_paths[@]}"
# The end-to-end suite apart: its conftest.py and tests/python's are both
# top-level modules named conftest to mypy.
mypy --config-file python/pyproject.toml --python-version "$running_python" tests/e2e
# The API as an outside project sees it: the example caller alone, strict, with
# no configuration of ours, the package known only through its py.typed.
(cd tests/python && mypy --strict --python-version "$running_python" api_example.py)
echo "ruff, and the layout of the Python and shell files (ruff format, shfmt)"
ruff check --config python/pyproject.toml "${python_paths[@]}" tests/e2e
ruff format --check --quiet --config python/pyproject.toml "${python_paths[@]}" tests/e2e
# Not the corpus data.
git ls-files -z -- '*.sh' '*.bash' '*.bats' .ci/run ':!:tests/conformance/suites/' |
  xargs -0 shfmt -i 2 -ci -d
python tests/tools/lint-portable.py
echo "vermin: Python 3.9"
vermin -q --target=3.9- --violations --no-tips "${python_paths[@]}" tests/e2e
tests/tools/check-python39.sh
