"""Bash twin: scripts/lib/task-list.awk.

The task lists of a knowledge base, in every form the reference's commands
wrote them (spec §8.1): one parser for every reader.

    - TUNE-0254 · in_progress · P1 · L3 · Title → tasks/TUNE-0254-task-description.md   (thin index)
    - **TUNE-0071** (in_progress, 2026-04-30) — Title (Level 3, P1).                     (rich)
    - **TUNE-0001** — Title                                                             (plain)
"""

from __future__ import annotations

import os

from ._roots import kb_file_ok
from ._rules import is_control, pattern, task_id_ok

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

TITLE_MAX = 55
SANITIZE_READ = 4096
INACTIVE = frozenset((b"cancelled", b"canceled", b"done", b"completed", b"archived"))
_THIN = " \u00b7 ".encode()
_ARROW = " \u2192 ".encode()
_DASHES = ("\u2014".encode(), "\u2013".encode())
_LEVEL_TAIL = rb" \(Level [^()]*\)\Z"
_HEADING = rb"#{1,2}(?:[ \t]|\Z)"


class TaskLine:
    """One line of a task list: its ID, status (b"" in the plain form), title
    (raw bytes) and form (thin, rich or plain)."""

    __slots__ = ("task", "status", "title", "form")

    def __init__(self, task: str, status: bytes, title: bytes, form: str) -> None:
        self.task, self.status, self.title, self.form = task, status, title, form

    @property
    def active(self) -> bool:
        return self.status.lower() not in INACTIVE


def task_line(line: bytes) -> TaskLine | None:
    """The task line that line is, or None."""
    if not line.startswith(b"- "):
        return None
    rest = line[2:]
    if rest.startswith(b"**"):
        rest = rest[2:]
        end = rest.find(b"**")
        if end < 1:
            return None
        task = rest[:end].decode("latin-1")
        rest = rest[end + 2 :].strip(b" \t")
        status, form = b"", "plain"
        close = rest.find(b")")
        if rest.startswith(b"(") and close >= 0:
            status = rest[1:close].split(b",", 1)[0].strip(b" \t")
            form = "rich"
            rest = rest[close + 1 :].strip(b" \t")
        if rest[:3] in _DASHES:
            rest = rest[3:]
        elif rest.startswith(b"-"):
            rest = rest[1:]
        rest = rest.strip(b" \t")
        if rest.endswith(b"."):
            rest = rest[:-1]
        tail = pattern(_LEVEL_TAIL).search(rest)
        if tail is not None:
            rest = rest[: tail.start()]
        return TaskLine(task, status, rest, form) if task_id_ok(task) else None
    first = rest.find(_THIN)
    if first < 0:
        return None
    task = rest[:first].decode("latin-1")
    fields = rest[first + len(_THIN) :].split(_THIN, 3)
    title = fields[3] if len(fields) > 3 else b""
    arrow = title.find(_ARROW)
    if arrow >= 0:
        title = title[:arrow]
    return TaskLine(task, fields[0], title, "thin") if task_id_ok(task) else None


def sanitize(value: bytes) -> str:
    """value made safe to show on one line: invalid UTF-8 bytes become "?" and
    control characters spaces; backticks go, and so does every "$(" with what
    follows up to the next ")"; runs of spaces become one; no leading "/" or
    space, no trailing space; at most 55 characters, cut after a whole word
    with "…". Only the first 4096 bytes of value are read."""
    decoded = value[:SANITIZE_READ].decode("utf-8", "surrogateescape")
    out: list[str] = []
    skip = False
    for char in decoded:
        if "\udc80" <= char <= "\udcff":
            char = "?"
        elif is_control(char):  # a tab too
            char = " "
        if skip:
            if char == ")":
                skip = False
            continue
        if char == "`":
            continue
        if char == "(" and out and out[-1] == "$":
            out.pop()
            skip = True
            continue
        out.append(char)
    kept: list[str] = []
    for char in out:
        if not kept and char in " /":
            continue
        if char == " " and kept and kept[-1] == " ":
            continue
        kept.append(char)
    if kept and kept[-1] == " ":
        kept.pop()
    if len(kept) <= TITLE_MAX:
        return "".join(kept)
    keep = TITLE_MAX - 1
    if kept[keep] != " ":
        space = "".join(kept[:keep]).rfind(" ")
        if space >= 0:
            keep = space
    return "".join(kept[:keep]) + "\u2026"


def list_lines(data: bytes) -> Iterator[bytes]:
    """A task list's lines: a NUL ends a line as a line feed does (spec §8.1, as
    every awk reads it), a final CR cut."""
    lines = data.replace(b"\0", b"\n").split(b"\n")
    if lines[-1] == b"":
        lines.pop()  # what follows the last line feed is no line
    for line in lines:
        yield line[:-1] if line.endswith(b"\r") else line


def section_lines(data: bytes, heading: bytes) -> Iterator[bytes]:
    """The lines under heading (a "## " line, trailing blanks aside) up to the
    next level-1 or level-2 heading."""
    inside = False
    for line in list_lines(data):
        if not inside:
            inside = line.rstrip(b" \t") == heading
            continue
        if pattern(_HEADING).match(line):
            return
        yield line


def active_entries(root: str) -> list[tuple[str, str]]:
    """The active tasks of the knowledge base, (ID, title made safe to show), in
    order, each ID once: those under `## Active Tasks` in datarim/activeContext.md,
    or, when there is no such file, under `## Active` in datarim/tasks.md."""
    rel, heading = "datarim/activeContext.md", b"## Active Tasks"
    if not os.path.lexists(os.path.join(root, rel)):
        rel, heading = "datarim/tasks.md", b"## Active"
    if not kb_file_ok(root, rel):
        return []
    path = os.path.join(root, rel)
    with open(path, "rb") as handle:
        data = handle.read()
    found: dict[str, str] = {}
    for line in section_lines(data, heading):
        entry = task_line(line)
        if entry is not None and entry.active and entry.task not in found:
            found[entry.task] = sanitize(entry.title)
    return list(found.items())


TASK_LISTS = ("activeContext.md", "tasks.md", "backlog.md")


def task_listed(root: str, task: str) -> bool:
    """True when a task line of any status, in any section of the knowledge
    base's task lists (TASK_LISTS that are readable files), names task."""
    for name in TASK_LISTS:
        path = os.path.join(root, "datarim", name)
        if not kb_file_ok(root, f"datarim/{name}"):
            continue
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        for line in list_lines(data):
            entry = task_line(line)
            if entry is not None and entry.task == task:
                return True
    return False
