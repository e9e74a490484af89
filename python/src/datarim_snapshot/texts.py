"""The texts both implementations print (usage, replay template), kept once in scripts/lib/text."""

from __future__ import annotations

import os
from functools import cache

_PACKAGED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "text")
_IN_REPOSITORY = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts", "lib", "text"
)


@cache
def text_bytes(name: str) -> bytes:
    """The bytes of scripts/lib/text/<name>: the wheel's copy, else the repository's."""
    for directory in (_PACKAGED, _IN_REPOSITORY):
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                return handle.read()
    raise FileNotFoundError(f"datarim text file not found: {name}")


def usage(name: str) -> bytes:
    return text_bytes(f"usage-{name}.txt")
