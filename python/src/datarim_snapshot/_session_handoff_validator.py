"""Bash twin: scripts/lib/session-handoff-validator.sh (+ session-validate.awk).

Session-handoff validator (spec §5): every block is checked, not only the first.
"""

from __future__ import annotations

import os

from ._errors import MalformedError, MissingError, UsageError
from ._roots import reader_root
from ._rules import bad_session, session_id_ok
from ._session_format import SESSION_CAP, Block, check_session_bytes
from ._snapshot_validator import read_artifact

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Union

    from ._console import Console

    PathLike = Union[str, "os.PathLike[str]"]


def check_session_file(path: PathLike, session_id: str) -> Block:
    """Raises MissingError (1) or MalformedError (2); else returns the newest block."""
    data = read_artifact(os.fspath(path), SESSION_CAP + 1)
    return check_session_bytes(data, session_id)


def session_relpath(session_id: str) -> str:
    return f"datarim/sessions/{session_id}.session.md"


def session_path(session_id: str, root: str | None = None) -> str:
    """The artefact's path for a session ID: UsageError (code 3) for a bad ID or a
    --root that is not a directory, MalformedError when datarim/sessions is a symlink."""
    if not session_id_ok(session_id):
        raise UsageError(bad_session(session_id), code=3)
    root = reader_root(root)
    if os.path.islink(os.path.join(root, "datarim", "sessions")):
        raise MalformedError("datarim/sessions is a symlink")
    return os.path.join(root, session_relpath(session_id))


def validate_session_handoff(session_id: str, root: PathLike | None = None) -> str:
    """Validates every block of the session's artefact; returns its path. Raises
    UsageError (code 3), MissingError (1) or MalformedError (2) with the message
    the shell prints."""
    path = session_path(session_id, None if root is None else os.fspath(root))
    try:
        check_session_file(path, session_id)
    except (MissingError, MalformedError) as exc:
        raise type(exc)(f"{session_relpath(session_id)} {exc.message}") from None
    return path


CHECKER = "check-session-handoff"


def session_check_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, output and exit codes as dev-tools/check-session-handoff.sh."""
    from ._flags import run_checker

    return run_checker(argv, console, "--session", validate_session_handoff, self_test)


SELF_TEST_SESSION = "SESSION-20260101-000000"


def self_test(console: Console) -> int:
    """Writes two blocks, checks, breaks and removes them in a scratch root."""
    from . import _flags as flags

    return flags.self_test(
        console,
        CHECKER,
        _write_self_test,
        lambda path: check_session_file(path, SELF_TEST_SESSION),
    )


def _write_self_test(scratch: str) -> str:
    from ._flags import seconds_env
    from ._session_handoff_writer import write_session_handoff

    with open(os.path.join(scratch, "tasks.txt"), "wb") as handle:
        handle.write(b"SELF-0001 | in_progress\n")
    with open(os.path.join(scratch, "body.md"), "wb") as handle:
        body = "## Layer 1 \u2014 Git State\n\n## Layer 5 \u2014 Failed Approaches\nnone\n"
        handle.write(body.encode())
    # As the shell's self-test writes: with the command's switches.
    disabled = os.environ.get("DATARIM_DISABLE_SESSION_HANDOFF") == "1"
    for n in () if disabled else (1, 2):
        write_session_handoff(
            scratch,
            SELF_TEST_SESSION,
            "agent",
            "/dr-do",
            f"self-test {n}",
            os.path.join(scratch, "tasks.txt"),
            os.path.join(scratch, "body.md"),
            captured_at="2026-01-01T00:00:00Z",
            lock_timeout=seconds_env("DR_SESSION_LOCK_TIMEOUT", 60),
        )
    return os.path.join(scratch, "datarim", "sessions", f"{SELF_TEST_SESSION}.session.md")
