"""Bash twin: scripts/lib/stop-hook.sh (+ transcript-tail.awk).

The Stop hook of Claude Code and Codex.

When a turn that began with a stage command (recorded by prompt_hook.py) ends in
an answer with a CTA block, writes that task's snapshot through emit (snapshot_emit.py),
the whole answer as the body: no agent cooperation, no options file. The answer
is the payload's last_assistant_message, or, without one, under
DATARIM_HOOK_RUNTIME=copilot the turn's chat span in GitHub Copilot CLI's
OpenTelemetry file (read_otel_answer), else (older CLIs) the last assistant
entry in the last 262144 bytes of transcript_path. The task is the
command's first argument when it is a task ID, else the one the CTA header
names; stage and command (/dr-<stage>) come from the command; the knowledge
base is found from the payload's cwd (spec §8). A turn without a
record, DATARIM_DISABLE_SNAPSHOT=1 and DATARIM_DISABLE_STOP_HOOK=1 write
nothing; stop_hook_active does not stop a pending record's answer from being
written. Never blocks a turn: prints nothing,
exits 0; a failure is one line in the hooks log, and so is a stage turn that
left no snapshot (no CTA block), recorded for the next resume as well. With no
turn record pending in any session it reads the payload, unparsed, and returns.
"""

from __future__ import annotations

import os

from . import _hook_state as hook_state
from ._inputs import read_tail

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import BinaryIO

    from ._console import Console

HOOK = "stop-hook"
TRANSCRIPT_TAIL = 262144
# GitHub Copilot CLI's OpenTelemetry file (opt-in, docs/agent-runtimes.md) and
# how much of its end is read: a span line carries the whole prompt (50 KB and
# more), and a turn with tool calls writes one chat span per model call.
OTEL_FILE = "copilot-otel.jsonl"
OTEL_TAIL = 4194304


def stop_hook(argv: Sequence[str], stdin: BinaryIO) -> None:
    """The hook; its only output is the snapshot it writes and its log."""
    state = hook_state.state_dir()
    if argv:
        hook_state.drain(stdin)
        if state is not None:
            hook_state.log(state, HOOK, "takes no arguments; nothing written")
        return
    disabled = "1" in (
        os.environ.get("DATARIM_DISABLE_SNAPSHOT"),
        os.environ.get("DATARIM_DISABLE_STOP_HOOK"),
    )
    if disabled or state is None or not hook_state.turns_pending(state):
        hook_state.drain(stdin)
        return
    from ._lock import random15

    answer = os.path.join(state, "turns", f".answer.{os.getpid()}.{random15()}")
    try:
        _capture(state, stdin, answer)
    finally:
        if os.path.lexists(answer):
            os.unlink(answer)


def _capture(state: str, stdin: BinaryIO, answer: str) -> None:
    status, payload = hook_state.read_payload(stdin)
    if payload is not None:
        # The answer is saved as soon as it is read, as hook-fields.awk does.
        kind, text = payload.text("last_assistant_message")
        if kind == "s" and not _write_answer(answer, text):
            payload, status = None, 4
    if payload is None:
        hook_state.log(state, HOOK, hook_state.payload_failure(status))
        return
    # stop_hook_active (another Stop hook made the model go on) changes nothing:
    # a record still pending means this final answer is the stage's.
    kind, session = payload.field("session_id")
    if kind != "s":
        hook_state.log(state, HOOK, "payload has no usable session_id")
        return
    path = hook_state.turn_file(state, session)
    if path is None:
        hook_state.log(state, HOOK, "session_id is not a safe file name")
        return
    if not os.path.lexists(path):
        return
    record = hook_state.read_turn(path)
    hook_state.clear_turn(path)  # read once: whatever follows, the record is spent
    if record is None:
        hook_state.log(
            state, HOOK, f"the turn record of session {session} is malformed; nothing written"
        )
        return
    if record.turn and payload.field("turn_id") != ("s", record.turn):
        hook_state.log(
            state,
            HOOK,
            f"the turn record of session {session} is from another turn; nothing written",
        )
        return
    kind, text = payload.text("last_assistant_message")
    if kind in ("-", "n"):
        # GitHub Copilot CLI (install-hooks marks its command): the answer is
        # in its OpenTelemetry file.
        if os.environ.get("DATARIM_HOOK_RUNTIME") == "copilot":
            found, why = read_otel_answer(state, payload.field("traceparent"))
        else:
            found, why = read_transcript_answer(payload.field("transcript_path"))
        if found is not None and not _write_answer(answer, found):
            found, why = None, hook_state.payload_failure(4)
        if found is None:
            hook_state.log(
                state,
                HOOK,
                f"/dr-{record.stage}: no last_assistant_message, and {why}; nothing written",
            )
            return
        text = found
    elif kind != "s":
        hook_state.log(
            state,
            HOOK,
            f"/dr-{record.stage}: last_assistant_message is not a usable string; nothing written",
        )
        return
    _emit(state, record, answer, text, payload.field("cwd"), session)


