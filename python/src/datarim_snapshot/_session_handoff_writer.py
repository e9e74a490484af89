"""Bash twin: scripts/lib/session-handoff-writer.sh (+ session-render.awk).

Session-handoff writer (spec §5): append-only, at most 32768 bytes, secrets
redacted, every claim tagged.
"""

from __future__ import annotations

import os

from . import _git_anchor as git_anchor
from ._errors import MalformedError, RefusedError
from ._flags import check_descriptors, seconds_env, writer_arguments
from ._inputs import one_stdin, read_input, read_prefix, require_readable
from ._lock import held_lock
from ._publish import artifact_dir, publish
from ._records import Record
from ._redaction import redact, redact_lines
from ._roots import is_knowledge_base, tell_written, writer_root
from ._rules import (
    BOM,
    bad_session,
    checked_lines,
    is_captured_by,
    is_timestamp,
    session_id_ok,
    slash_command_fault,
    task_id_ok,
    utf8_scan,
    yaml_quote,
)
from ._session_format import (
    HEADINGS,
    NEXT_ACTION_MAX,
    SESSION_CAP,
    SESSION_MARKER,
    HeadingOrder,
    check_session_bytes,
    layer,
    next_action_ok,
    opens_block,
    repo_line,
    untagged_claim,
)
from ._session_resume_block import render_resume_block
from ._snapshot_writer import capture_lines, now_utc

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._console import Console
    from ._snapshot_writer import PathLike

BODY_MAX = 1048576
TASKS_MAX = 8192
OLD_READ_LIMIT = SESSION_CAP + 1
PROGRAM = "session-handoff-writer"


class RenderedBlock(Record):
    __slots__ = ("block", "redactions", "next_action", "tasks")

    def __init__(self, block: bytes, redactions: int, next_action: bytes, tasks: list[str]) -> None:
        self.block = block
        self.redactions = redactions
        self.next_action = next_action
        self.tasks = tasks


class SessionSaved(Record):
    """A saved handoff: its path, how many secrets were redacted, the resume
    block to show the operator and, when the write started a knowledge base,
    its datarim/ directory."""

    __slots__ = ("path", "redactions", "resume_block", "new_knowledge_base")

    def __init__(
        self,
        path: str,
        redactions: int,
        resume_block: bytes,
        new_knowledge_base: str | None = None,
    ) -> None:
        self.path = path
        self.redactions = redactions
        self.resume_block = resume_block
        self.new_knowledge_base = new_knowledge_base


def _raw(value: str) -> bytes:
    return os.fsencode(value)


def _check_values(captured_by: str, recommended_next: str, next_action: bytes, stamp: str) -> None:
    if not is_captured_by(_raw(captured_by)):
        raise RefusedError("invalid --captured-by (want agent or operator)")
    fault = slash_command_fault(_raw(recommended_next))
    if fault:
        raise RefusedError(f"invalid --recommended-next: {fault}")
    if not next_action:
        raise RefusedError("invalid --next-action: is empty")
    if len(next_action) > NEXT_ACTION_MAX:
        raise RefusedError(f"invalid --next-action: longer than {NEXT_ACTION_MAX} bytes")
    fault = utf8_scan(next_action, ctl=True, tab_ok=True)
    if fault == "utf8":
        raise RefusedError("invalid --next-action: is not valid UTF-8")
    if fault:
        raise RefusedError("invalid --next-action: holds a control character")
    if not is_timestamp(_raw(stamp)):
        raise RefusedError("invalid --captured-at (want YYYY-MM-DDTHH:MM:SSZ, a real UTC time)")


def _read_tasks(data: bytes) -> list[str]:
    """The active-tasks file: one `TASK-ID | status` per non-empty line (the
    status is checked, not stored)."""
    if len(data) > TASKS_MAX:
        raise RefusedError(f"--active-tasks-file is larger than {TASKS_MAX} bytes")
    tasks: list[str] = []
    for number, segment in checked_lines(data, "--active-tasks-file"):
        if not segment:
            continue
        task = segment.split(b"|", 1)[0].strip(b" \t").decode("utf-8")
        if not task_id_ok(task):
            raise RefusedError(f"--active-tasks-file line {number}: want TASK-ID | status")
        if task in tasks:
            raise RefusedError(f"--active-tasks-file line {number} repeats {task}")
        tasks.append(task)
    return tasks


