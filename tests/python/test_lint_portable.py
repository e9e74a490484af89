"""tests/tools/lint-portable.py: every bash-4 or GNU-only construct it names is caught,
version-guarded and POSIX spellings pass, and the shipped shell and awk are clean."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "tests" / "tools" / "lint-portable.py"


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
    # Each rule the audit of issue 5 found missing (finding 13), and option groups.
    "declare -l lower=$1",
    "local -u upper",
    "local -r -A map",
    "local -r -n ref=$1",
    "exec {fd}>/tmp/x",
    "exec {log}>>file",
    "read -N 3 chunk",
    "read -r -d '' -N 3 chunk",
    "x=${name:0:-1}",
    "y=${name: -3:-1}",
    "echo ${BASH_ARGV0}",
    "sleep .5",
    "sleep 1e-2 || :",
    "sleep 2s",
    "now=$(date +%s%N)",
    "date -u +%3N",
    "x=$(sed 's/a\\+/b/' f)",
    "grep 'a\\|b' f",
    "sed -n 's/x\\?//p' f",
    "y=$(tac file)",
    "timeout 5 cmd",
    "if ! timeout 3 cmd; then :; fi",
    'w=$(realpath "$0")',
    "x | sha256sum",
    "n=$(nproc)",
    "LC_ALL=C md5sum f",
    "b=$(base64 -w0 f)",
    "l=$(wc -L f)",
    "d=$(du -b f)",
    "sed -z 's/a/b/' f",
    "sed -nz 's/a/b/p' f",
    "sed -rn 's/a+/b/p' f",
    "v=$(ps -o pid= --ppid 1)",
    "grep -r --include=x a .",
]
# Code that an earlier comment test hid: a # inside quotes starts no comment.
HIDDEN = [
    'printf "%s #\\n" x; mapfile -t arr <f',
    'echo "a #"; declare -A map',
    "echo 'x #'; readarray y",
    "echo $'a \\' #'; readarray y",
    'case $x in *" #"*) y=${x,,} ;; esac',
    'x="a\n#b"; declare -A m',
    "cat <<EOF\nit's text\nEOF\ndeclare -A m",
    "cat <<EOF\n$(mapfile -t x <f)\nEOF",
]
# A comment or a string naming BASH_VERSINFO is no version guard.
UNGUARDED = [
    "# no guard here, just mentions BASH_VERSINFO\nmapfile -t lines <f",
    "echo BASH_VERSINFO\ndeclare -A seen",
]
GOOD_SHELL = [
    "sleep 0.02 2>/dev/null || sleep 1",
    "pid=${BASHPID:-$$}",
    "n=${#name} all=$# x=${name%,*}",
    "head -c 10 file; sed -n 's/a/b/p' file; date -u +%Y",
    "case $x in a) echo a ;; esac",
    "# mapfile and declare -A are named in a comment only",
    "if [ ${BASH_VERSINFO[0]} -ge 5 ]; then\n  local TZ=UTC\n  printf -v now '%(%s)T' -1\nfi",
    # The good twin of each rule added for finding 13.
    "declare -i n=0; local -r x=1; typeset -a list",
    'exec 3>/tmp/x; echo "${name}">out; echo ${fd}>/tmp/x',
    "read -r -n 3 chunk; IFS= read -r -d '' x",
    "x=${name:0:1} y=${name: -1} z=${name:-a:-b}",
    "echo $0 ${BASH_SOURCE[0]}",
    "sleep 1; sleep 1e-2 2>/dev/null || sleep 1",
    "now=$(date -u +%s)",
    "sed -E 's/a+/b/' f; grep -E 'a|b' f; grep -F 'a\\+' f; sed 's/a\\{1,\\}/b/' f",
    'echo "lock timeout: 5 s"; dr_lock_timeout x; DR_TIMEOUT=5 cmd; timeout=5; cksum f',
    "base64 <f; wc -l f; du -k f; ps -o pid= -p 1",
    "echo hi # declare -A m",
    "x=1 ;# mapfile",
    "cat <<'EOF'\n# mapfile, declare -A: text only\nEOF",
    "cat <<-EOF\n\tit's text\n\tEOF\necho done",
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


@pytest.mark.parametrize("text", HIDDEN)
def test_a_quoted_hash_or_a_here_document_hides_nothing(text: str) -> None:
    assert LINT.lint_text(text), text


@pytest.mark.parametrize("text", UNGUARDED)
def test_only_a_test_of_bash_versinfo_guards(text: str) -> None:
    assert LINT.lint_text(text), text


def test_an_unterminated_quote_is_a_finding_not_a_pass() -> None:
    assert LINT.lint_text("echo 'oops\nplain words") == [(2, "unterminated quote or here-document")]
    assert LINT.lint_text("cat <<EOF\ntext") == [(2, "unterminated quote or here-document")]


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
