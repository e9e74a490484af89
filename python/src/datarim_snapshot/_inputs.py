"""Bash twin: scripts/lib/datarim-inputs.sh.

Bounded reading of a command's input files: a path, or `-` for the standard
input, never more than a writer may keep.
"""

from __future__ import annotations

import os
import stat
import sys

from ._errors import RefusedError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO

STDIN = "-"  # an input flag's value that names the standard input


def require_readable(path: str, flag: str) -> None:
    """Raises RefusedError unless path can be read as an input file: STDIN (the
    standard input, when it is open), or a readable regular file, pipe or FIFO
    (/dev/stdin, <(...)) or character device."""
    if path == STDIN:
        if _stdin() is None:
            raise RefusedError(f"{flag} -: the standard input is closed")
        return
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        mode = 0
    kind_ok = stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)
    if not (kind_ok and os.access(path, os.R_OK)):
        raise RefusedError(f"{flag} is not a readable file")


def one_stdin(*flags: tuple[str, str | None]) -> None:
    """At most one input flag of a call may be STDIN (there is one standard
    input): raises UsageError naming every (flag, value) pair that is."""
    dashes = [flag for flag, value in flags if value == STDIN]
    if len(dashes) > 1:
        raise UsageError(
            " and ".join(dashes) + " read the standard input (-): at most one flag may"
        )


def _stdin() -> BinaryIO | None:
    """The standard input as bytes, unbuffered where it is the process's own
    fd 0 (so that what is not read stays where the shell twin leaves it);
    None when it is closed."""
    if sys.stdin is None:
        return None
    binary: Any = getattr(sys.stdin, "buffer", sys.stdin)
    raw: BinaryIO = getattr(binary, "raw", binary)
    return raw


class InputFile:
    """An input flag's file opened for reading (STDIN: the standard input,
    left open on exit); `with InputFile(path) as stream: ...`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.stream: BinaryIO | None = None

    def __enter__(self) -> BinaryIO:
        if self.path == STDIN:
            stream = _stdin()
            if stream is None:
                raise OSError("the standard input is closed")
            return stream
        self.stream = open(self.path, "rb", buffering=0)  # noqa: SIM115 (closed in __exit__)
        return self.stream

    def __exit__(self, *exc_info: object) -> None:
        if self.stream is not None:
            self.stream.close()


def read_up_to(stream: BinaryIO, limit: int) -> bytes:
    """At most limit bytes of stream, fewer only at its end."""
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = stream.read(left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def drain(stream: BinaryIO) -> None:
    """Reads a pipe, FIFO or socket to its end, throwing the bytes away, so that
    the program writing into it never dies of SIGPIPE; a file is left as it is."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError):
        return  # no descriptor (an in-memory stream): nothing is waiting to write
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        while stream.read(65536):
            pass


def read_input(path: str, limit: int) -> bytes:
    """At most limit bytes of an input file (STDIN: the standard input). Only
    those are kept; a pipe is then read to its end (see drain)."""
    with InputFile(path) as stream:
        data = read_up_to(stream, limit)
        if len(data) >= limit:
            drain(stream)
    return data


def read_prefix(path: str, limit: int) -> bytes:
    """At most limit bytes of path: only the part a writer may keep is ever read."""
    with open(path, "rb") as handle:
        return read_up_to(handle, limit)


def read_tail(path: str, limit: int) -> tuple[bytes, int]:
    """The last limit bytes of path (as `tail -c`) and the file's size; OSError
    when it cannot be read."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        handle.seek(max(0, size - limit))
        return handle.read(limit), size