def git_state(root: str, directories: Sequence[str]) -> list[tuple[str, git_anchor.Anchor]]:
    """The live state of each directory (--git-state) for Layer 1: its path as
    Layer 1 names it (relative to the physical workspace root when inside it,
    "." for the root itself, else physical and absolute) and where its code
    stands, as snapshot anchoring finds it (git_anchor.probe: dirty when anything
    outside its datarim/ differs from HEAD). RefusedError for a directory that
    is none, or no git work tree with a commit."""
    found: list[tuple[str, git_anchor.Anchor]] = []
    seen: set[str] = set()
    for directory in directories:
        if not os.path.isdir(directory):
            raise RefusedError(f"--git-state {directory} is not a directory")
        physical = os.path.realpath(directory)
        if "\n" in physical:
            raise RefusedError(
                f"--git-state {directory} cannot be written as a Layer 1 line:"
                " its path holds a line break"
            )
        if physical in seen:
            raise RefusedError(f"--git-state names {directory} twice")
        seen.add(physical)
        facts = git_anchor.probe(physical, forced=True, full=True)
        if facts is None:
            raise RefusedError(f"--git-state {directory} is not a git work tree with a commit")
        if physical == root:
            shown_path = "."
        elif physical.startswith(root + "/"):
            shown_path = physical[len(root) + 1 :]
        else:
            shown_path = physical
        found.append((shown_path, facts))
    return found


def _git_lines(state: Sequence[tuple[str, git_anchor.Anchor]]) -> list[bytes]:
    """The Layer 1 lines of --git-state:
    "repo: <path>  HEAD: <sha>  branch: <name>  status: clean|dirty", the path as
    the resume reads it back, "(detached)" for a detached HEAD."""
    lines = []
    for path, facts in state:
        raw = os.fsencode(path)
        why = ""
        if utf8_scan(raw, ctl=True):
            why = "a control character, a tab or bytes that are no UTF-8"
        elif b"  " in raw:
            why = "two spaces in a row"
        elif b"`" in raw:
            why = "a backtick"
        elif raw.startswith(b" ") or raw.endswith(b" "):
            why = "a space at either end"
        elif b" head:" in raw.lower():
            why = '" HEAD:"'
        if why:
            raise RefusedError(
                f"--git-state {path} cannot be written as a Layer 1 line: its path holds {why}"
            )
        line = (
            b"repo: " + raw + b"  HEAD: " + facts.head + b"  branch: "
            + (facts.branch or b"(detached)") + b"  status: "
            + (b"dirty" if facts.dirty else b"clean")
        )  # fmt: skip
        claim = untagged_claim(line)
        if claim:
            raise RefusedError(
                f'--git-state {path}: its Layer 1 line would hold "{claim.decode()}", which the'
                " claim rule reads as an untagged claim; write that line in the body with a"
                " verified: tag instead"
            )
        lines.append(line)
    return lines


def _insert_git_lines(lines: list[bytes], git: list[bytes]) -> list[bytes]:
    """With --git-state, its lines go first in Layer 1: after the body's Layer 1
    heading, or under a new one at the top of a body that has none. A body whose
    Layer 1 already holds a repo: line is refused: the writer writes them."""
    if not git:
        return lines
    current, heading = 1, -1
    for index, line in enumerate(lines):
        number = layer(line)
        if number:
            current = number
            if number == 1:
                heading = index
        elif current == 1 and repo_line(line):
            raise RefusedError(
                f"--body-file line {index + 1} gives a repo: line in Layer 1; with --git-state"
                " the writer writes those (leave them out of the body)"
            )
    if heading < 0:
        return [HEADINGS[0], *git, *lines]
    return [*lines[: heading + 1], *git, *lines[heading + 1 :]]


def _read_body(data: bytes, git_given: bool = False) -> list[bytes]:
    """The body's lines: valid UTF-8, no NUL, the layer headings in order, no
    line that would open a block, every claim tagged. With --git-state the
    writer supplies Layer 1's heading when it is missing."""
    if len(data) > BODY_MAX:
        raise RefusedError(f"--body-file is larger than {BODY_MAX} bytes")
    nul = data.find(b"\0")
    text = data if nul < 0 else data[:nul]
    if text.startswith(BOM):
        text = text[3:]
    if utf8_scan(text):
        raise RefusedError("--body-file is not valid UTF-8")
    if nul >= 0:
        raise RefusedError("--body-file holds a NUL byte")
    lines = text.split(b"\n") if text else []
    if lines and lines[-1] == b"":
        lines.pop()
    order = HeadingOrder()
    for number, line in enumerate(lines, start=1):
        fault = order.fault(line, number)
        if fault:
            raise RefusedError(f"--body-file line {number}: {fault}")
        if number < len(lines) and opens_block(line, lines[number]):
            raise RefusedError(
                f'--body-file line {number}: a "---" line followed by "artifact:" '
                "would read as a new block"
            )
        claim = untagged_claim(line)
        if claim:
            raise RefusedError(
                f'--body-file line {number} claims "{claim.decode()}" '
                "without a verified: or assumed: tag"
            )
    if git_given:
        order.seen.add(1)
    missing = order.missing()
    if missing:
        raise RefusedError(f'--body-file has no "{missing}" line{order.missing_note}')
    return lines


