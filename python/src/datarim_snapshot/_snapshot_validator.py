"""Bash twin: scripts/lib/snapshot-validator.sh (+ snapshot-validate.awk).

Stage-snapshot validator (spec §3).
"""

from __future__ import annotations

import os
import stat

from . import _git_anchor as git_anchor
from ._errors import (
    InvalidTaskIdError,
    MalformedError,
    MissingError,
    RefusedError,
    arguments_named,
)
from ._frontmatter import Fields, key_of, open_frontmatter, text
from ._inputs import read_prefix
from ._records import FrozenRecord, Record
from ._rules import (
    CAP,
    MARKER,
    REFERENCE_MARKER,
    bad_task,
    is_captured_by,
    is_stage,
    is_timestamp,
    shown,
    slash_command_fault,
    task_id_ok,
    yaml_quoted_ok,
    yaml_scalar,
    yaml_scalar_ok,
    yaml_unquote,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Union

    from ._console import Console

    PathLike = Union[str, "os.PathLike[str]"]

FIELDS = [
    "task_id",
    "artifact",
    "schema_version",
    "stage",
    "command",
    "captured_at",
    "captured_by",
    "recommended_next",
    "options",
    "size_bytes",
    "truncated",
]


class SnapshotFields(Record):
    """What the validator checked, as the file's bytes, handed back so a reader
    never parses the frontmatter again (StageSnapshot is the API's str form)."""

    # The frontmatter's fields but artifact and schema_version (constants), then the rest.
    __slots__ = (FIELDS[0], *FIELDS[3:], "body", "data", "extra")

    def __init__(
        self,
        task_id: str,
        stage: bytes,
        command: bytes,
        captured_at: bytes,
        captured_by: bytes,
        recommended_next: bytes,
        options: list[bytes],
        size_bytes: int,
        truncated: bool,
        body: bytes,
        data: bytes,
        extra: dict[str, bytes] | None = None,
    ) -> None:
        self.task_id = task_id
        self.stage = stage
        self.command = command
        self.captured_at = captured_at
        self.captured_by = captured_by
        self.recommended_next = recommended_next
        self.options = options  # the items with the YAML quoting undone
        self.size_bytes = size_bytes
        self.truncated = truncated
        self.body = body  # the bytes after the blank line that ends the frontmatter
        self.data = data  # the whole file
        self.extra: dict[str, bytes] = {} if extra is None else extra  # optional, in file order


def _check_option_item(line: bytes, number: int) -> bytes:
    """Checks one options item, quoted or plain (spec §8); returns its text, the
    YAML quoting undone."""
    value = line[4:]
    if not line.startswith(b"  - ") or value == b'""' or not yaml_scalar_ok(value):
        raise MalformedError(f"bad options item {number}")
    return yaml_scalar(value)


def _check_git_field(key: str, value: bytes) -> bytes:
    """Checks the value of a git anchor field; returns it, a branch unquoted."""
    if key == "git_head" and not git_anchor.sha_ok(value):
        raise MalformedError("bad git_head")
    if key == "git_dirty" and value not in (b"true", b"false"):
        raise MalformedError("bad git_dirty")
    if key == "git_branch":
        if len(value) < 3 or not yaml_quoted_ok(value):
            raise MalformedError("bad git_branch")
        value = yaml_unquote(value)
        if not git_anchor.branch_ok(value):
            raise MalformedError("bad git_branch")
    return value


def _checked(value: bytes, key: str, ok: Callable[[bytes], bool]) -> bytes:
    """value, unless ok(value) is false: then MalformedError "bad <key>"."""
    if not ok(value):
        raise MalformedError(f"bad {key}")
    return value


def _checked_command(value: bytes, key: str) -> bytes:
    """value, unless it is no slash command: then MalformedError "bad <key>: <why>"."""
    fault = slash_command_fault(value)
    if fault:
        raise MalformedError(f"bad {key}: {fault}")
    return value


def checked_fields(data: bytes, task: str, extra_keys: tuple[str, ...] = ()) -> SnapshotFields:
    """Raises MalformedError naming the first broken rule; data is at most CAP+1 bytes.
    Returns the validated fields."""
    size = len(data)
    lines = open_frontmatter(data, CAP)
    reader = Fields(lines, FIELDS, lists=("options",), extra=(*git_anchor.FIELDS, *extra_keys))
    field = reader.field
    seen = reader.seen

    value = field("task_id")
    if value != task.encode():
        raise MalformedError(f"task_id {text(value)} does not match the file name")
    if field("artifact") != b"stage-snapshot":
        raise MalformedError("artifact is not stage-snapshot")
    if field("schema_version") != b"1":
        raise MalformedError("schema_version is not 1")
    stage = _checked(field("stage"), "stage", is_stage)
    command = _checked_command(field("command"), "command")
    captured_at = _checked(field("captured_at"), "captured_at", is_timestamp)
    captured_by = _checked(field("captured_by"), "captured_by", is_captured_by)
    recommended_next = _checked_command(field("recommended_next"), "recommended_next")

    options: list[bytes] = []
    line = field("options")
    if line == b"options:":
        for item in lines.items():
            options.append(_check_option_item(item, len(options) + 1))
        # No item before the next key: the empty list the reference writes.
    elif line != b"options: []":
        raise MalformedError("options is not a list")

    size_text = field("size_bytes")
    if not size_text.isdigit() or size_text.startswith(b"0"):  # [1-9][0-9]*
        raise MalformedError("bad size_bytes")
    truncated = field("truncated")
    if truncated not in (b"true", b"false"):
        raise MalformedError("bad truncated")

    extra: dict[str, bytes] = {}
    last_rank = 0
    # Releases of 2026-05-25 to 2026-06-19 glued the closing "---" to the
    # body's first line ("---**TUNE-0254 ...") and counted the frontmatter of
    # "size_bytes: 8192" and "truncated: true": with "truncated: false" and a
    # size of four digits that is one byte short (spec §8). That terminator is
    # the body's start, and that size is theirs; nothing else is let through
    # (those releases wrote no git field, so after one it is no terminator).
    glued = False
    while True:
        mark = lines.pos
        extra_line = lines.next()
        if extra_line == b"---":
            break
        if extra_line is not None and extra_line.startswith(b"---") and not last_rank:
            glued = True
            lines.pos = mark + 3
            break
        if extra_line is None:
            raise MalformedError("frontmatter is not closed")
        key_bytes = key_of(extra_line)
        key = key_bytes.decode("utf-8")
        if key in seen:
            raise MalformedError(f"duplicate field: {shown(key)}")
        rank = git_anchor.field_rank(key)
        if not rank and key not in extra_keys:
            raise MalformedError(f"unknown field: {shown(key)}")
        if rank and rank < last_rank:
            raise MalformedError(f"git fields out of order at {key}")
        last_rank = max(last_rank, rank)
        width = len(key_bytes)
        if extra_line[width : width + 2] != b": " or len(extra_line) == width + 2:
            raise MalformedError(f"bad {shown(key)} line")
        seen.add(key)
        extra[key] = extra_line[width + 2 :]
        if rank:
            extra[key] = _check_git_field(key, extra[key])
    if not glued and lines.next() != b"":
        raise MalformedError("no blank line after the frontmatter")
    declared = int(size_text)
    one_short = glued and truncated == b"false" and declared >= 1000 and declared + 1 == size
    if declared != size and not one_short:
        raise MalformedError(f"size_bytes is {size_text.decode()} but the file has {size} bytes")
    if truncated == b"true" and not any(
        size - lines.pos >= len(marker) and data.endswith(marker)
        for marker in (MARKER, REFERENCE_MARKER)
    ):
        raise MalformedError(
            "truncated is true but the body does not end with the truncation marker"
        )
    return SnapshotFields(
        task_id=task,
        stage=stage,
        command=command,
        captured_at=captured_at,
        captured_by=captured_by,
        recommended_next=recommended_next,
        options=options,
        size_bytes=size,
        truncated=truncated == b"true",
        body=data[lines.pos :],
        data=data,
        extra=extra,
    )


def checked_file(path: str, task: str, extra_keys: tuple[str, ...] = ()) -> SnapshotFields:
    """Raises MissingError (1) or MalformedError (2); returns the fields when the file
    may be trusted."""
    return checked_fields(read_artifact(path, CAP + 1), task, extra_keys)


def read_artifact(path: str, limit: int) -> bytes:
    """At most limit bytes of a regular, readable, non-symlink file.

    Raises MissingError (1) or MalformedError (2) with the shell's wording."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        # Not there, or its path cannot be looked up (a file where a directory
        # should be, a directory without search permission): missing, as the
        # shell's `[ -e ]` says.
        raise MissingError("is missing") from None
    if stat.S_ISLNK(mode):
        raise MalformedError("is a symlink")
    if not stat.S_ISREG(mode) or not os.access(path, os.R_OK):
        raise MalformedError("is not a readable regular file")
    try:
        return read_prefix(path, limit)
    except OSError:
        raise MalformedError("cannot be read") from None


def find_root(start: PathLike | None = None) -> str:
    """The workspace a reader works in when given no root: the nearest folder
    at or above ``start`` (default: the current one) holding datarim/ (spec §8;
    roots.discover_root says how a choice is made)."""
    from ._roots import discover_root

    return discover_root(None if start is None else os.fspath(start)).path


def snapshot_relpath(task: str) -> str:
    return f"datarim/snapshots/{task}.snapshot.md"


class StageSnapshot(FrozenRecord):
    """A valid stage snapshot (spec §2), every field as text.

    ``options`` holds the items with their YAML quoting undone, ``body`` the
    text after the frontmatter, ``git`` the optional git_* anchor fields
    (git_head, git_branch, ...) in file order."""

    __slots__ = (
        "task_id", "stage", "command", "captured_at", "captured_by", "recommended_next",
        "options", "size_bytes", "truncated", "body", "git",
    )  # fmt: skip
    task_id: str
    stage: str
    command: str
    captured_at: str
    captured_by: str
    recommended_next: str
    options: tuple[str, ...]
    size_bytes: int
    truncated: bool
    body: str
    git: dict[str, str]

    def __init__(self, fields: SnapshotFields) -> None:
        self._init(
            task_id=fields.task_id,
            stage=_text(fields.stage),
            command=_text(fields.command),
            captured_at=_text(fields.captured_at),
            captured_by=_text(fields.captured_by),
            recommended_next=_text(fields.recommended_next),
            options=tuple(_text(option) for option in fields.options),
            size_bytes=fields.size_bytes,
            truncated=fields.truncated,
            body=_text(fields.body),
            git={key: _text(value) for key, value in fields.extra.items()},
        )


def _text(value: bytes) -> str:
    # The validator let only UTF-8 through; a byte it did not would survive as
    # a surrogate rather than fail a reader.
    return value.decode("utf-8", "surrogateescape")


def check_snapshot_bytes(data: str | bytes, task: str) -> StageSnapshot:
    """The snapshot file's content (text or bytes) checked against spec §3 for
    task; returns its fields. Raises MalformedError naming the first broken rule.

    >>> check_snapshot_bytes("not a snapshot", "TUNE-0032")
    Traceback (most recent call last):
    ...
    datarim_snapshot._errors.MalformedError: does not start with --- frontmatter
    """
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    return StageSnapshot(checked_fields(raw[: CAP + 1], task))


def check_snapshot_file(path: PathLike, task: str) -> StageSnapshot:
    """check_snapshot_bytes of a file; MissingError when there is none, a
    MalformedError also for a symlink or a file that cannot be read."""
    return StageSnapshot(checked_file(os.fspath(path), task))


def validate_stage_snapshot(task: str, root: PathLike | None = None) -> str:
    """Validates the task's snapshot in root (default: find_root()) and returns
    its path. Raises InvalidTaskIdError for a bad task ID, MissingError when
    there is no snapshot, MalformedError naming the file and the broken rule.

    >>> validate_stage_snapshot("TUNE-0032", workspace).endswith("TUNE-0032.snapshot.md")
    True
    """
    path, _ = read_stage_snapshot(task, root)
    return path


def read_stage_snapshot(task: str, root: PathLike | None = None) -> tuple[str, StageSnapshot]:
    """validate_stage_snapshot, also handing back the fields: (path, snapshot).

    >>> path, snapshot = read_stage_snapshot("TUNE-0032", workspace)
    >>> snapshot.stage, snapshot.recommended_next, snapshot.body
    ('plan', '/dr-do', 'Plan ready: three steps.\\n')
    """
    with arguments_named():
        path, fields = located_snapshot(task, None if root is None else os.fspath(root))
    return path, StageSnapshot(fields)


def located_snapshot(task: str, root: str | None) -> tuple[str, SnapshotFields]:
    """The task's snapshot's path and fields, found as `check --task` finds
    them; raises with the command line's messages."""
    if not task_id_ok(task):
        raise InvalidTaskIdError(bad_task(task), code=3)
    from ._roots import reader_root

    resolved = reader_root(root)
    return os.path.join(resolved, snapshot_relpath(task)), read_snapshot(resolved, task)


def read_snapshot(root: str, task: str) -> SnapshotFields:
    """The task's validated snapshot under a resolved root: the one reader of the
    validator, the readers (show, archive, replay, resume) and doctor. Raises
    MissingError (1) or MalformedError (2) whose message names the file and the
    rule broken as the shell words it ("datarim/snapshots/<ID>.snapshot.md bad
    captured_at"); the caller decides whether to say it."""
    if os.path.islink(os.path.join(root, "datarim", "snapshots")):
        raise MalformedError("datarim/snapshots is a symlink")
    rel = snapshot_relpath(task)
    try:
        return checked_file(os.path.join(root, rel), task)
    except (MissingError, MalformedError) as exc:
        raise type(exc)(f"{rel} {exc.message}") from None


__all__ = [
    "RefusedError",
    "StageSnapshot",
    "check_snapshot_bytes",
    "check_snapshot_file",
    "find_root",
    "read_stage_snapshot",
    "validate_stage_snapshot",
]


CHECKER = "check-stage-snapshot"


def check_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, output and exit codes as dev-tools/check-stage-snapshot-on-exit.sh."""
    from ._flags import run_checker

    return run_checker(argv, console, "--task", located_snapshot, self_test)


def self_test(console: Console) -> int:
    """Writes, checks and breaks a snapshot in a scratch root."""
    from . import _flags as flags

    return flags.self_test(
        console, CHECKER, _write_self_test, lambda path: checked_file(path, "SELF-0001")
    )


def _write_self_test(scratch: str) -> str:
    from ._flags import seconds_env
    from ._snapshot_writer import redaction_enabled, write_stage_snapshot

    # As the shell's self-test writes: with the command line's switches.
    if os.environ.get("DATARIM_DISABLE_SNAPSHOT") != "1":
        write_stage_snapshot(
            scratch, "SELF-0001", "plan", "/dr-plan", "agent", "/dr-do",
            body=b"self-test body\n", captured_at="2026-01-01T00:00:00Z",
            redact=redaction_enabled(), lock_timeout=seconds_env("DR_SNAPSHOT_LOCK_TIMEOUT", 60),
        )  # fmt: skip
    return os.path.join(scratch, "datarim", "snapshots", "SELF-0001.snapshot.md")
