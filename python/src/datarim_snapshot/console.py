"""Where a command's output goes: binary stdout/stderr, with the shell's message format."""

from __future__ import annotations

import io
import sys

from .rules import shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO, TextIO


def _binary(stream: TextIO | None) -> BinaryIO:
    """The bytes side of a standard stream; a sink when it was closed at start (None)."""
    return stream.buffer if stream is not None else io.BytesIO()


class Console:
    def __init__(self, out: BinaryIO | None = None, err: BinaryIO | None = None) -> None:
        self.out: BinaryIO = out if out is not None else _binary(sys.stdout)
        self.err: BinaryIO = err if err is not None else _binary(sys.stderr)

    def write(self, data: bytes) -> None:
        self.out.write(data)

    def error(self, program: str, message: str) -> None:
        """One line on stderr, `program: message`, control characters shown as '?'."""
        line = f"{program}: {shown(message)}\n"
        self.err.write(line.encode("utf-8", "surrogateescape"))
