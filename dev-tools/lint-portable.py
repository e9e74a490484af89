#!/usr/bin/env python3
"""Fails on shell and awk that would not run on macOS (bash 3.2, BSD tools) or BusyBox.

    dev-tools/lint-portable.py [file...]     (default: the shipped shell and awk files)

Each finding is `path:line: rule: text`. A bash-4 construct is allowed on a line whose
previous three lines test BASH_VERSINFO (a version guard with a fallback, as in
dr_now_utc). Comments are not checked.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Bash newer than 3.2.
BASH4 = [
    ("mapfile/readarray (bash 4)", r"\b(mapfile|readarray)\b"),
    ("associative array (bash 4)", r"\b(declare|local|typeset)\s+-[a-zA-Z]*A"),
    ("nameref (bash 4.3)", r"\b(declare|local|typeset)\s+-[a-zA-Z]*n\b"),
    ("declare -g (bash 4.2)", r"\bdeclare\s+-[a-zA-Z]*g"),
    ("local - (bash 4.4)", r"\blocal\s+-(\s|;|$)"),
    (
        "case modification ${x,,} ${x^^} (bash 4)",
        r"\$\{[#!]?[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?(\^|,)",
    ),
    ("${x@Q} transformation (bash 4.4)", r"\$\{[^}]*@[QEPAaKkUuL]\}"),
    ("&>> (bash 4)", r"&>>"),
    ("|& (bash 4)", r"\|&"),
    ("coproc (bash 4)", r"\bcoproc\b"),
    ("printf %(...)T (bash 4.2)", r"%\([^)]*\)T"),
    ("EPOCHSECONDS/EPOCHREALTIME/SRANDOM (bash 5)", r"\$\{?(EPOCHSECONDS|EPOCHREALTIME|SRANDOM)\b"),
    ("BASHPID without a fallback (bash 4)", r"\$BASHPID\b|\$\{BASHPID\}"),
    ("wait -n (bash 4.3)", r"\bwait\s+-[a-z]*n\b"),
    ("-v test (bash 4.2)", r"(\[\[?|\btest)\s+-v\s"),
    ("negative array index (bash 4.3)", r"\$\{[A-Za-z_][A-Za-z0-9_]*\[-[0-9]"),
    ("case fall-through ;& ;;& (bash 4)", r";;&|[^;];&"),
    (
        "shopt option newer than 3.2",
        r"\bshopt\s+-s\s+(globstar|lastpipe|direxpand|autocd|checkjobs|dirspell|globasciiranges|inherit_errexit|localvar_inherit)\b",
    ),
    ("brace range with a step (bash 4)", r"\{-?[0-9]+\.\.-?[0-9]+\.\.-?[0-9]+\}"),
    ("$'\\u' escape (bash 4.2)", r"\$'[^']*\\[uU][0-9a-fA-F]"),
    ("read -i (bash 4)", r"\bread\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*i\b"),
]
# Options that GNU tools have and BSD or BusyBox ones lack (or read differently).
TOOLS = [
    ("readlink -f (GNU)", r"\breadlink\s+-[a-zA-Z]*f"),
    ("sed -i (GNU and BSD differ)", r"\bsed\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*i"),
    ("sed -r (GNU)", r"\bsed\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*r\b"),
    ("grep -P (GNU)", r"\bgrep\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*P"),
    ("stat -c/--format (GNU)", r"\bstat\s+(-c|--)"),
    ("date -d/--date (GNU)", r"\bdate\s+(-[a-zA-Z]*d\b|--)"),
    ("head/tail -n -N (GNU)", r"\b(head|tail)\s+-n\s*-[0-9]"),
    ("find -printf (GNU)", r"\bfind\b.*\s-printf\b"),
    ("xargs -r (GNU)", r"\bxargs\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*r"),
    ("sort -V (GNU)", r"\bsort\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*V"),
    (
        "GNU long option",
        r"\b(cp|mv|rm|mkdir|ls|cat|head|tail|sort|grep|sed|awk|mktemp|touch|wc|cut|tr)\s+--[a-z]",
    ),
    ("echo -e (not portable)", r"\becho\s+-[a-zA-Z]*e"),
    (
        "fractional sleep without a fallback",
        r"\bsleep\s+[0-9]*\.[0-9]+(?![^\n]*\|\|\s*sleep\s+[0-9]+)",
    ),
]
# gawk-only awk.
AWK = [
    (
        "gawk-only function",
        r"(^|[^A-Za-z0-9_])(gensub|asorti?|strftime|systime|mktime|patsplit|and|or|xor|lshift|rshift|compl|isarray|typeof)\s*\(",
    ),
    (
        "gawk-only special",
        r"\b(BEGINFILE|ENDFILE|IGNORECASE|PROCINFO|FPAT|FIELDWIDTHS|RT)\b|@include|@load|@namespace",
    ),
    ("gawk regex operator \\y \\< \\>", r"\\[y<>]"),
]
GUARD = re.compile(r"BASH_VERSINFO")


def _code(line: str) -> str:
    """The line without its comment (a # at the start or after whitespace)."""
    match = re.search(r"(^|\s)#", line)
    return line[: match.start()] if match else line


def lint_text(text: str, awk: bool = False) -> list[tuple[int, str]]:
    rules = AWK if awk else BASH4 + TOOLS
    findings = []
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        code = _code(line)
        guarded = any(GUARD.search(prev) for prev in lines[max(0, number - 4) : number - 1])
        for name, pattern in rules:
            if re.search(pattern, code) and not (guarded and (name, pattern) in BASH4):
                findings.append((number, name))
    return findings


def shipped_files() -> list[Path]:
    files = sorted((REPO / "scripts" / "lib").glob("*.sh"))
    files += sorted((REPO / "scripts" / "lib").glob("*.awk"))
    files += sorted((REPO / "dev-tools").glob("*.sh"))
    files += [REPO / ".ci" / "run"] if (REPO / ".ci" / "run").exists() else []
    return files


def main(argv: list[str]) -> int:
    files = [Path(a) for a in argv] or shipped_files()
    bad = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, name in lint_text(text, awk=path.suffix == ".awk"):
            line = text.split("\n")[number - 1].strip()
            print(f"{path}:{number}: {name}: {line}")
            bad += 1
    print(f"portable shell: {len(files)} files, {bad} finding(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
