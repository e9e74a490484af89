"""Bash twin: scripts/lib/datarim-journal.sh.

The reference writer's harness journal (spec §8).

When a test harness made /tmp/datarim-test-<task>/ (DATARIM_HARNESS_DIR stands in
for /tmp), each write appends one line to its journal.md. A path that predictable
in a shared /tmp is anyone's to plant, so only a real directory (no symlink) owned
by this user and writable by no one else counts, and journal.md only while it is a
regular file or missing, never through a symlink. Fail-soft: nothing here changes
what the writer did or returns.
"""

from __future__ import annotations

import os
import stat

FOOTER = (
    "Следующий шаг — {task}",
    "primary CTA",
)


def _trusted(directory: str) -> bool:
    try:
        info = os.lstat(directory)
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.geteuid()
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def journal_directory(task: str) -> str:
    """Where the reference's test harness keeps a task's journal."""
    return os.path.join(os.environ.get("DATARIM_HARNESS_DIR") or "/tmp", f"datarim-test-{task}")


def _body_marks(task: str, body: str | bytes) -> tuple[str, str]:
    """header-present and cta-footer of the body (a file's path, or the bytes a
    caller gave), y or n: its first line opens with "**<task> · ", and a line
    holds the CTA heading, "/dr-<word> <task>" or "primary CTA"."""
    import io
    import re

    header = footer = "n"
    words = [re.escape(mark.format(task=task).encode()) for mark in FOOTER]
    found = re.compile(b"|".join([*words, b"/dr-[a-z]+ " + re.escape(task.encode())]))
    try:
        with io.BytesIO(body) if isinstance(body, bytes) else open(body, "rb") as handle:
            first = handle.readline(256)
            if first.startswith(f"**{task} \u00b7 ".encode()):
                header = "y"
            handle.seek(0)
            for line in handle:
                if found.search(line):
                    footer = "y"
                    break
    except OSError:
        pass
    return header, footer


def append(
    directory: str, task: str, stage: str, captured_at: str, body: str | bytes, content: bytes
) -> None:
    """Appends the journal line of one write to the task's harness directory
    (journal_directory), when that directory may be trusted; body is the body
    file's path or the body's bytes."""
    if not _trusted(directory):
        return
    journal = os.path.join(directory, "journal.md")
    try:
        mode = os.lstat(journal).st_mode
        if not stat.S_ISREG(mode):
            return
    except FileNotFoundError:
        pass
    except OSError:
        return
    import hashlib

    header, footer = _body_marks(task, body)
    sha = hashlib.sha256(content).hexdigest()[:12]
    line = (
        f"{stage} \u00b7 {captured_at} \u00b7 header-present:{header} \u00b7 snapshot-written:y"
        f" \u00b7 cta-footer:{footer} \u00b7 snapshot-sha:{sha}\n"
    )
    try:
        fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o666)
    except OSError:
        return
    try:
        os.write(fd, line.encode())
    except OSError:
        pass
    finally:
        os.close(fd)
