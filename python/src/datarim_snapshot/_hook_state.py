"""Bash twin: scripts/lib/hook-state.sh.

What the agent-runtime hooks keep between calls.

The state directory (spec §9, docs/agent-runtimes.md), its log of failures and
the per-session turn records that the UserPromptSubmit hook leaves for the Stop
hook:

    <state>/hooks.log           one line per failure: <YYYY-MM-DDTHH:MM:SSZ> <hook> <message>
    <state>/turns/<session-id>  the turn record of a session (write_turn)
    <state>/resume/<session-id> a /clear's pending resume (write_resume)

<state> is ${DATARIM_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/datarim}.
Nothing here imports json: the Stop hook's common path (no turn record at all)
costs only the interpreter's start.
"""

from __future__ import annotations

import os
import sys

from ._records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, BinaryIO, Callable

    from ._console import Console

# The most bytes a UserPromptSubmit or Stop payload may have: the final answer
# rides in a Stop payload whole, and a stage's answer is far shorter.
PAYLOAD_LIMIT = 262144
_SESSION_BYTES = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_DIGITS_AS_NINE = str.maketrans("0123456789", "9999999999")
# C0 and DEL: shown as "?" in the log, read as blanks in a prompt.
_CONTROLS = {c: "?" for c in [*range(0x20), 0x7F]}
_BLANKS = bytes.maketrans(bytes([*range(0x20), 0x7F]), b" " * 0x21)


def state_dir() -> str | None:
    """The state directory; None when there is none (no absolute DATARIM_STATE_DIR,
    XDG_STATE_HOME or HOME to build it from). A relative XDG_STATE_HOME is
    ignored, as the XDG base directory rules say."""
    directory = os.environ.get("DATARIM_STATE_DIR", "")
    if not directory:
        xdg = os.environ.get("XDG_STATE_HOME", "")
        if not xdg.startswith("/"):
            home = os.environ.get("HOME", "")
            if not home.startswith("/"):
                return None  # an empty or relative HOME names no home: never /.local
            xdg = home + "/.local/state"
        directory = xdg + "/datarim"
    return directory if directory.startswith("/") else None


def turns_pending(state: str) -> bool:
    """Some turn record exists. Costs one directory read, no import."""
    return _holds_any(os.path.join(state, "turns"))


def _holds_any(directory: str) -> bool:
    """directory holds an entry (one directory read)."""
    try:
        with os.scandir(directory) as entries:
            # A dot name is a hook's own temp file (bash's glob skips those too).
            return any(not entry.name.startswith(".") for entry in entries)
    except OSError:
        return False


def drain(stream: BinaryIO) -> None:
    """Reads the stream to its end, so that the runtime's write of the payload never
    fails (a hook that exits unread gets it EPIPE)."""
    try:
        while stream.read(65536):
            pass
    except (OSError, ValueError):
        pass


def session_ok(session: str) -> bool:
    """A session ID fit to name a file: 1 to 128 ASCII letters, digits, "_" and "-"."""
    return 0 < len(session) <= 128 and all(c in _SESSION_BYTES for c in session)


def make_dir(path: str) -> bool:
    """Creates path (mode 700, parents as needed) unless it is a directory; False
    when it is not one after."""
    if os.path.isdir(path):
        return True
    try:  # noqa: SIM105 (contextlib costs an import)
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except OSError:
        pass
    try:  # noqa: SIM105 (contextlib costs an import)
        os.mkdir(path, 0o700)
    except OSError:
        pass
    return os.path.isdir(path)


def now() -> str:
    """DATARIM_NOW when it has the form YYYY-MM-DDTHH:MM:SSZ (the hooks' clock for
    tests, as snapshot-list's), else the current time, UTC."""
    value = os.environ.get("DATARIM_NOW", "")
    if value.isascii() and value.translate(_DIGITS_AS_NINE) == "9999-99-99T99:99:99Z":
        return value
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def log(state: str, hook: str, message: str) -> None:
    """Appends one line to <state>/hooks.log (created mode 600; the directory 700),
    control characters shown as "?". A log that cannot be written is given up
    silently: a hook never fails."""
    line = f"{now()} {hook} {message.translate(_CONTROLS)}\n"
    path = os.path.join(state, "hooks.log")
    if not make_dir(state) or os.path.islink(path):
        return
    try:
        if os.path.lexists(path) and not os.path.isfile(path):
            return
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError:
        return
    try:  # noqa: SIM105 (contextlib costs an import)
        os.write(fd, line.encode("utf-8", "surrogateescape"))
    except OSError:
        pass
    finally:
        os.close(fd)


