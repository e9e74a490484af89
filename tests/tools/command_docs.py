"""Writes the two tables of the commands that the docs hold, from the command map
(scripts/lib/text/commands.txt, docs/commands.md): the README's table of entry points
and the commands column of the class table in docs/spec.md §1.

    python tests/tools/command_docs.py          # rewrites both
    python tests/tools/command_docs.py --check  # exit 1 when either is stale

tests/python/test_command_map.py holds the committed files to this output, so a new
command's line in the map is the one place its row is written.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from datarim_snapshot import _cli as cli

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
SPEC = REPO / "docs" / "spec.md"
BEGIN = "<!-- commands: begin (from scripts/lib/text/commands.txt: make docs) -->"
END = "<!-- commands: end -->"
# Rows of the README's table that are no command of the map.
README_AFTER = "| `install.sh` | (none: the runtime calls bash) | `make install` / `make restore` |"
CLASS_ROW = re.compile(r"^\| (?P<kind>[a-z]+) \| (?P<names>[^|]*) \|", re.MULTILINE)


def readme_table(commands: dict[str, cli.Command]) -> str:
    rows = ["| `dev-tools/` | `datarim-snapshot` | what |", "|---|---|---|"]
    python_only = []
    for command in commands.values():
        if command.script == "-":
            python_only.append(f"| (none: Python only) | `{command.name}` | {command.what} |")
        else:
            rows.append(f"| `{command.script}` | `{command.name}` | {command.what} |")
    return "\n".join([*rows, README_AFTER, *python_only])


def readme(text: str, commands: dict[str, cli.Command]) -> str:
    """The README with its table between the markers made anew."""
    head, begin, rest = text.partition(BEGIN + "\n")
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise SystemExit(f"{README.name}: the markers {BEGIN!r} ... {END!r} are missing")
    return f"{head}{BEGIN}\n{readme_table(commands)}\n\n{END}{tail}"


def spec(text: str, commands: dict[str, cli.Command]) -> str:
    """The spec with the commands cell of each row of the class table (between the
    markers) listing that class's commands in the map's order."""

    def cell(match: re.Match[str]) -> str:
        kind = match["kind"]
        if kind not in cli.ON_FAILURE:
            return match[0]
        names = ", ".join(f"`{c.name}`" for c in commands.values() if c.kind == kind)
        return f"| {kind} | {names} |"

    head, begin, rest = text.partition(BEGIN + "\n")
    table, end, tail = rest.partition(END)
    if not begin or not end:
        raise SystemExit(f"{SPEC.name}: the markers {BEGIN!r} ... {END!r} are missing")
    return f"{head}{begin}{CLASS_ROW.sub(cell, table)}{end}{tail}"


def main(argv: list[str]) -> int:
    commands = cli.command_map()
    stale = []
    for path, render in ((README, readme), (SPEC, spec)):
        old = path.read_text("utf-8")
        new = render(old, commands)
        if new != old:
            stale.append(path.relative_to(REPO).as_posix())
            if "--check" not in argv:
                path.write_text(new, "utf-8")
    if stale and "--check" in argv:
        print(f"stale: {', '.join(stale)} (make docs)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
