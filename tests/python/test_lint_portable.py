"""dev-tools/lint-portable.py: every bash-4 or GNU-only construct it names is caught,
version-guarded and POSIX spellings pass, and the shipped shell and awk are clean."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "dev-tools" / "lint-portable.py"


def _lint() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lint_portable", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LINT = _lint()

BAD_SHELL = [
    "mapfile -t lines <file",
    "readarray lines",
    "declare -A seen=()",
    "local -A map",
    "local -n ref=$1",
    "declare -g total=0",
    "local -",
    "lower=${name,,}",
    "upper=${name^^}",
    "first=${name^}",
    "quoted=${value@Q}",
    "cmd &>>log",
    "cmd |& tee log",
    "coproc worker { cat; }",
    "printf -v now '%(%s)T' -1",
    "now=$EPOCHSECONDS",
    "pid=$BASHPID",
    "wait -n",
    "[[ -v name ]] && echo set",
    "last=${items[-1]}",
    "a) echo a ;&",
    "shopt -s globstar",
    "for i in {1..10..2}; do :; done",
    "dash=$'\\u2014'",
    "read -e -i default answer",
    'dir=$(readlink -f "$0")',
    "sed -i 's/a/b/' file",
    "sed -E -i 's/a/b/' file",
    "sed -r 's/a+/b/' file",
    "grep -P '\\d' file",
    "stat -c %Y file",
    "date -d yesterday",
    "date --utc",
    "head -n -1 file",
    "find . -printf '%p'",
    "xargs -r rm",
    "sort -V list",
    "mkdir --parents dir",
    "echo -e 'a\\tb'",
    "sleep 0.1",
]
GOOD_SHELL = [
    "sleep 0.02 2>/dev/null || sleep 1",
    "pid=${BASHPID:-$$}",
    "n=${#name} all=$# x=${name%,*}",
    "head -c 10 file; sed -n 's/a/b/p' file; date -u +%Y",
    "case $x in a) echo a ;; esac",
    "# mapfile and declare -A are named in a comment only",
    "if [ ${BASH_VERSINFO[0]} -ge 5 ]; then\n  local TZ=UTC\n  printf -v now '%(%s)T' -1\nfi",
]
BAD_AWK = [
    'x = gensub(/a/, "b", "g", $0)',
    "n = asort(arr)",
    't = strftime("%Y")',
    "v = and(a, 1)",
    "BEGINFILE { n = 0 }",
    'if (PROCINFO["version"]) print',
    "if ($0 ~ /\\yword\\y/) print",
]
GOOD_AWK = [
    'n = split($0, parts, ":"); s = substr($0, 1, 3)',
    "function sort_or_not(x) { return x }",
]


@pytest.mark.parametrize("line", BAD_SHELL)
def test_bash4_and_gnu_only_shell_is_caught(line: str) -> None:
    assert LINT.lint_text(line), line


@pytest.mark.parametrize("text", GOOD_SHELL)
def test_portable_or_guarded_shell_passes(text: str) -> None:
    assert LINT.lint_text(text) == []


@pytest.mark.parametrize("line", BAD_AWK)
def test_gawk_only_awk_is_caught(line: str) -> None:
    assert LINT.lint_text(line, awk=True), line


@pytest.mark.parametrize("line", GOOD_AWK)
def test_posix_awk_passes(line: str) -> None:
    assert LINT.lint_text(line, awk=True) == []


def test_the_shipped_files_are_clean_and_a_bad_file_fails(tmp_path: Path) -> None:
    clean = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert clean.returncode == 0, clean.stdout
    bad = tmp_path / "bad.sh"
    bad.write_text("#!/usr/bin/env bash\ndeclare -A seen\n")
    run = subprocess.run([sys.executable, str(SCRIPT), str(bad)], capture_output=True, text=True)
    assert run.returncode == 1
    assert f"{bad}:2: associative array" in run.stdout
