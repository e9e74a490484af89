"""Bash twin: scripts/lib/text/ (the files both implementations print).

The texts both implementations print (usage, replay template, version), kept once in
scripts/lib/text.
"""

from __future__ import annotations

import os

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


def usage(name: str) -> bytes:
    return text_bytes(f"usage-{name}.txt")


def version_line() -> bytes:
    """`datarim-snapshot <version>\\n`, what --version prints: one product
    version for every command, kept once in version.txt."""
    return b"datarim-snapshot " + text_bytes("version.txt")