def _fit(lines: list[bytes], total: int, room: int, old_name: str | None) -> dict[int, int]:
    """Cuts layers 3, 4, then 2 (each keeping its heading and its leading whole
    lines, then the marker) until total fits in room. Returns {layer: index of
    its last kept line}; refuses when even that is not enough."""
    headings = {layer(line): index for index, line in enumerate(lines) if layer(line)}
    marker = len(SESSION_MARKER) + 1
    keep_to: dict[int, int] = {}
    for number in (3, 4, 2):
        if total <= room:
            break
        if number not in headings:
            continue
        first = headings[number] + 1
        end = min(index for n, index in headings.items() if n > number)
        size = sum(len(line) + 1 for line in lines[first:end])
        if size <= marker:
            continue
        base = total - size + marker
        kept = 0
        keep_to[number] = first - 1
        for index in range(first, end):
            if base + kept + len(lines[index]) + 1 > room:
                break
            kept += len(lines[index]) + 1
            keep_to[number] = index
        total = base + kept
    if total > room:
        if old_name is not None:
            raise RefusedError(
                f"handoff not saved: {old_name} has {room} bytes left under the {SESSION_CAP}-byte "
                f"cap and this block needs at least {total}; start a new session"
            )
        raise RefusedError(
            f"handoff not saved: this block needs at least {total} bytes (frontmatter, layers 1 "
            f"and 5, headings), over the {SESSION_CAP}-byte cap; start a new session with "
            "shorter layers 1 and 5"
        )
    return keep_to


def render_session_block(
    session: str,
    captured_by: str,
    recommended_next: str,
    next_action: str,
    captured_at: str,
    tasks_data: bytes,
    body_data: bytes,
    *,
    old: bytes | None = None,
    git: Sequence[tuple[str, git_anchor.Anchor]] = (),
) -> RenderedBlock:
    """One block, validated, redacted and cut to the room the cap leaves after
    old (the file it is appended to); git (git_state's) gives Layer 1 its
    repositories' lines. Raises RefusedError naming the first bad input."""
    raw_next = _raw(next_action)
    _check_values(captured_by, recommended_next, raw_next, captured_at)
    tasks = _read_tasks(tasks_data)
    git_lines = _git_lines(git)
    lines = _insert_git_lines(_read_body(body_data, bool(git_lines)), git_lines)
    old_name = f"datarim/sessions/{session}.session.md"
    if old is not None:
        try:
            check_session_bytes(old, session)
        except MalformedError as exc:
            raise RefusedError(
                f"{old_name} is not a valid session handoff ({exc.message}); "
                "nothing written: start a new session"
            ) from None
    lines, count = redact_lines(lines)
    # A tag inside a quoted secret (api_key='abc verified: x') goes with it.
    for number, line in enumerate(lines, start=1):
        claim = untagged_claim(line)
        if claim:
            raise RefusedError(
                "--body-file: redacting a secret also removed the verified: or assumed: tag of "
                f'"{claim.decode()}" (line {number} of the redacted body); '
                "keep tags apart from secrets"
            )
    raw_next, more = redact(raw_next)
    count += more
    quoted_next = yaml_quote(raw_next)
    # Escaping and redaction can lengthen it past what the validator reads.
    if not next_action_ok(quoted_next):
        raise RefusedError(
            f'invalid --next-action: longer than {NEXT_ACTION_MAX} bytes once " and \\ are '
            "escaped and secrets redacted"
        )
    task_lines = b"".join(b"  - " + task.encode() + b"\n" for task in tasks)
    head = (
        b"---\nartifact: session-handoff\nschema_version: 1\nsession_id: "
        + session.encode()
        + b"\n"
        + capture_lines(captured_at, captured_by, recommended_next)
        + b"next_action: "
        + quoted_next
        + b"\nactive_tasks:"
        + (b"\n" + task_lines if task_lines else b" []\n")
        + b"---\n\n"
    )
    total = len(head) + sum(len(line) + 1 for line in lines)
    room = SESSION_CAP - (len(old) + 1 if old is not None else 0)
    keep_to = _fit(lines, total, room, old_name if old is not None else None)
    out = [head]
    current = 0
    mark_after = {index: number for number, index in keep_to.items()}
    for index, line in enumerate(lines):
        current = layer(line) or current
        if current in keep_to and index > keep_to[current]:
            # dropped up to the next heading, which sets current anew
            continue
        out.append(line + b"\n")
        if index in mark_after:
            out.append(SESSION_MARKER + b"\n")
    return RenderedBlock(b"".join(out), count, raw_next, tasks)


