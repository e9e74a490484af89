"""Bash twin: scripts/lib/session-resume-block.awk.

The resume block printed after a session handoff is saved: what an operator
copies into a fresh window.
"""

from __future__ import annotations

import os

from ._roots import kb_file_ok
from ._rules import occurrences, task_id_ok
from ._task_list import sanitize, task_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

_ID_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")
_SEPARATORS = b" \t*_`:|]).-"
_DASHES = ("\u2014".encode(), "\u2013".encode())


def named_task(command: str) -> str:
    """The first word after the command that is a task ID, or ""."""
    for word in command.split(" ")[1:]:
        if word and task_id_ok(word):
            return word
    return ""


def task_title(path: str, task: str) -> str:
    """The title that the first line of tasks.md naming task (as a whole ID) gives
    it: the text after the ID, past separators, up to a "|"."""
    needle = task.encode()
    with open(path, "rb") as handle:
        for raw in handle:
            line = raw[:-1] if raw.endswith(b"\n") else raw
            entry = task_line(line)
            if entry is not None and entry.form != "plain":
                # A thin or rich task-list line: its title field.
                if entry.task == task:
                    return sanitize(entry.title)
                continue
            for at in occurrences(line, needle):
                if at > 0 and line[at - 1] in _ID_BYTES:
                    continue
                rest = line[at + len(needle) :]
                if rest and rest[0] in _ID_BYTES:
                    continue
                while True:
                    if rest[:1] and rest[:1] in _SEPARATORS:
                        rest = rest[1:]
                    elif rest[:3] in _DASHES:
                        rest = rest[3:]
                    else:
                        break
                return sanitize(rest.split(b"|", 1)[0])
    return ""


def render_resume_block(
    root: str, session: str, recommended_next: str, next_action: bytes, tasks: Sequence[str]
) -> bytes:
    """Session saved → <path>, the /dr-continue line, the task it recommends with
    its title and the save time (from the session ID, never the clock), the next
    action and the other active tasks."""
    lines = [
        f"Session saved \u2192 datarim/sessions/{session}.session.md",
        f"/dr-continue {session}",
    ]
    task = named_task(recommended_next)
    if task:
        tasks_md = os.path.join(root, "datarim", "tasks.md")
        title = ""
        if kb_file_ok(root, "datarim/tasks.md"):
            title = task_title(tasks_md, task)
        day, time = session[8:16], session[17:21]
        saved = f"{day[:4]}-{day[4:6]}-{day[6:]} {time[:2]}:{time[2:]}"
        lines.append(f"\u21b3 {task}{' — ' + title if title else ''}   (saved {saved} UTC)")
    shown = sanitize(next_action)
    if shown:
        lines.append(f"Next: {shown}")
    others = [other for other in tasks if other != task]
    if others:
        lines.append("Also active this session: " + ", ".join(others))
    return "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape")
