"""Command-line front ends of the session handoff (shell twins in dev-tools/):
session-write, session-check."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence

from .console import Console
from .errors import DatarimError, HelpRequested, UsageError
from .flags import parse_flags
from .session import write_session_handoff
from .session_validate import check_session_file, validate_session_handoff
from .texts import usage

WRITER = "session-handoff-writer"
CHECKER = "check-session-handoff"


def session_write_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/session-handoff-writer-wrapper.sh."""
    if os.environ.get("DATARIM_DISABLE_SESSION_HANDOFF") == "1":
        return 0
    try:
        flags = parse_flags(
            "--root= --session= --captured-by= --recommended-next= --next-action= "
            "--active-tasks-file= --body-file= --captured-at=",
            "--root --session --captured-by --recommended-next --next-action "
            "--active-tasks-file --body-file",
            argv,
        )
        saved = write_session_handoff(
            root=flags["root"],
            session=flags["session"],
            captured_by=flags["captured_by"],
            recommended_next=flags["recommended_next"],
            next_action=flags["next_action"],
            active_tasks_file=flags["active_tasks_file"],
            body_file=flags["body_file"],
            captured_at=flags.get("captured_at") or None,
        )
    except HelpRequested:
        console.write(usage(WRITER))
        return 2
    except DatarimError as exc:
        console.error(WRITER, exc.message)
        return exc.code
    if saved is not None:
        if saved.redactions:
            console.error(WRITER, f"redacted {saved.redactions} secret(s) before saving")
        console.write(saved.resume_block)
    return 0


def session_check_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, output and exit codes as dev-tools/check-session-handoff.sh."""
    try:
        flags = parse_flags("--session= --root= --validate-frontmatter --self-test", "", argv)
        if flags.get("self_test"):
            return self_test(console)
        if "session" not in flags:
            raise UsageError("missing required flag(s): --session", code=3)
        validate_session_handoff(flags["session"], flags.get("root"))
    except HelpRequested:
        console.write(usage(CHECKER))
        return 0
    except UsageError as exc:
        console.error(CHECKER, exc.message)
        return 3
    except DatarimError as exc:
        console.error(CHECKER, exc.message)
        return exc.code
    return 0


def self_test(console: Console) -> int:
    """Writes two blocks, checks, breaks and removes them in a scratch root."""
    scratch = tempfile.mkdtemp()
    session = "SESSION-20260101-000000"
    path = os.path.join(scratch, "datarim", "sessions", f"{session}.session.md")
    ok = True
    try:
        with open(os.path.join(scratch, "tasks.txt"), "wb") as handle:
            handle.write(b"SELF-0001 | in_progress\n")
        with open(os.path.join(scratch, "body.md"), "wb") as handle:
            body = "## Layer 1 \u2014 Git State\n\n## Layer 5 \u2014 Failed Approaches\nnone\n"
            handle.write(body.encode())
        for n in (1, 2):
            write_session_handoff(
                scratch,
                session,
                "agent",
                "/dr-do",
                f"self-test {n}",
                os.path.join(scratch, "tasks.txt"),
                os.path.join(scratch, "body.md"),
                captured_at="2026-01-01T00:00:00Z",
            )
        check_session_file(path, session)
        with open(path, "ab") as handle:
            handle.write(b"x")
        ok = _fails_with(path, session, 2)
        os.unlink(path)
        ok = ok and _fails_with(path, session, 1)
    except (DatarimError, OSError):
        ok = False
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if not ok:
        console.error(CHECKER, "self-test failed")
        return 2
    console.write(f"{CHECKER}: self-test passed\n".encode())
    return 0


def _fails_with(path: str, session: str, code: int) -> bool:
    try:
        check_session_file(path, session)
    except DatarimError as exc:
        return exc.code == code
    return False