def read_old(directory: str, path: str) -> bytes | None:
    """The artefact a new block is appended to, or None when there is none to
    append to (no file; a symlink or other non-file, which the publish step
    replaces or refuses, is never read)."""
    if os.path.islink(directory) or os.path.islink(path) or not os.path.isfile(path):
        return None
    if not os.access(path, os.R_OK):
        raise RefusedError(f"datarim/sessions/{os.path.basename(path)} is not readable")
    try:
        return read_prefix(path, OLD_READ_LIMIT)
    except OSError:
        raise RefusedError(f"datarim/sessions/{os.path.basename(path)} is not readable") from None


def write_session_handoff(
    root: PathLike,
    session: str,
    captured_by: str,
    recommended_next: str,
    next_action: str,
    active_tasks_file: PathLike,
    body_file: PathLike,
    captured_at: str | None = None,
    git_state_of: Sequence[str] = (),
    *,
    lock_timeout: int = 60,
) -> SessionSaved:
    """Appends one block to <root>/datarim/sessions/<session>.session.md; Layer 1
    gets a line for each directory of git_state_of (--git-state) from its live
    repository.

    Returns what was saved; the environment changes nothing here
    (DATARIM_DISABLE_SESSION_HANDOFF is the command's switch).
    active_tasks_file or body_file "-" is the standard input. Raises
    RefusedError (exit 1), UsageError (2) or LockBusyError (3, the lock held
    for lock_timeout seconds); on any of them nothing already on disk has
    changed."""
    timeout = lock_timeout
    check_descriptors()
    tasks_path, body_path = os.fspath(active_tasks_file), os.fspath(body_file)
    one_stdin(("--active-tasks-file", tasks_path), ("--body-file", body_path))
    if not session_id_ok(session):
        raise RefusedError(bad_session(session))
    stamp = captured_at or now_utc()
    require_readable(tasks_path, "--active-tasks-file")
    require_readable(body_path, "--body-file")
    absolute = writer_root(os.fspath(root))
    state = git_state(absolute, git_state_of) if git_state_of else []
    directory = os.path.join(absolute, "datarim", "sessions")
    name = f"{session}.session.md"
    path = os.path.join(directory, name)
    try:
        tasks_data = read_input(tasks_path, TASKS_MAX + 1)
        body_data = read_input(body_path, BODY_MAX + 1)
    except OSError:
        raise RefusedError("--body-file is not a readable file") from None

    def render(old: bytes | None) -> RenderedBlock:
        return render_session_block(
            session, captured_by, recommended_next, next_action, stamp, tasks_data, body_data,
            old=old, git=state,
        )  # fmt: skip

    # Render against the file as it is now, so that a refusal touches nothing;
    # under the lock, render again only if another writer appended meanwhile.
    old = read_old(directory, path)
    rendered = render(old)
    datarim = os.path.join(absolute, "datarim")
    new_kb = None if is_knowledge_base(datarim) else datarim
    artifact_dir(directory)
    with held_lock(os.path.join(directory, f".lock.{session}"), timeout) as recovered:
        now = read_old(directory, path)
        if now != old:
            old, rendered = now, render(now)
        content = rendered.block if old is None else old + b"\n" + rendered.block
        publish(directory, name, session, content, recovered)
    block = render_resume_block(
        absolute, session, recommended_next, rendered.next_action, rendered.tasks
    )
    return SessionSaved(path, rendered.redactions, block, new_kb)


def session_write_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/session-handoff-writer-wrapper.sh."""
    arguments = writer_arguments(
        "DATARIM_DISABLE_SESSION_HANDOFF",
        "--root --session --captured-by --recommended-next --next-action "
        "--active-tasks-file --body-file",
        "--captured-at= --git-state=+",
        argv,
    )
    if arguments is None:
        return 0
    git_state = arguments.pop("git_state", None)
    saved = write_session_handoff(
        **arguments,
        git_state_of=git_state.split("\n") if git_state else (),
        lock_timeout=seconds_env("DR_SESSION_LOCK_TIMEOUT", 60),
    )
    tell_written(console, PROGRAM, saved.new_knowledge_base, saved.redactions)
    console.write(saved.resume_block)
    return 0
