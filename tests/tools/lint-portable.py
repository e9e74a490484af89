#!/usr/bin/env python3
"""Fails on shell and awk that would not run on macOS (bash 3.2, BSD tools) or BusyBox.

    tests/tools/lint-portable.py [file...]

Default files: the shipped shell and awk, and the shell of tests/tools and tests/bench.

Each finding is `path:line: rule: text`. A bash-4 construct is allowed on a line whose
previous three lines test BASH_VERSINFO in code (a version guard with a fallback, as in
dr_now_utc; a comment naming it excuses nothing). Comments are not checked: a # that
starts a word outside quotes (bash: '...', "...", $'...'; awk: "...") and outside a
here-document body.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# declare/local/typeset with an attribute letter (options may come in several groups).
DECLARE = r"\b(declare|local|typeset)\s+(-[a-zA-Z]+\s+)*-"
# Where a word is a command: line start, after ; & | ( ` ! or a keyword, after VAR=x.
COMMAND = (
    r"(^|[;&|(`!]|\b(then|do|else|exec|command|env|xargs)\s)\s*([A-Za-z_][A-Za-z0-9_]*=\S*\s+)*"
)
# Bash newer than 3.2.
BASH4 = [
    ("mapfile/readarray (bash 4)", r"\b(mapfile|readarray)\b"),
    ("associative array (bash 4)", DECLARE + r"[a-zA-Z]*A"),
    ("nameref (bash 4.3)", DECLARE + r"[a-zA-Z]*n"),
    ("declare -g (bash 4.2)", r"\bdeclare\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*g"),
    ("case-changing attribute declare -l/-u (bash 4)", DECLARE + r"[a-zA-Z]*[lu]"),
    ("{fd} redirection (bash 4.1)", r"(?<![$\w])\{[A-Za-z_][A-Za-z0-9_]*\}(<>|>>|>&|<&|>\||>|<)"),
    ("read -N (bash 4.1)", r"\bread\s+([^\s;|&]+\s+)*-[a-zA-Z]*N"),
    (
        "negative substring length ${x:0:-1} (bash 4.2)",
        r"\$\{[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?:(?![-=?+])[^}:]*:\s*-",
    ),
    ("BASH_ARGV0 (bash 5)", r"\bBASH_ARGV0\b"),
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
    ("sed -r (GNU)", r"\bsed\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*r"),
    ("sed -z (GNU)", r"\bsed\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*z"),
    (
        "GNU BRE escape \\+ \\? \\| (sed or grep without -E)",
        r"\b(sed|grep)\s+(?!(-[a-zA-Z]+\s+)*-[a-zA-Z]*[EF])[^\n]*\\[+?|]",
    ),
    ("grep -P (GNU)", r"\bgrep\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*P"),
    ("stat -c/--format (GNU)", r"\bstat\s+(-c|--)"),
    ("date -d/--date (GNU)", r"\bdate\s+(-[a-zA-Z]*d\b|--)"),
    ("date %N (GNU)", r"\bdate\b[^;|&]*%[-_0^#]*[0-9]*N"),
    ("head/tail -n -N (GNU)", r"\b(head|tail)\s+-n\s*-[0-9]"),
    ("find -printf (GNU)", r"\bfind\b.*\s-printf\b"),
    ("xargs -r (GNU)", r"\bxargs\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*r"),
    ("sort -V (GNU)", r"\bsort\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*V"),
    ("wc -L (GNU)", r"\bwc\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*L"),
    ("du -b (GNU)", r"\bdu\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*b"),
    ("base64 -w (GNU)", r"\bbase64\s+(-[a-zA-Z]+\s+)*-[a-zA-Z]*w"),
    (
        "GNU long option",
        r"\b(cp|mv|rm|mkdir|ls|cat|head|tail|sort|grep|sed|awk|mktemp|touch|wc|cut|tr|ps|du|ln"
        r"|chmod|uniq|od|base64|xargs|env|sleep|find)\s+(\S+\s+)*--[a-z]",
    ),
    (
        "command missing on macOS (GNU coreutils)",
        COMMAND + r"(tac|timeout|realpath|sha1sum|sha256sum|sha512sum|md5sum|nproc|stdbuf|shuf"
        r"|truncate)(?![\w.=-])",
    ),
    ("echo -e (not portable)", r"\becho\s+-[a-zA-Z]*e"),
    (
        "sleep with a fraction, exponent or unit without a fallback",
        r"\bsleep\s+([0-9]*\.[0-9]+|[0-9.]+([eE]|[smhd]\b)|inf)(?![^\n]*\|\|\s*sleep\s+[0-9]+\b)",
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
# A test of the bash version: BASH_VERSINFO inside [ ], [[ ]], (( )) or test.
GUARD = re.compile(r"(\[\[?|\(\(|\btest)\s.*\bBASH_VERSINFO\b")
HEREDOC = re.compile(r"""<<(-?)\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\2""")
WORD_START = " \t;&|()"


def code_lines(text: str, awk: bool = False) -> tuple[list[str], bool]:
    """Each line of text without its comment, and whether the text ends outside any
    quote and here-document. Quote state carries over line ends (a string may span
    lines). A here-document body is kept whole when its expansions run (<<EOF: a # there
    is text, $(...) is code) and blanked when they do not (<<'EOF': only text).
    awk has no single-quoted strings."""
    out = []
    quote = ""  # "", "'", '"' or "$'"
    heredocs: list[tuple[bool, str, bool]] = []  # (<<-, delimiter, quoted) on this line
    body: tuple[bool, str, bool] | None = None
    for line in text.split("\n"):
        if body is not None:
            out.append("" if body[2] else line)
            if (line.lstrip("\t") if body[0] else line) == body[1]:
                body = heredocs.pop(0) if heredocs else None
            continue
        code, i = [], 0
        while i < len(line):
            c = line[i]
            step = 2 if c == "\\" and quote != "'" else 1
            if quote:
                if quote[-1] == c and step == 1:
                    quote = ""
            elif c == "'" and not awk:
                quote = "$'" if line[i - 1 : i] == "$" else "'"
            elif c == '"':
                quote = '"'
            elif c == "#" and (i == 0 or line[i - 1] in WORD_START):
                break
            elif c == "<" and not awk:
                match = HEREDOC.match(line, i)
                if match and line[i - 1 : i] != "<":
                    heredocs.append((match.group(1) == "-", match.group(3), bool(match.group(2))))
            code.append(line[i : i + step])
            i += step
        out.append("".join(code))
        if heredocs and not quote:
            body = heredocs.pop(0)
    return out, not quote and body is None


def lint_text(text: str, awk: bool = False) -> list[tuple[int, str]]:
    rules = AWK if awk else BASH4 + TOOLS
    findings = []
    lines, closed = code_lines(text, awk)
    if not closed:  # the rest of the file would be read as a string: say so, do not pass it
        findings.append((len(lines), "unterminated quote or here-document"))
    for number, code in enumerate(lines, start=1):
        guarded = any(GUARD.search(prev) for prev in lines[max(0, number - 4) : number - 1])
        for name, pattern in rules:
            if re.search(pattern, code) and not (guarded and (name, pattern) in BASH4):
                findings.append((number, name))
    return findings


def shipped_files() -> list[Path]:
    files = sorted((REPO / "scripts" / "lib").glob("*.sh"))
    files += sorted((REPO / "scripts" / "lib").glob("*.awk"))
    files += sorted((REPO / "dev-tools").glob("*.sh"))
    files += sorted((REPO / "tests" / "tools").glob("*.sh"))
    files += sorted((REPO / "tests" / "bench").glob("*.sh"))
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