def _write_answer(path: str, text: bytes) -> bool:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    except OSError:
        return False
    try:
        os.write(fd, text)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def read_transcript_answer(field: tuple[str, str]) -> tuple[bytes | None, str]:
    """The answer in the tail of the transcript at field (transcript_path as
    Payload.field gives it), or None and why not; the rules of
    scripts/lib/transcript-tail.awk."""
    kind, path = field
    if kind != "s" or not path.startswith("/"):
        return None, "no usable absolute transcript_path"
    if os.path.islink(path):
        return None, "transcript_path is a symlink"
    if not (os.path.isfile(path) and os.access(path, os.R_OK)):
        return None, "transcript_path is not a readable file"
    try:
        tail, _ = read_tail(path, TRANSCRIPT_TAIL)
    except OSError:
        return None, "transcript_path is not a readable file"
    from ._hook_payload import load_payload

    lines = tail.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # awk reads no record after the last newline
    for line in reversed(lines):
        if b'"assistant"' not in line and b'"gemini"' not in line:
            continue
        entry = load_payload(line)
        if entry is None:
            return None, "transcript_path has an entry that is not one strict JSON object"
        parts = _assistant_parts(entry)
        if parts is None:
            continue
        encoded = [hook_state.text_bytes(part) for part in parts]
        if not parts or None in encoded:
            return None, "the last assistant entry of transcript_path holds no usable text"
        return b"\n".join(part for part in encoded if part is not None), ""
    return None, f"no assistant entry in the last {TRANSCRIPT_TAIL} bytes of transcript_path"


def read_otel_answer(state: str, context: tuple[str, str]) -> tuple[bytes | None, str]:
    """The answer of a GitHub Copilot CLI turn (its traceparent, as Payload.field
    gives it) in the tail of <state>/copilot-otel.jsonl, or None and why not; the
    rules of scripts/lib/copilot-otel.awk."""
    kind, value = context
    if kind == "-":  # Copilot sends one only while its OpenTelemetry exporter is on
        return None, "no traceparent (Copilot's OpenTelemetry file is off: docs/agent-runtimes.md)"
    if not (kind == "s" and _is_traceparent(value)):
        return None, "traceparent is not a usable W3C trace context"
    trace, parent = value[3:35], value[36:52]
    path = os.path.join(state, OTEL_FILE)
    if os.path.islink(path):
        return None, f"{OTEL_FILE} in the state directory is a symlink"
    if not os.path.lexists(path):
        return None, (
            f"no {OTEL_FILE} in the state directory"
            " (Copilot's OpenTelemetry file: docs/agent-runtimes.md)"
        )
    unreadable = f"{OTEL_FILE} in the state directory is not a readable file"
    if not (os.path.isfile(path) and os.access(path, os.R_OK)):
        return None, unreadable
    try:
        tail, _ = read_tail(path, OTEL_TAIL)
    except OSError:
        return None, unreadable
    from ._hook_payload import load_payload

    lines = tail.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # awk reads no record after the last newline
    quoted = f'"{trace}"'.encode()
    for line in reversed(lines):
        if quoted not in line:
            continue
        span = load_payload(line)
        if span is None:
            return None, f"{OTEL_FILE} has a line of this turn that is not one strict JSON object"
        attributes = span.get("attributes")
        if not (
            span.get("type") == "span"
            and span.get("traceId") == trace
            and span.get("parentSpanId") == parent
            and isinstance(attributes, dict)
            and attributes.get("gen_ai.operation.name") == "chat"
        ):
            continue
        text = _otel_text(attributes.get("gen_ai.output.messages"))
        if text is None:
            return None, f"the chat span of this turn in {OTEL_FILE} holds no usable text"
        return text, ""
    return None, f"no chat span of this turn in the last {OTEL_TAIL} bytes of {OTEL_FILE}"


