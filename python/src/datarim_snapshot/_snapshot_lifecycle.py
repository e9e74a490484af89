"""Bash twin: scripts/lib/snapshot-lifecycle.sh (+ snapshot-lifecycle.awk).

Snapshot lifecycle: show one, list them all, archive a final one.
"""

from __future__ import annotations

import os

from . import _jsonout as jsonout
from ._errors import DatarimError, LockBusyError, MalformedError, UsageError, quietly
from ._flags import parse_flags, seconds_env
from ._lock import held_lock
from ._roots import reader_root, writer_root
from ._rules import is_timestamp, shown_text, task_id_ok
from ._snapshot_resume import pick_task
from ._snapshot_validator import checked_file, read_snapshot, snapshot_relpath
from ._snapshot_writer import now_utc

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._console import Console
    from ._snapshot_validator import SnapshotFields

SHOW = "snapshot-show"
LIST = "snapshot-list"
ARCHIVE = "snapshot-archive"
MAX_ARCHIVES = 999


def _task(flags: dict[str, str]) -> str:
    if not flags.get("task"):
        raise UsageError("missing required flag(s): --task", code=3)
    return pick_task("", flags["task"])


def show_json(task: str, snapshot: SnapshotFields) -> bytes:
    return jsonout.dumps(
        {
            "task": task,
            "path": snapshot_relpath(task),
            "stage": snapshot.stage.decode(),
            "command": snapshot.command.decode(),
            "captured_at": snapshot.captured_at.decode(),
            "captured_by": snapshot.captured_by.decode(),
            "recommended_next": snapshot.recommended_next.decode(),
            "options": [option.decode() for option in snapshot.options],
            "size_bytes": snapshot.size_bytes,
            "truncated": snapshot.truncated,
            "body": snapshot.body.decode(),
        }
    )


def show_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/snapshot-show.sh."""
    flags = parse_flags("--task= @--task --root= --json", "", argv)
    task = _task(flags)
    root = reader_root(flags.get("root"))
    snapshot = read_snapshot(root, task)
    if flags.get("json"):
        console.write(show_json(task, snapshot))
    else:
        # A terminal shows it: escape sequences and other controls of the body as '?'.
        console.write(shown_text(snapshot.data.decode("utf-8")).encode("utf-8"))
    return 0


def epoch(timestamp: str) -> int:
    """Seconds since 1970 of a checked YYYY-MM-DDTHH:MM:SSZ."""
    import calendar  # here: only a list needs ages

    fields = ((0, 4), (5, 7), (8, 10), (11, 13), (14, 16), (17, 19))
    parts = [int(timestamp[start:end]) for start, end in fields]
    return calendar.timegm((*parts, 0, 0, 0))


def age_text(seconds: int) -> str:
    """An age as its largest whole unit: 45s, 7m, 5h, 3d; "future" when negative."""
    if seconds < 0:
        return "future"
    for limit, unit, size in ((60, "s", 1), (3600, "m", 60), (86400, "h", 3600)):
        if seconds < limit:
            return f"{seconds // size}{unit}"
    return f"{seconds // 86400}d"


def list_rows(root: str) -> list[tuple[str, SnapshotFields | None, str]]:
    """(task, snapshot or None, why not valid) for each snapshot file, by name."""
    directory = os.path.join(root, "datarim", "snapshots")
    if not os.path.isdir(directory):
        return []
    rows: list[tuple[str, SnapshotFields | None, str]] = []
    for name in sorted(os.listdir(directory), key=os.fsencode):
        if not name.endswith(".snapshot.md"):
            continue
        task = name[: -len(".snapshot.md")]
        if name.startswith(".") or not task_id_ok(task):
            continue
        path = os.path.join(directory, name)
        try:
            rows.append((task, checked_file(path, task), ""))
        except DatarimError as exc:
            if not os.path.lexists(path):
                continue  # gone since the folder was listed: as bash, left out
            rows.append((task, None, exc.message.replace("\t", "?")))
    return rows


def list_output(
    rows: Sequence[tuple[str, SnapshotFields | None, str]], now: int, as_json: bool
) -> bytes:
    if as_json:
        items = []
        for task, snapshot, reason in rows:
            if snapshot is None:
                items.append(
                    {
                        "task": task,
                        "valid": False,
                        "reason": reason,
                        "stage": None,
                        "captured_at": None,
                        "age_seconds": None,
                        "recommended_next": None,
                    }
                )
                continue
            items.append(
                {
                    "task": task,
                    "valid": True,
                    "reason": None,
                    "stage": snapshot.stage.decode(),
                    "captured_at": snapshot.captured_at.decode(),
                    "age_seconds": now - epoch(snapshot.captured_at.decode()),
                    "recommended_next": snapshot.recommended_next.decode(),
                }
            )
        return jsonout.dumps(items)
    table = [["TASK", "STAGE", "CAPTURED_AT", "AGE", "RECOMMENDED_NEXT", "STATUS"]]
    for task, snapshot, reason in rows:
        if snapshot is None:
            table.append([task, "-", "-", "-", "-", f"invalid: {reason}"])
            continue
        captured = snapshot.captured_at.decode()
        table.append(
            [
                task,
                snapshot.stage.decode(),
                captured,
                age_text(now - epoch(captured)),
                snapshot.recommended_next.decode(),
                "valid",
            ]
        )
    widths = [max(len(row[c]) for row in table) for c in range(5)]
    lines = []
    for row in table:
        padded = "".join(cell.ljust(widths[c]) + "  " for c, cell in enumerate(row[:5]))
        lines.append(padded + row[5] + "\n")
    return "".join(lines).encode()


def list_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/snapshot-list.sh."""
    flags = parse_flags("--root= --json", "", argv)
    root = reader_root(flags.get("root"))
    directory = os.path.join(root, "datarim", "snapshots")
    if os.path.islink(directory):
        raise MalformedError("datarim/snapshots is a symlink")
    # A directory that cannot be listed or searched would read as empty.
    unreadable = os.path.isdir(directory) and not os.access(directory, os.R_OK | os.X_OK)
    now = os.environ.get("DATARIM_NOW") or now_utc()
    try:
        rows = [] if unreadable else list_rows(root)
    except OSError:
        unreadable = True
    if unreadable:
        raise DatarimError("datarim/snapshots cannot be read", code=2)
    if not is_timestamp(os.fsencode(now)):
        raise UsageError("DATARIM_NOW must be YYYY-MM-DDTHH:MM:SSZ, a real UTC time")
    console.write(list_output(rows, epoch(now), bool(flags.get("json"))))
    return 0


