"""Bash twin: scripts/lib/snapshot-writer.sh.

Stage-snapshot writer (spec §2).
"""

from __future__ import annotations

import os
import time

from . import _git_anchor as git_anchor
from . import _journal as journal
from ._errors import RefusedError, UsageError, arguments_named
from ._flags import check_descriptors, seconds_env, writer_arguments
from ._inputs import one_stdin, read_input, require_readable
from ._lock import held_lock, unlink_quietly
from ._publish import artifact_dir, publish
from ._records import FrozenRecord
from ._roots import new_knowledge_base, tell_written, writer_root
from ._rules import (
    BOM,
    CAP,
    MARKER,
    STAGES,
    check_task_flag,
    checked_lines,
    fixed_total,
    is_captured_by,
    is_stage,
    is_timestamp,
    slash_command_fault,
    utf8_scan,
    yaml_quote,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs a command milliseconds at run time
    from collections.abc import Sequence
    from typing import Union

    from ._console import Console

    PathLike = Union[str, "os.PathLike[str]"]
# The body window: twice the cap, so that what redaction removes is made up
# from further on; one byte more tells whether the body goes on.
BODY_WINDOW = 2 * CAP
BODY_READ_LIMIT = BODY_WINDOW + 1
OPTIONS_READ_LIMIT = CAP + 1


def _raw(value: str) -> bytes:
    return os.fsencode(value)


def capture_lines(captured_at: str, captured_by: str, recommended_next: str) -> bytes:
    """The frontmatter lines of when, by whom and what next, in the order both a
    stage snapshot and a session block hold them (spec §3, §5)."""
    return (
        b"captured_at: "
        + _raw(captured_at)
        + b"\ncaptured_by: "
        + _raw(captured_by)
        + b"\nrecommended_next: "
        + _raw(recommended_next)
        + b"\n"
    )


def _is_cont(text: bytes, index: int) -> bool:
    return index < len(text) and 0x80 <= text[index] <= 0xBF


def _render_options(options: bytes | None, redact: bool) -> tuple[bytes, int]:
    """The options frontmatter, and the number of secrets redacted from it."""
    if options is None:
        return b"options: []\n", 0
    if len(options) > CAP:
        raise RefusedError(
            f"--options-file exceeds {CAP}-byte cap (the file is larger than {CAP} bytes)"
        )
    items = []
    redacted = 0
    for _, segment in checked_lines(options, "--options-file"):
        if segment:
            if redact:  # an option line is redacted on its own: one option, one line
                from ._redaction import redact as redact_secrets

                segment, count = redact_secrets(segment)
                redacted += count
            items.append(b"  - " + yaml_quote(segment) + b"\n")
    if not items:
        return b"options: []\n", 0
    return b"options:\n" + b"".join(items), redacted


class RenderedSnapshot(bytes):
    """A snapshot file's bytes (what render_snapshot returns), with how many
    secrets (options and body) they hold as [REDACTED] (redactions_of)."""

    redactions: int

    def __new__(cls, data: bytes, redactions: int) -> RenderedSnapshot:
        rendered = super().__new__(cls, data)
        rendered.redactions = redactions
        return rendered


def redactions_of(rendered: bytes) -> int:
    """How many secrets render_snapshot redacted into these bytes."""
    return rendered.redactions if isinstance(rendered, RenderedSnapshot) else 0


class SnapshotSaved(FrozenRecord):
    """A written snapshot: its path, how many secrets were saved as [REDACTED]
    and, when the write started a knowledge base, its datarim/ directory."""

    __slots__ = ("path", "redactions", "new_knowledge_base")
    path: str
    redactions: int
    new_knowledge_base: str | None

    def __init__(self, path: str, redactions: int, new_knowledge_base: str | None) -> None:
        self._init(path=path, redactions=redactions, new_knowledge_base=new_knowledge_base)


def render_snapshot(
    task: str,
    stage: str,
    command: str,
    captured_by: str,
    recommended_next: str,
    captured_at: str,
    options: bytes | None,
    body: bytes,
    extra: bytes = b"",
    body_flag: str = "--body-file",
    redact: bool = True,
) -> bytes:
    """The snapshot file's bytes.

    options and body are what their files hold (only the first bytes count, as
    much as the writer reads); extra holds pre-rendered optional frontmatter
    lines; secrets in the options and the body become [REDACTED] unless redact
    is False. Raises RefusedError naming the first bad input (a bad body by
    body_flag, the flag that named it)."""
    # The bytes are a RenderedSnapshot: the writers ask redactions_of how many
    # secrets they hold. Only the first OPTIONS_READ_LIMIT / BODY_READ_LIMIT
    # bytes of options and body are read.
    if not is_stage(_raw(stage)):
        raise RefusedError("invalid --stage (want one of: " + " ".join(STAGES) + ")")
    fault = slash_command_fault(_raw(command))
    if fault:
        raise RefusedError(f"invalid --command: {fault}")
    if not is_captured_by(_raw(captured_by)):
        raise RefusedError("invalid --captured-by (want agent or operator)")
    fault = slash_command_fault(_raw(recommended_next))
    if fault:
        raise RefusedError(f"invalid --recommended-next: {fault}")
    if not is_timestamp(_raw(captured_at)):
        raise RefusedError("invalid --captured-at (want YYYY-MM-DDTHH:MM:SSZ, a real UTC time)")

    rendered_options, redacted = _render_options(options, redact)
    head = (
        b"---\ntask_id: "
        + _raw(task)
        + b"\nartifact: stage-snapshot\nschema_version: 1\nstage: "
        + _raw(stage)
        + b"\ncommand: "
        + _raw(command)
        + b"\n"
        + capture_lines(captured_at, captured_by, recommended_next)
        + rendered_options
        + b"size_bytes: "
    )
    tail_false = b"\ntruncated: false\n" + extra + b"---\n\n"
    tail_true = b"\ntruncated: true\n" + extra + b"---\n\n"

    # The body: its file's first BODY_WINDOW bytes up to a NUL, redacted
    # before the cap is applied, so that a cut never keeps half a secret.
    body = body[:BODY_READ_LIMIT]
    window_size = BODY_WINDOW
    if body.startswith(BOM):
        # The window shrinks with the body: "more" still means the same bytes.
        body, window_size = body[3:], BODY_WINDOW - 3
    more = len(body) > window_size
    window = body[:window_size]
    nul = window.find(b"\0")
    text = window if nul < 0 else window[:nul]
    if redact:
        from ._redaction import redact as redact_secrets

        text, count = redact_secrets(text)
        redacted += count
    # The body's size on disk when whole: bytes past a NUL count; a body
    # longer than the window never fits.
    whole = CAP + 1 if more else len(text) + (len(body) - nul if nul >= 0 else 0)
    room = CAP - len(head) - len(tail_false) - 4
    bad_cut = nul_kept = False
    if whole <= room:
        keep, truncated = len(text), False
        nul_kept = nul >= 0
    else:
        keep = CAP - len(head) - len(tail_true) - 4 - len(MARKER)
        if keep < 0:
            raise RefusedError(
                f"options leave no room for the body: with them the snapshot exceeds {CAP}-byte cap"
            )
        truncated = True
        if nul >= 0 and len(text) < keep:
            nul_kept = True
        elif more and nul < 0 and len(text) <= keep:
            # Redaction shrank the window below the cap: its end would be kept.
            # Drop its last word, which the window's edge may have split.
            keep = len(text)
            while keep > 0 and text[keep - 1] not in b"\n \t\r":
                keep -= 1
        else:
            # Step back over at most three continuation bytes to a character start.
            steps = 0
            while steps < 3 and keep > 0 and _is_cont(text, keep):
                keep -= 1
                steps += 1
            bad_cut = _is_cont(text, keep)
    fault = (utf8_scan(text) or "nul") if nul_kept else utf8_scan(text[:keep])
    if not fault and bad_cut:
        fault = "utf8"
    if fault == "nul":
        raise RefusedError(f"{body_flag} holds a NUL byte")
    if fault:
        raise RefusedError(f"{body_flag} is not valid UTF-8")

    tail = tail_true if truncated else tail_false
    kept = text[:keep] + (MARKER if truncated else b"")
    total = fixed_total(len(head) + len(tail) + len(kept))
    return RenderedSnapshot(head + str(total).encode() + tail + kept, redacted)


def now_utc() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def write_stage_snapshot(
    root: PathLike,
    task: str,
    stage: str,
    command: str,
    captured_by: str,
    recommended_next: str,
    body_file: PathLike | None = None,
    options_file: PathLike | None = None,
    captured_at: str | None = None,
    *,
    body: str | bytes | None = None,
    options: str | bytes | Sequence[str] | None = None,
    redact: bool = True,
    lock_timeout: int = 60,
) -> str:
    """Writes <root>/datarim/snapshots/<task>.snapshot.md and returns its path.

    The body is given as text or bytes (``body``) or as a file to read
    (``body_file``; "-" is the standard input), never both; so are the
    options, as text or bytes with one option a line, a list of options, or
    ``options_file``. ``captured_at`` defaults to now (UTC). Secrets in the
    body and the options are saved as [REDACTED] unless ``redact`` is False.
    The environment changes nothing here (DATARIM_DISABLE_SNAPSHOT and the
    other switches are the command line's).

    Raises InvalidTaskIdError for a bad task ID, RefusedError for any other
    bad argument or an I/O failure, UsageError for a bad combination of
    arguments and LockBusyError when another writer held the lock for
    ``lock_timeout`` seconds; messages name the argument (``body is not valid
    UTF-8``). On any of them nothing already on disk has changed.

    >>> path = write_stage_snapshot(
    ...     workspace, "TUNE-0032", "plan", "/dr-plan", "agent", "/dr-do",
    ...     body="Plan ready: three steps.\\n", captured_at="2026-06-01T10:00:00Z")
    >>> path.endswith("datarim/snapshots/TUNE-0032.snapshot.md")
    True
    >>> write_stage_snapshot(workspace, "TUNE-0032", "later", "/dr-plan", "agent",
    ...                      "/dr-do", body="x")
    Traceback (most recent call last):
    ...
    datarim_snapshot._errors.RefusedError: invalid stage (want one of: ...)
    """
    if (body is None) == (body_file is None):
        raise UsageError("give exactly one of body and body_file")
    if options is not None and options_file is not None:
        raise UsageError("give at most one of options and options_file")
    renames = {"--body-file": "body_file" if body is None else "body"}
    renames["--options-file"] = "options_file" if options is None else "options"
    with arguments_named(renames):
        body_bytes = None if body is None else _argument_bytes(body, "--body-file")
        options_bytes = None if options is None else _options_bytes(options)
        saved = save_stage_snapshot(
            root, task, stage, command, captured_by, recommended_next, body_file,
            options_file, captured_at, redact=redact, lock_timeout=lock_timeout,
            body=body_bytes, options=options_bytes,
        )  # fmt: skip
    return saved.path


def _argument_bytes(value: str | bytes, flag: str) -> bytes:
    if isinstance(value, bytes):
        return value
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        raise RefusedError(f"{flag} is not valid UTF-8") from None


def _options_bytes(options: str | bytes | Sequence[str]) -> bytes:
    """The options as the options file would hold them: one a line."""
    if isinstance(options, (str, bytes)):
        return _argument_bytes(options, "--options-file")
    lines = []
    for number, option in enumerate(options, 1):
        if "\n" in option or "\r" in option:
            raise RefusedError(f"--options-file item {number} holds a line break")
        lines.append(_argument_bytes(option, "--options-file") + b"\n")
    return b"".join(lines)


def save_stage_snapshot(
    root: PathLike,
    task: str,
    stage: str,
    command: str,
    captured_by: str,
    recommended_next: str,
    body_file: PathLike | None,
    options_file: PathLike | None = None,
    captured_at: str | None = None,
    *,
    redact: bool,
    lock_timeout: int,
    body: bytes | None = None,
    options: bytes | None = None,
) -> SnapshotSaved:
    """The write itself, with the command line's messages: the body and the
    options are bytes or files (body or body_file, options or options_file)."""
    # write_stage_snapshot's parameters again, bytes only: the public call takes
    # more forms, the command line these (natural twins, issue 20).
    check_descriptors()
    options_path = os.fspath(options_file) if options_file is not None else ""
    body_path = os.fspath(body_file) if body_file is not None else ""
    one_stdin(("--body-file", body_path), ("--options-file", options_path))
    check_task_flag(task)
    stamp = captured_at or now_utc()
    if options_path:
        require_readable(options_path, "--options-file")
    if body is None:
        require_readable(body_path, "--body-file")
    try:
        if options_path:
            options = read_input(options_path, OPTIONS_READ_LIMIT)
        if body is None:
            body = read_input(body_path, BODY_READ_LIMIT)
    except OSError:
        raise RefusedError("--body-file is not a readable file") from None
    extra = git_anchor.frontmatter(git_anchor.probe(os.fspath(root)))
    rendered = render_snapshot(
        task, stage, command, captured_by, recommended_next, stamp, options, body,
        extra=extra, redact=redact,
    )  # fmt: skip
    new_kb = new_knowledge_base(os.fspath(root))
    path = publish_snapshot(root, task, rendered, lock_timeout)
    harness = journal.journal_directory(task)
    if os.path.isdir(harness):  # only a test harness makes one
        journal.append(harness, task, stage, stamp, body_path or body, rendered)
    return SnapshotSaved(path, redactions_of(rendered), new_kb)


def redaction_enabled() -> bool:
    """DATARIM_SNAPSHOT_REDACT=0 keeps secrets in snapshot bodies as they are."""
    return os.environ.get("DATARIM_SNAPSHOT_REDACT") != "0"


def publish_snapshot(root: PathLike, task: str, content: bytes, timeout: int) -> str:
    """Resolves the root, then, holding the task's lock, replaces its snapshot with content.

    Returns the snapshot's path; raises RefusedError (1) or LockBusyError (3).
    """
    absolute = writer_root(os.fspath(root))
    directory = os.path.join(absolute, "datarim", "snapshots")
    artifact_dir(directory)
    with held_lock(os.path.join(directory, f".lock.{task}"), timeout) as recovered:
        publish(directory, f"{task}.snapshot.md", task, content, recovered)
        # A stage turn's record of leaving no snapshot (stop_hook.py) is over now.
        unlink_quietly(os.path.join(directory, f".missed.{task}"))
    return os.path.join(directory, f"{task}.snapshot.md")


WRITER = "snapshot-writer"


def write_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/snapshot-writer-wrapper.sh."""
    arguments = writer_arguments(
        "DATARIM_DISABLE_SNAPSHOT",
        "--root --task --stage --command --captured-by --recommended-next --body-file",
        "--options-file= --captured-at=",
        argv,
    )
    if arguments is None:
        return 0
    saved = save_stage_snapshot(
        **arguments,
        redact=redaction_enabled(),
        lock_timeout=seconds_env("DR_SNAPSHOT_LOCK_TIMEOUT", 60),
    )
    tell_written(console, WRITER, saved.new_knowledge_base, saved.redactions)
    return 0