def _is_traceparent(value: str) -> bool:
    """00-<32 hex>-<16 hex>-<2 hex>, lower case (W3C trace context)."""
    hex_digits = "0123456789abcdef"
    shape = "00-" + "h" * 32 + "-" + "h" * 16 + "-hh"
    return len(value) == len(shape) and all(
        char in hex_digits if want == "h" else char == want
        for char, want in zip(value, shape)  # noqa: B905 (the lengths are equal; 3.9 has no strict)
    )


def _otel_text(messages: object) -> bytes | None:
    """The text parts of the assistant messages in a span's gen_ai.output.messages
    (a string holding JSON, read as the value of {"m": <it>}), joined by a newline."""
    if hook_state.text_bytes(messages) is None:
        return None
    from ._hook_payload import load_payload

    assert isinstance(messages, str)
    wrapped = load_payload(b'{"m":' + messages.encode("utf-8") + b"}")
    listed = wrapped.get("m") if wrapped is not None else None
    if not isinstance(listed, list):
        return None
    parts: list[bytes | None] = []
    for message in listed:
        if not (isinstance(message, dict) and message.get("role") == "assistant"):
            continue
        listed_parts = message.get("parts")
        for part in listed_parts if isinstance(listed_parts, list) else []:
            if (
                isinstance(part, dict)
                and part.get("type") == "text"
                and isinstance(part.get("content"), str)
            ):
                parts.append(hook_state.text_bytes(part["content"]))
    if not parts or None in parts:
        return None
    return b"\n".join(part for part in parts if part is not None)


def _assistant_parts(entry: dict[str, object]) -> list[object] | None:
    """The text parts of an assistant entry (Claude Code's, Codex's or Gemini
    CLI's); None when entry is no assistant entry. (Gemini's AfterAgent payload
    has prompt_response, but 0.61.0 builds it from the streamed chunks joined by
    blanks, the first one already holding the whole text: not the answer.)"""
    message = entry.get("message")
    if entry.get("type") == "assistant" and isinstance(message, dict):
        content = message.get("content")
        if isinstance(content, str):
            return [content]
        return _parts(content, "text")
    payload = entry.get("payload")
    if (
        entry.get("type") == "response_item"
        and isinstance(payload, dict)
        and payload.get("type") == "message"
        and payload.get("role") == "assistant"
    ):
        return _parts(payload.get("content"), "output_text")
    if entry.get("type") == "gemini":
        content = entry.get("content")
        return [content] if isinstance(content, str) else _parts(content, "")
    return None


def _parts(content: object, want: str) -> list[object]:
    """The texts of the parts of type want (want "": of every part with a text)."""
    if not isinstance(content, list):
        return []
    return [
        part["text"]
        for part in content
        if isinstance(part, dict)
        and (want == "" or part.get("type") == want)
        and isinstance(part.get("text"), str)
    ]