def _area_ok(area: str) -> bool:
    """[A-Za-z0-9][A-Za-z0-9._-]*: a letter or digit, then letters, digits, '.', '_', '-'."""
    return (
        area.isascii()
        and area[:1].isalnum()
        and all(char.isalnum() or char in "._-" for char in area)
    )


def archive_area(task: str, area: str | None) -> str:
    """--area, or the task ID's prefix lower-cased; one safe path segment."""
    chosen = area or task.split("-", 1)[0].lower()
    if len(chosen) > 64 or not _area_ok(chosen):
        raise UsageError(
            "invalid --area (want one path segment: letters, digits, '.', '_' or '-', at most 64)",
            code=3,
        )
    return chosen


def _archive_dir(root: str, rel_dir: str, made: list[str]) -> None:
    """Makes root/rel_dir one directory at a time, refusing a symlink on the way."""
    part = ""
    for name in rel_dir.split("/"):
        part = f"{part}/{name}" if part else name
        path = os.path.join(root, part)
        if os.path.islink(path):
            raise DatarimError(f"{part} is a symlink; refusing to write through it")
        if os.path.isdir(path):
            continue
        try:
            os.mkdir(path)
        except OSError:
            if os.path.isdir(path) and not os.path.islink(path):
                continue
            raise DatarimError(f"cannot create {part}") from None
        made.insert(0, part)


def _undo_dirs(root: str, made: Sequence[str]) -> None:
    """Removes the directories made (newest first) when they are still empty."""
    for part in made:
        quietly(os.rmdir, os.path.join(root, part))


def archive_snapshot(root: str, task: str, area: str, timeout: int) -> str:
    """Moves the task's valid snapshot into documentation/archive/<area>/snapshots
    under the first free name and returns that path (relative to root). Raises
    MissingError (1), MalformedError (2) or DatarimError (1); nothing changes then."""
    directory = os.path.join(root, "datarim", "snapshots")
    rel = snapshot_relpath(task)
    source = os.path.join(root, rel)
    if os.path.islink(directory):
        raise MalformedError("datarim/snapshots is a symlink")
    if not os.path.lexists(source):
        raise DatarimError(f"{rel} is missing")
    try:
        with held_lock(os.path.join(directory, f".lock.{task}"), timeout):
            return _archive_locked(root, task, area)
    except LockBusyError as exc:
        raise DatarimError(exc.message) from None


def _archive_locked(root: str, task: str, area: str) -> str:
    """The move, under the task's snapshot lock: validate, link under the first free
    name (a link never replaces a file), then unlink the snapshot."""
    rel = snapshot_relpath(task)
    source = os.path.join(root, rel)
    read_snapshot(root, task)
    rel_dir = f"documentation/archive/{area}/snapshots"
    made: list[str] = []
    try:
        _archive_dir(root, rel_dir, made)
    except DatarimError:
        _undo_dirs(root, made)
        raise
    number = 1
    target = f"{rel_dir}/{task}-final-stage.md"
    while True:
        try:
            os.link(source, os.path.join(root, target))
            break
        except FileExistsError:
            pass
        except OSError:
            _undo_dirs(root, made)
            raise DatarimError(
                f"cannot link {target} (is documentation/ on another file system?)"
            ) from None
        number += 1
        if number > MAX_ARCHIVES:
            _undo_dirs(root, made)
            raise DatarimError(f"{rel_dir} already holds {MAX_ARCHIVES} archives of {task}")
        target = f"{rel_dir}/{task}-final-stage-{number}.md"
    try:
        os.unlink(source)
    except OSError:
        quietly(os.unlink, os.path.join(root, target))
        _undo_dirs(root, made)
        raise DatarimError(f"cannot remove {rel}") from None
    return target


def archive_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/snapshot-archive.sh."""
    flags = parse_flags("--task= @--task --root= --area=", "", argv)
    task = _task(flags)
    area = archive_area(task, flags.get("area"))
    timeout = seconds_env("DR_SNAPSHOT_LOCK_TIMEOUT", 60)
    root = writer_root(reader_root(flags.get("root")))
    target = archive_snapshot(root, task, area, timeout)
    console.write(f"{target}\n".encode())
    return 0
