"""Command-line front ends of the snapshot writer and validator (shell twins in dev-tools/)."""

from __future__ import annotations

import os

from .errors import DatarimError, HelpRequested, UsageError
from .flags import MissingFlagsError, parse_flags
from .texts import usage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .console import Console

WRITER = "snapshot-writer"
CHECKER = "check-stage-snapshot"


def write_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/snapshot-writer-wrapper.sh."""
    if os.environ.get("DATARIM_DISABLE_SNAPSHOT") == "1":
        return 0
    # Each command imports what it runs here: a write never loads the validator.
    from .snapshot import save_stage_snapshot

    try:
        flags = parse_flags(
            "--root= --task= --stage= --command= --captured-by= --recommended-next= "
            "--body-file= --options-file= --captured-at=",
            "--root --task --stage --command --captured-by --recommended-next --body-file",
            argv,
        )
        saved = save_stage_snapshot(
            root=flags["root"],
            task=flags["task"],
            stage=flags["stage"],
            command=flags["command"],
            captured_by=flags["captured_by"],
            recommended_next=flags["recommended_next"],
            body_file=flags["body_file"],
            options_file=flags.get("options_file") or None,
            captured_at=flags.get("captured_at") or None,
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
    if saved is not None and saved[2]:
        from .fsops import new_knowledge_base_notice

        console.error(WRITER, new_knowledge_base_notice(saved[2]))
    if saved is not None and saved[1]:
        console.error(WRITER, f"redacted {saved[1]} secret(s) before saving")
    return 0


def check_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, output and exit codes as dev-tools/check-stage-snapshot-on-exit.sh."""
    from .validate import validate_stage_snapshot

    return run_checker(argv, console, CHECKER, "--task", validate_stage_snapshot, self_test)


def run_checker(
    argv: Sequence[str],
    console: Console,
    program: str,
    id_flag: str,
    validate: Callable[[str, str | None], object],
    run_self_test: Callable[[Console], int],
) -> int:
    """A validator's command line: <id_flag> <ID> [--root <dir>], --validate-frontmatter
    (accepted, changes nothing), --self-test, -h/--help. 0 valid, 1 missing,
    2 malformed, 3 usage; nothing on stdout, one line on stderr."""
    name = id_flag[2:]
    try:
        flags = parse_flags(f"{id_flag}= --root= --validate-frontmatter --self-test", "", argv)
        if flags.get("self_test"):
            return run_self_test(console)
        if name not in flags:
            raise UsageError(f"missing required flag(s): {id_flag}", code=3)
        validate(flags[name], flags.get("root"))
    except HelpRequested:
        console.write(usage(program))
        return 0
    except UsageError as exc:
        console.error(program, exc.message)
        return 3
    except DatarimError as exc:
        console.error(program, exc.message)
        return exc.code
    return 0


def self_test(console: Console) -> int:
    """Writes, checks and breaks a snapshot in a scratch root."""
    import shutil
    import tempfile

    from .snapshot import write_stage_snapshot
    from .validate import check_snapshot_file

    scratch = tempfile.mkdtemp()
    path = os.path.join(scratch, "datarim", "snapshots", "SELF-0001.snapshot.md")
    ok = True
    try:
        with open(os.path.join(scratch, "body.md"), "wb") as handle:
            handle.write(b"self-test body\n")
        write_stage_snapshot(
            scratch,
            "SELF-0001",
            "plan",
            "/dr-plan",
            "agent",
            "/dr-do",
            os.path.join(scratch, "body.md"),
            captured_at="2026-01-01T00:00:00Z",
        )
        check_snapshot_file(path, "SELF-0001")
        with open(path, "ab") as handle:
            handle.write(b"x")
        ok = _fails_with(path, 2)
        os.unlink(path)
        ok = ok and _fails_with(path, 1)
    except (DatarimError, OSError):
        ok = False
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if not ok:
        console.error(CHECKER, "self-test failed")
        return 2
    console.write(f"{CHECKER}: self-test passed\n".encode())
    return 0


def _fails_with(path: str, code: int) -> bool:
    from .validate import check_snapshot_file

    try:
        check_snapshot_file(path, "SELF-0001")
    except DatarimError as exc:
        return exc.code == code
    return False
