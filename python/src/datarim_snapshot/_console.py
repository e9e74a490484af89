"""Bash twin: dr_err in scripts/lib/datarim-common.sh.

Where a command's output goes: binary stdout/stderr, with the shell's message format.
"""

from __future__ import annotations

import io
import sys

from ._rules import shown_message

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
        # The first failure to write stdout (full, closed, its reader gone):
        # later writes are dropped, and the caller decides what to say.
        self.failed: OSError | ValueError | None = None

    def write(self, data: bytes) -> None:
        if self.failed is None:
            try:
                self.out.write(data)
            except (OSError, ValueError) as exc:
                self._fail(exc)

    def flush(self) -> OSError | ValueError | None:
        """Flushes stdout; returns the failure to write it, if any."""
        if self.failed is None:
            try:
                self.out.flush()
            except (OSError, ValueError) as exc:
                self._fail(exc)
        return self.failed

    def _fail(self, exc: OSError | ValueError) -> None:
        self.failed = exc
        # The buffer keeps what could not be written and Python flushes it again
        # at exit (a traceback, exit 120): point the process's fd 1 at /dev/null.
        if sys.stdout is not None and self.out is sys.stdout.buffer:
            import os

            try:
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.close(null)
            except OSError:
                pass

    def error(self, program: str, message: str) -> None:
        """One line on stderr, `program: message`, control characters shown as '?'."""
        line = f"{program}: {shown_message(message)}\n"
        self.err.write(line.encode("utf-8", "surrogateescape"))