def _emit(
    state: str,
    record: hook_state.TurnRecord,
    answer: str,
    text: bytes,
    cwd: tuple[str, str],
    session: str,
) -> None:
    """The snapshot of the turn whose record was read, through emit (answer: the
    file that holds text, the answer's bytes)."""
    from ._errors import DatarimError
    from ._rules import task_id_ok

    what = f"/dr-{record.stage}" + (f" {record.task}" if record.task else "")
    if record.task and not task_id_ok(record.task):
        hook_state.log(
            state, HOOK, f"{what}: the turn record's task is not a task ID; nothing written"
        )
        return
    kind, directory = cwd
    if kind != "s" or not directory.startswith("/") or not os.path.isdir(directory):
        hook_state.log(
            state, HOOK, f"{what}: the payload's cwd is not an absolute directory; nothing written"
        )
        return
    from ._flags import seconds_env
    from ._roots import foreign_datarim, is_knowledge_base
    from ._snapshot_validator import find_root

    root = find_root(directory)
    if foreign_datarim(root):
        hook_state.log(
            state,
            HOOK,
            f"{what}: the datarim/ at cwd belongs to another user; nothing written",
        )
        return
    if not is_knowledge_base(os.path.join(root, "datarim")):
        hook_state.log(
            state,
            HOOK,
            f"{what}: no datarim knowledge base at or above cwd; nothing written",
        )
        return
    # A hook has a deadline (install-hooks gives Stop 30 s): wait less for a lock.
    try:
        timeout = seconds_env("DR_SNAPSHOT_LOCK_TIMEOUT", 10)
    except DatarimError:
        hook_state.log(
            state,
            HOOK,
            f"{what}: DR_SNAPSHOT_LOCK_TIMEOUT must be a whole number of seconds; nothing written",
        )
        return
    stamp = hook_state.now()
    # No CTA header opening anywhere in the answer (a question, say): no CTA
    # block, so emit need not be loaded nor run; the turn is logged and
    # recorded as one that left no snapshot.
    if not _may_hold_cta(text):
        _missed(state, root, record, what, stamp, "no snapshot: its answer has no CTA block")
        return
    from ._snapshot_emit import emit_stage_snapshot
    from ._snapshot_writer import redaction_enabled

    try:
        emit_stage_snapshot(
            root=root,
            task=record.task or None,
            stage=record.stage,
            command=f"/dr-{record.stage}",
            response_file=answer,
            captured_by="agent",
            captured_at=stamp,
            lock_timeout=timeout,
            redact=redaction_enabled(),
        )
        _put(root, record, "last-task", record.task)
        # A resume kept for the session's next prompt (Copilot's PreCompact in
        # the middle of this turn) replays the snapshot this turn replaced: gone.
        hook_state.drop_resume(state, session)
    except DatarimError as exc:
        why = f"snapshot not written (exit {exc.code}): {exc.message}"
        if "has no CTA block" in exc.message:
            why = "no snapshot: its answer has no CTA block"
        _missed(state, root, record, what, stamp, why)


def _missed(
    state: str, root: str, record: hook_state.TurnRecord, what: str, stamp: str, why: str
) -> None:
    """A stage turn that left no snapshot (no CTA block, a refused write) is
    logged as "<what>: <why>", and, when it named its task, recorded in
    datarim/snapshots/.missed.<ID> as "<command> <stamp>", so the next resume
    says that the snapshot it hands over is older than this turn (spec §9);
    the next snapshot write removes it."""
    hook_state.log(state, HOOK, f"{what}: {why}")
    _put(root, record, f"missed.{record.task}", f"/dr-{record.stage} {stamp}")
    _put(root, record, "last-task", record.task)


def _put(root: str, record: hook_state.TurnRecord, name: str, line: str) -> None:
    """When the turn named its task, writes line to datarim/snapshots/.<name>
    (mode 600), renamed into place, never through a symlink, only in a real
    snapshots folder. .last-task holds the task of the workspace's latest
    stage turn: with several active tasks, the SessionStart hook resumes that
    one (spec §9)."""
    folder = os.path.join(root, "datarim", "snapshots")
    if not record.task or os.path.islink(folder) or not os.path.isdir(folder):
        return
    hook_state.put_file(os.path.join(folder, f".{name}"), f"{line}\n".encode())


def _may_hold_cta(text: bytes) -> bool:
    """Whether the answer holds any CTA header opening (cta-headers.txt)."""
    from ._texts import cta_header_openings

    return any(opening in text for opening in cta_header_openings())


def stop_hook_command(argv: Sequence[str], console: Console) -> int:
    """Same effects as dev-tools/stop-hook.sh; always exit 0, nothing on stdout or stderr."""
    return hook_state.run_turn_hook(argv, console, HOOK, stop_hook)
