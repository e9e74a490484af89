"""Bash twin: scripts/lib/frontmatter.awk.

Reads `key: value` frontmatter the way every datarim validator does.

One field per line, each exactly once, in the writer's order; the first
broken rule raises MalformedError with the message the shell prints.
"""

from __future__ import annotations

from ._errors import MalformedError
from ._rules import shown, utf8_scan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator


class Lines:
    """The lines of a file: bytes up to each LF; None past the last LF."""

    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    def next(self) -> bytes | None:
        end = self.data.find(b"\n", self.pos)
        if end < 0:
            self.pos = len(self.data)
            return None
        line = self.data[self.pos : end]
        self.pos = end + 1
        return line

    def items(self) -> Iterator[bytes]:
        """The indented lines ("  ...") from here on, a YAML list's items; the
        first line that is not one stays unread."""
        while True:
            mark = self.pos
            item = self.next()
            if item is None or not item.startswith(b"  "):
                self.pos = mark
                return
            yield item


def open_frontmatter(data: bytes, cap: int) -> Lines:
    """The checks every artefact opens with, in this order: at most cap bytes,
    valid UTF-8 (before a NUL), no NUL, then the opening "---" line. Returns
    the lines after it; raises MalformedError naming the first broken rule."""
    if len(data) > cap:
        raise MalformedError(f"is over the {cap}-byte cap")
    nul = data.find(b"\0")
    if utf8_scan(data if nul < 0 else data[:nul]):
        raise MalformedError("is not valid UTF-8")
    if nul >= 0:
        raise MalformedError("holds a NUL byte")
    lines = Lines(data)
    if lines.next() != b"---":
        raise MalformedError("does not start with --- frontmatter")
    return lines


def text(value: bytes) -> str:
    """Printable form of file bytes for a message."""
    return shown(value.decode("utf-8", "replace"))


def key_of(line: bytes) -> bytes:
    colon = line.find(b":")
    return line if colon < 0 else line[:colon]


class Fields:
    """Reads the fields of one frontmatter from lines, in order."""

    def __init__(
        self,
        lines: Lines,
        fields: Iterable[str],
        lists: Iterable[str] = (),
        extra: Iterable[str] = (),
    ) -> None:
        self.lines = lines
        self.known = set(fields) | set(extra)
        self.lists = set(lists)
        self.seen: set[str] = set()

    def field(self, name: str) -> bytes:
        """The value of the line that should hold field name (a list field: the whole line)."""
        line = self.lines.next()
        if line is None:
            raise MalformedError("frontmatter is not closed")
        key = text(key_of(line))
        if line == b"---":
            raise MalformedError(f"missing field: {name}")
        if key in self.seen:
            raise MalformedError(f"duplicate field: {key}")
        if key not in self.known:
            raise MalformedError(f"unknown field: {key}")
        if key != name:
            raise MalformedError(f"expected field {name}, found {key}")
        self.seen.add(name)
        if name in self.lists:
            return line
        width = len(name)
        if line[width : width + 2] != b": " or len(line) == width + 2:
            raise MalformedError(f"bad {name} line")
        return line[width + 2 :]

    def close(self, extra: Iterable[str] = ()) -> dict[str, bytes]:
        """Reads the optional fields named in extra up to the closing "---"."""
        allowed = set(extra)
        values: dict[str, bytes] = {}
        while True:
            line = self.lines.next()
            if line == b"---":
                return values
            if line is None:
                raise MalformedError("frontmatter is not closed")
            key = text(key_of(line))
            if key in self.seen:
                raise MalformedError(f"duplicate field: {key}")
            if key not in allowed:
                raise MalformedError(f"unknown field: {key}")
            self.seen.add(key)
            values[key] = line[len(key_of(line)) + 2 :]
