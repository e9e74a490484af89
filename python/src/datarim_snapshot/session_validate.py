"""Session-handoff validator (CONTRACT §5), the twin of scripts/lib/session-handoff-validator.sh:
every block is checked, not only the first."""

from __future__ import annotations

import os

from .errors import MalformedError, MissingError, UsageError
from .roots import reader_root
from .rules import bad_session, session_id_ok
from .session_format import SESSION_CAP, Block, check_session_bytes
from .validate import read_artifact


def check_session_file(path: str, session_id: str) -> Block:
    """Raises MissingError (1) or MalformedError (2); else returns the newest block."""
    data = read_artifact(path, SESSION_CAP + 1)
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


def validate_session_handoff(session_id: str, root: str | None = None) -> str:
    """Validates every block of the session's artefact; returns its path. Raises
    UsageError (code 3), MissingError (1) or MalformedError (2) with the message
    the shell prints."""
    path = session_path(session_id, root)
    try:
        check_session_file(path, session_id)
    except (MissingError, MalformedError) as exc:
        raise type(exc)(f"{session_relpath(session_id)} {exc.message}") from None
    return path
