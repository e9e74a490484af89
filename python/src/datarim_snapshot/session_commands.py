"""Command-line front ends of the session handoff (shell twins in dev-tools/):
session-write, session-check, session-replay, session-reverify."""

from __future__ import annotations

import os

from . import probes
from .errors import DatarimError, HelpRequested, UsageError
from .flags import MissingFlagsError, parse_flags
from .texts import usage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from .console import Console

WRITER = "session-handoff-writer"
CHECKER = "check-session-handoff"
REPLAY = "session-replay"
REVERIFY = "reverify-session-claims"


def session_write_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/session-handoff-writer-wrapper.sh."""
    if os.environ.get("DATARIM_DISABLE_SESSION_HANDOFF") == "1":
        return 0
    # Each command imports what it runs here, and nothing more.
    from .session import write_session_handoff

    try:
        flags = parse_flags(
            "--root= --session= --captured-by= --recommended-next= --next-action= "
            "--active-tasks-file= --body-file= --captured-at= --git-state=+",
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
            git_state_of=flags["git_state"].split("\n") if "git_state" in flags else (),
        )
    except HelpRequested:
        console.write(usage(WRITER))
        return 2
    except MissingFlagsError as exc:
        console.error(WRITER, exc.message)
        console.err.write(usage(WRITER))
        return exc.code
    except DatarimError as exc:
        console.error(WRITER, exc.message)
        return exc.code
    if saved is not None:
        if saved.new_knowledge_base:
            from .fsops import new_knowledge_base_notice

            console.error(WRITER, new_knowledge_base_notice(saved.new_knowledge_base))
        if saved.redactions:
            console.error(WRITER, f"redacted {saved.redactions} secret(s) before saving")
        console.write(saved.resume_block)
    return 0


def session_check_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, output and exit codes as dev-tools/check-session-handoff.sh."""
    from .commands import run_checker
    from .session_validate import validate_session_handoff

    return run_checker(argv, console, CHECKER, "--session", validate_session_handoff, self_test)


def self_test(console: Console) -> int:
    """Writes two blocks, checks, breaks and removes them in a scratch root."""
    import shutil
    import tempfile

    from .session import write_session_handoff
    from .session_validate import check_session_file

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
    from .session_validate import check_session_file

    try:
        check_session_file(path, session)
    except DatarimError as exc:
        return exc.code == code
    return False


def session_replay_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/session-replay.sh."""
    from .session_replay import replay_session

    try:
        flags = parse_flags("--session= --latest --root=", "", argv)
        output = replay_session(flags.get("session"), bool(flags.get("latest")), flags.get("root"))
    except HelpRequested:
        console.write(usage(REPLAY))
        return 0
    except UsageError as exc:
        console.error(REPLAY, exc.message)
        return 3
    except DatarimError as exc:
        console.error(REPLAY, exc.message)
        return exc.code
    console.write(output)
    return 0


def _path_fault(value: str) -> bool:
    return not probes.path_ok(os.fsencode(value))


def session_reverify_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/reverify-session-claims.sh."""
    try:
        args, paths, paths_from = _split_paths(argv)
        flags = parse_flags(
            "--stale --sha-presence --file-missing --exit-code --sha= --saved-sha= --repo= "
            "--path= --root=",
            "",
            args,
        )
        code, banner = _reverify(flags, paths, paths_from)
    except HelpRequested:
        console.write(usage(REVERIFY))
        return 0
    except DatarimError as exc:
        console.error(REVERIFY, exc.message)
        return 2
    if banner:
        console.write(os.fsencode(banner) + b"\n")
    if code in (0, probes.NOT_A_WORK_TREE):
        return code
    # The probe ran and the claim failed: the reference's 0, unless asked.
    return 1 if flags.get("exit_code") else 0


def _split_paths(argv: Sequence[str]) -> tuple[list[str], list[str], str]:
    """The flags, the paths and how they came: after "--" (all the rest), or after
    "--files" (the reference's form: up to the next flag); "" without paths."""
    args: list[str] = []
    paths: list[str] = []
    paths_from = ""
    rest = list(argv)
    while rest:
        arg = rest.pop(0)
        if arg not in ("--", "--files"):
            args.append(arg)
            continue
        if paths_from == arg:
            raise UsageError(f"flag given twice: {arg}")
        if paths_from:
            raise UsageError("give the paths after --files or after --, not both")
        paths_from = arg
        if arg == "--":
            paths, rest = paths + rest, []
        else:
            while rest and not rest[0].startswith("--"):
                paths.append(rest.pop(0))
    return args, paths, paths_from


def _reverify(flags: dict[str, str], paths: list[str], paths_from: str) -> tuple[int, str]:
    modes = [m for m in ("stale", "sha_presence", "file_missing") if flags.get(m)]
    if len(modes) != 1:
        raise UsageError("want exactly one of --stale, --sha-presence, --file-missing")
    sha, saved, repo = flags.get("sha", ""), flags.get("saved_sha", ""), flags.get("repo", "")
    path, root = flags.get("path", ""), flags.get("root", "")
    if modes[0] == "file_missing":
        if sha + saved + repo + paths_from:
            raise UsageError("--file-missing takes --path and --root only")
        if _path_fault(path):
            raise UsageError("invalid --path (want 1 to 4096 bytes without control characters)")
        root = root or "."
        if not os.path.isdir(root):
            raise UsageError("--root is not a directory")
        return probes.probe_file(root, path)
    if modes[0] == "stale" and (path + root + paths_from or (sha and saved)):
        raise UsageError("--stale takes --sha or --saved-sha, and --repo only")
    if modes[0] == "sha_presence" and path + root + saved:
        raise UsageError("--sha-presence takes --sha, --repo and paths (after --files or --) only")
    sha += saved
    if not probes.sha_ok(os.fsencode(sha)):
        raise UsageError(f"invalid SHA (expected 7-40 hex chars): {sha}")
    repo = repo or "."
    if _path_fault(repo):
        raise UsageError("invalid --repo (want 1 to 4096 bytes without control characters)")
    if any(_path_fault(p) for p in paths):
        raise UsageError(
            f"invalid path after {paths_from} (want 1 to 4096 bytes without control characters)"
        )
    if saved:
        return probes.probe_upstream_stale(repo, repo, sha)
    if modes[0] == "stale":
        return probes.probe_stale(repo, repo, sha)
    found = probes.probe_sha_detail(repo, repo, sha, paths)
    if found.landed:
        # The reference's evidence line, after the claim's own.
        return found.code, (
            f"CLAIM-UNVERIFIED: SHA {sha} not found in {found.ref}.\n"
            f"CONTENT-LANDED: diff {sha}..{found.ref} for the saved files is empty \u2014 "
            "work landed under a foreign squash-commit header, not lost."
        )
    return found.code, found.banner
