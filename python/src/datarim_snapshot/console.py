"""Where a command's output goes: binary stdout/stderr, with the shell's message format."""

from __future__ import annotations

import sys
from typing import BinaryIO

from .rules import shown


class Console:
    def __init__(self, out: BinaryIO | None = None, err: BinaryIO | None = None) -> None:
        self.out: BinaryIO = out if out is not None else sys.stdout.buffer
        self.err: BinaryIO = err if err is not None else sys.stderr.buffer

    def write(self, data: bytes) -> None:
        self.out.write(data)

    def error(self, program: str, message: str) -> None:
        """One line on stderr, `program: message`, control characters shown as '?'."""
        line = f"{program}: {shown(message)}\n"
        self.err.write(line.encode("utf-8", "surrogateescape"))
