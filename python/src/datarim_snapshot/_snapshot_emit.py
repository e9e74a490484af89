"""Bash twin: scripts/lib/snapshot-emit.sh.

A stage's final answer to its snapshot in one call.

Reads the CTA block that ends the answer (cta_parse.py) and writes the snapshot
through the writer's own renderer and publish step (snapshot_writer.py), with the
whole answer as the body.
"""

from __future__ import annotations

import os

from . import _git_anchor as git_anchor
from . import _jsonout as jsonout
from ._cta_parse import read_cta_chunks
from ._errors import RefusedError
from ._flags import check_descriptors, seconds_env, writer_arguments
from ._inputs import InputFile, read_up_to, require_readable
from ._publish import check_publish
from ._records import FrozenRecord
from ._roots import new_knowledge_base, tell_written, writer_root
from ._rules import check_task_flag
from ._snapshot_writer import (
    BODY_READ_LIMIT,
    now_utc,
    publish_snapshot,
    redaction_enabled,
    redactions_of,
    render_snapshot,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import BinaryIO

    from ._console import Console
    from ._snapshot_writer import PathLike

PROGRAM = "emit-stage-snapshot"


class Emission(FrozenRecord):
    """What was written, or with dry_run what would be."""

    __slots__ = (
        "task_id",
        "recommended_next",
        "options",
        "preview",
        "path",
        "redactions",
        "new_knowledge_base",
    )
    task_id: str
    recommended_next: str
    options: list[str]  # the primary first, secrets redacted as in the snapshot
    preview: bytes  # the recommended_next and options lines, exactly as in the frontmatter
    path: str | None  # the snapshot written; None for a dry run
    redactions: int  # secrets saved as [REDACTED] in the options and body
    new_knowledge_base: str | None  # the datarim/ directory the write started, if it did

    # Spelled out, as every record's __init__ is, so that mypy checks each caller's
    # keywords; alike in shape on purpose (natural twins, issue 20).
    def __init__(
        self,
        task_id: str,
        recommended_next: str,
        options: list[str],
        preview: bytes,
        path: str | None,
        redactions: int = 0,
        new_knowledge_base: str | None = None,
    ) -> None:
        self._init(
            task_id=task_id,
            recommended_next=recommended_next,
            options=options,
            preview=preview,
            path=path,
            redactions=redactions,
            new_knowledge_base=new_knowledge_base,
        )

    def json(self) -> bytes:
        return jsonout.dumps(
            {
                "task_id": self.task_id,
                "recommended_next": self.recommended_next,
                "options": self.options,
            }
        )


def emit_stage_snapshot(
    root: PathLike,
    task: str | None,
    stage: str,
    command: str,
    response_file: PathLike,
    captured_by: str = "agent",
    captured_at: str | None = None,
    dry_run: bool = False,
    lock_timeout: int = 60,
    *,
    redact: bool = True,
) -> Emission:
    """Writes <root>/datarim/snapshots/<task>.snapshot.md from the answer's CTA block
    (task None: the task the block's header names; the Stop hook's case).

    Returns what was written; with dry_run, checks everything the write would
    and touches nothing (the Emission's path is None). Secrets are saved as
    [REDACTED] unless redact is False; the environment changes nothing here.
    Raises InvalidTaskIdError or RefusedError (1), UsageError (2) or
    LockBusyError (3, the lock held for lock_timeout seconds).
    """
    timeout = lock_timeout
    check_descriptors()
    if task is not None:
        check_task_flag(task)
    stamp = captured_at or now_utc()
    answer = os.fspath(response_file)
    require_readable(answer, "--response-file")
    try:
        # One pass to the end ("-": the standard input): the body's first
        # bytes, then the CTA block from the whole answer.
        with InputFile(answer) as stream:
            body = read_up_to(stream, BODY_READ_LIMIT)
            block = read_cta_chunks(_chunks(body, stream), task)
    except OSError:
        raise RefusedError("--response-file is not a readable file") from None
    task = block.task_id
    options = "".join(item + "\n" for item in block.options).encode()
    content = render_snapshot(
        task,
        stage,
        command,
        captured_by,
        block.recommended_next,
        stamp,
        options,
        body,
        extra=git_anchor.frontmatter(git_anchor.probe(os.fspath(root))),
        body_flag="--response-file",
        redact=redact,
    )
    start = content.index(b"\nrecommended_next: ") + 1
    preview = content[start : content.index(b"\nsize_bytes: ") + 1]
    if dry_run:
        directory = os.path.join(writer_root(os.fspath(root)), "datarim", "snapshots")
        lock = os.path.join(directory, f".lock.{task}")
        check_publish(directory, f"{task}.snapshot.md", lock)
        path = new_kb = None
    else:
        new_kb = new_knowledge_base(os.fspath(root))
        path = publish_snapshot(root, task, content, timeout)
    saved = block.options
    if redact:  # the options as the snapshot holds them
        from ._redaction import redact as redact_secrets

        saved = [redact_secrets(option.encode())[0].decode() for option in saved]
    redactions = redactions_of(content)
    return Emission(task, block.recommended_next, saved, preview, path, redactions, new_kb)


def _chunks(head: bytes, stream: BinaryIO) -> Iterator[bytes]:
    """head, then the rest of stream in chunks."""
    yield head
    while True:
        chunk = stream.read(65536)
        if not chunk:
            return
        yield chunk


def emit_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/emit-stage-snapshot.sh."""
    # Opens as write_command does, naming its own flags (natural twins, issue 20).
    arguments = writer_arguments(
        "DATARIM_DISABLE_SNAPSHOT",
        "--root --task --stage --command --response-file",
        "--captured-by= --captured-at= --dry-run --json",
        argv,
    )
    if arguments is None:
        return 0
    as_json = arguments.pop("json", False)
    dry_run = arguments.pop("dry_run", False)
    emission = emit_stage_snapshot(
        **arguments,
        dry_run=as_json or dry_run,
        lock_timeout=seconds_env("DR_SNAPSHOT_LOCK_TIMEOUT", 60),
        redact=redaction_enabled(),
    )
    if emission.path is None:
        console.write(emission.json() if as_json else emission.preview)
        return 0
    tell_written(console, PROGRAM, emission.new_knowledge_base, emission.redactions)
    return 0
