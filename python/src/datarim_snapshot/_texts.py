"""Bash twin: scripts/lib/text/ (the files both implementations print or read).

The texts both implementations print or read (usage, replay template, version, how a
CTA header opens), kept once in scripts/lib/text.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

_PACKAGED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "text")
_IN_REPOSITORY = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts", "lib", "text"
)


_read: dict[str, bytes] = {}


def text_bytes(name: str) -> bytes:
    """The bytes of scripts/lib/text/<name>: the wheel's copy, else the repository's.
    Each file is read once per process."""
    found = _read.get(name)
    if found is not None:
        return found
    for directory in (_PACKAGED, _IN_REPOSITORY):
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                found = _read[name] = handle.read()
            return found
    raise FileNotFoundError(f"datarim text file not found: {name}")


def cta_header_openings() -> list[bytes]:
    """How a CTA block's header line opens (cta-headers.txt), without the space
    that follows each: cta_parse.HEADERS, and the Stop hook's first look."""
    return text_bytes("cta-headers.txt").splitlines()


def usage(name: str) -> bytes:
    return text_bytes(f"usage-{name}.txt")


def cli_usage(name: str, subcommand: str) -> bytes:
    """What `datarim-snapshot <subcommand> --help` prints: usage-<name>.txt with the
    script's name in its synopsis (the lines before the first blank one) replaced by
    `datarim-snapshot <subcommand>`, and the lines aligned after that name moved along
    with it. A synopsis that already names datarim-snapshot is kept as it is."""
    text = usage(name)
    synopsis, blank, rest = text.partition(b"\n\n")
    lines = synopsis.split(b"\n")
    old = lines[0].removeprefix(b"Usage: ").partition(b" ")[0]
    if old == b"datarim-snapshot":
        return text
    new = b"datarim-snapshot " + subcommand.encode()
    aligned = len(b"Usage: " + old + b" ")
    shift = b" " * (len(new) - len(old))
    for i, line in enumerate(lines):
        head = line[:7]  # "Usage: " or the seven blanks of a further synopsis line
        if head in (b"Usage: ", b" " * 7) and line[7:].startswith(old + b" "):
            lines[i] = head + new + line[7 + len(old) :]
        elif len(line) - len(line.lstrip(b" ")) >= aligned:
            lines[i] = shift + line
    return b"\n".join(lines) + blank + rest


def version_line() -> bytes:
    """`datarim-snapshot <version>\\n`, what --version prints: one product
    version for every command, kept once in version.txt."""
    return b"datarim-snapshot " + text_bytes("version.txt")


def first_word_answer(program: str, argv: Sequence[str]) -> bytes | None:
    """What a command that takes -h/--help/--version only as its first word (the
    hooks, which read a payload) prints for it: the usage or the version line;
    None to go on (dr_answer_first_word in scripts/lib/datarim-reading.sh)."""
    if argv and argv[0] in ("-h", "--help"):
        return usage(program)
    if argv and argv[0] == "--version":
        return version_line()
    return None