def turn_file(state: str, session: str) -> str | None:
    """The path of a session's turn record; None when the ID is not fit to name a file."""
    return os.path.join(state, "turns", session) if session_ok(session) else None


class TurnRecord(Record):
    """A turn record, replaced whole by each /dr-<stage> prompt, removed by any
    other prompt and by the Stop hook that reads it:
    ``stage=<stage>\\ntask=<ID or empty>\\nturn=<turn_id or empty>\\n``."""

    __slots__ = ("stage", "task", "turn")
    FIELDS = ("stage", "task", "turn")

    def __init__(self, stage: str, task: str, turn: str) -> None:
        self.stage, self.task, self.turn = stage, task, turn

    def encode(self) -> bytes:
        values = (self.stage, self.task, self.turn)
        text = "".join(f"{k}={v}\n" for k, v in zip(self.FIELDS, values))
        return text.encode("utf-8", "surrogateescape")


def write_turn(path: str, record: TurnRecord) -> bool:
    """Writes the record (put_file); False when it cannot."""
    directory = os.path.dirname(path)
    if not (make_dir(os.path.dirname(directory)) and make_dir(directory)):
        return False
    return put_file(path, record.encode())


def put_file(path: str, data: bytes) -> bool:
    """path holds data whole, or stays as it was (False): a fresh dot file in
    its folder (mode 600) renamed over it. A symlink at path is replaced,
    never written through, and a directory there is left alone."""
    from ._lock import random15

    directory, name = os.path.split(path)
    tmp = os.path.join(directory, f".{name}.{os.getpid()}.{random15()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError:
        _remove(tmp)
        return False
    return True


def read_turn(path: str) -> TurnRecord | None:
    """The record at path; None when it is no regular file or not a complete
    record (the fields are checked by the caller)."""
    if os.path.islink(path) or not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read(65536)
    except OSError:
        return None
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    if len(lines) != 4 or lines[3] != "":
        return None
    values = []
    for key, line in zip(TurnRecord.FIELDS, lines):
        name, sep, value = line.partition("=")
        if name != key or not sep:
            return None
        values.append(value)
    return TurnRecord(*values)


def clear_turn(path: str) -> None:
    """Removes a session's record, if there is one."""
    if os.path.lexists(path):
        _remove(path)


# The pending resume of a /clear: the SessionStart hook's output, kept for the
# session's next prompt hook (Gemini CLI drops SessionStart's context after an
# interactive /clear; its BeforeAgent hands it over instead).


def resume_pending(state: str) -> bool:
    """Some pending resume exists. Costs one directory read."""
    return _holds_any(os.path.join(state, "resume"))


def write_resume(state: str, session: str, output: bytes) -> bool:
    """Keeps output as the session's pending resume (put_file); False when it cannot."""
    directory = os.path.join(state, "resume")
    if not (make_dir(state) and make_dir(directory)):
        return False
    return put_file(os.path.join(directory, session), output)


def drop_resume(state: str, session: str) -> None:
    """Removes the session's pending resume, unread (a SessionStart that hands the
    text over itself, a Stop hook whose snapshot is newer than the one it replays)."""
    path = os.path.join(state, "resume", session)
    if os.path.lexists(path):
        _remove(path)


def take_resume(state: str, session: str) -> bytes | None:
    """The session's pending resume, removed as it is read; None when there is
    none (a symlink or anything but a regular file is removed unread)."""
    path = os.path.join(state, "resume", session)
    if not os.path.lexists(path):
        return None
    data = b""
    if os.path.isfile(path) and not os.path.islink(path):
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            data = b""
    _remove(path)
    return data.partition(b"\0")[0] or None


def clear_all_turns(state: str, message: str) -> str:
    """Removes every turn record (a prompt whose session cannot be told must not
    leave any of them for a later Stop); says so at the end of message when there
    were some."""
    if not turns_pending(state):
        return message
    directory = os.path.join(state, "turns")
    try:
        names = os.listdir(directory)
    except OSError:
        names = []
    for name in names:
        if not name.startswith("."):
            _remove(os.path.join(directory, name))
    return message + "; cannot tell its session, so every pending turn record was dropped"


def _remove(path: str) -> None:
    try:  # noqa: SIM105 (contextlib costs an import)
        os.unlink(path)
    except OSError:
        pass


class Payload(Record):
    """A UserPromptSubmit or Stop payload, read as scripts/lib/hook-fields.awk reads it."""

    __slots__ = ("members",)

    def __init__(self, members: dict[str, Any]) -> None:
        self.members = members

    def field(self, name: str) -> tuple[str, str]:
        """("s", text) for a string without U+0000, lone surrogates or control
        characters; ("t"|"f"|"n", "") for true, false, null; ("-", "") absent;
        ("x", "") anything else."""
        from ._hook_payload import usable_string

        if name not in self.members:
            return "-", ""
        value = self.members[name]
        if value is True or value is False or value is None:
            return {True: "t", False: "f", None: "n"}[value], ""
        text = usable_string(value)
        return ("s", text) if text is not None else ("x", "")

    def first_present(self, *names: str) -> str:
        """The first of names that the payload has, else the last (Gemini's
        AfterAgent has prompt_response where a Stop has last_assistant_message;
        Qwen's typed command is submitted_prompt, its prompt the command's text)."""
        for name in names[:-1]:
            if name in self.members:
                return name
        return names[-1]

    def text(self, name: str) -> tuple[str, bytes]:
        """("s", bytes) for a string (controls allowed) that a file can hold as
        json.loads reads it (no U+0000, no lone surrogate); else as field()."""
        if name not in self.members:
            return "-", b""
        value = self.members[name]
        if value is None:
            return "n", b""
        data = text_bytes(value)
        return ("s", data) if data is not None else ("x", b"")

    def turn_command(self, name: str) -> tuple[str, str, str]:
        """The prompt at name read as a turn command: ("c", stage, task) for a stage
        command, ("p", "", "") for any other prompt, else ("x"|"n"|"-", "", "")."""
        kind, data = self.text(name)
        if kind != "s":
            return kind, "", ""
        found = turn_command(data)
        return ("c", *found) if found else ("p", "", "")


def text_bytes(value: object) -> bytes | None:
    """value's UTF-8 bytes when it is a string without U+0000 or lone surrogates."""
    if not isinstance(value, str) or "\x00" in value:
        return None
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:
        return None


def turn_command(prompt: bytes) -> tuple[str, str] | None:
    """(stage, task) when the prompt's first word, after leading blanks, is
    /dr-<stage>, Codex's /prompts:dr-<stage> or Codex's skill mention
    $dr-<stage> (the one form `codex exec` takes) with <stage> one of the
    writer's stages; task is the next word when it passes the task-ID rule, else "".
    Only the first 512 bytes count, each control byte (C0, DEL) a blank."""
    from ._rules import is_stage, task_id_ok

    head = prompt[:512].translate(_BLANKS).lstrip(b" ")
    word, _, rest = head.partition(b" ")
    if word.startswith((b"/dr-", b"$dr-")):
        stage = word[4:]
    elif word.startswith(b"/prompts:dr-"):
        stage = word[12:]
    else:
        return None
    if not stage or not is_stage(stage):
        return None
    arg = rest.lstrip(b" ").partition(b" ")[0].decode("utf-8", "replace")
    return stage.decode(), arg if task_id_ok(arg) else ""


def read_payload(stream: BinaryIO) -> tuple[int, Payload | None]:
    """Reads the payload from stream, to its end: (0, payload), or (1, None) when
    it is not one strict JSON object, (3, None) when it has more than PAYLOAD_LIMIT
    bytes; the same statuses as hook-fields.awk."""
    try:
        data = stream.read(PAYLOAD_LIMIT + 1)
    except (OSError, ValueError):
        return 1, None
    if len(data) > PAYLOAD_LIMIT:
        drain(stream)
        return 3, None
    from ._hook_payload import load_payload

    members = load_payload(data)
    return (0, Payload(members)) if members is not None else (1, None)


def payload_failure(status: int) -> str:
    """The log message for a read_payload status other than 0."""
    if status == 3:
        return f"payload over {PAYLOAD_LIMIT} bytes"
    if status == 4:
        return "cannot write a temporary file in the state directory"
    return "payload is not one strict JSON object"


def run_turn_hook(
    argv: Sequence[str],
    console: Console,
    hook: str,
    body: Callable[[Sequence[str], BinaryIO], bytes | None],
) -> int:
    """A turn hook's command line (prompt-hook, stop-hook): -h/--help prints its
    usage and --version the version, stdin left unread; else body(argv, stdin)
    runs, and whatever goes wrong there, a prompt or a turn is never blocked:
    exit 0, nothing on stderr, on stdout only what body returns (the prompt
    hook's hand-over of a pending resume)."""
    if argv:  # a hook is called bare: only then is texts imported
        from ._texts import first_word_answer

        answer = first_word_answer(hook, argv)
        if answer is not None:
            console.write(answer)
            return 0
    try:
        output = body(argv, sys.stdin.buffer)
    except Exception:  # the hook never blocks
        output = None
    if output:
        # Stdout full, closed or its reader gone: nothing more, nothing raised.
        console.write(output)
        console.flush()
        console.failed = None
    return 0
