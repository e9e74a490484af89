"""An artefact directory that cannot be searched or read, both implementations.

A snapshot whose path cannot be looked up counts as missing (exit 1, "is
missing"), as it does when a file stands where datarim/snapshots should be
(the corpus pins that). `list` on a snapshots directory it cannot read or
search says so in one line and exits 2, instead of an empty table or a
traceback. A writer writes into a directory it may write and search but not
list (mode 300), and `emit --dry-run` refuses, with the write's code and
message, whatever the write would refuse (an unsearchable root, a directory
it may not create or lock in). Permissions mean nothing to root, so as root the commands run as
nobody (uid 65534), with the system Python (root's own may be out of reach).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sample import sample_workspace

REPO = Path(__file__).resolve().parents[2]
AS_ROOT = os.geteuid() == 0
NOBODY = 65534


def _others_can_enter(path: Path) -> bool:
    """Every directory from / down to path is searchable by others (o+x)."""
    return all(os.stat(p).st_mode & 0o001 for p in (path, *path.parents))


# As root the commands run as nobody, with a Python nobody can reach (the
# venv, or the interpreter it was made from, may lie where nobody cannot enter).
_CANDIDATES = (getattr(sys, "_base_executable", ""), "/usr/bin/python3", "/usr/local/bin/python3")
BASE_PYTHON = next(
    (p for p in _CANDIDATES if p and os.path.exists(p) and _others_can_enter(Path(p).parent)), ""
)
if AS_ROOT and not (_others_can_enter(REPO) and BASE_PYTHON):
    pytest.skip(
        "the repository or any Python is out of nobody's reach here", allow_module_level=True
    )
SESSION = "SESSION-20260521-134500"


def _drop_privileges() -> None:
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def _command(impl: str, bash_tool: str, subcommand: str) -> list[str]:
    if impl == "bash":
        return [str(REPO / "dev-tools" / bash_tool)]
    python = BASE_PYTHON if AS_ROOT else sys.executable
    return [python, "-m", "datarim_snapshot", subcommand]


def _run(
    impl: str,
    bash_tool: str,
    subcommand: str,
    *args: str,
    stdin: bytes | None = None,
    env_extra: dict[str, str] | None = None,
) -> tuple[int, bytes, bytes]:
    env = dict(
        os.environ,
        PYTHONPATH=str(REPO / "python" / "src"),
        PYTHONDONTWRITEBYTECODE="1",
        DATARIM_NOW="2099-01-01T00:00:00Z",  # list's ages must not depend on when each runs
        **(env_extra or {}),
    )
    done = subprocess.run(
        [*_command(impl, bash_tool, subcommand), *args],
        input=stdin,
        capture_output=True,
        env=env,
        cwd="/",
        timeout=60,
        check=False,
        preexec_fn=_drop_privileges if AS_ROOT else None,
    )
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def workspace() -> Iterator[Path]:
    """A workspace (readable by nobody) with one valid snapshot and one session artefact."""
    top = Path(tempfile.mkdtemp(prefix="datarim-perm-"))
    top.chmod(0o755)
    root = sample_workspace(top / "ws")
    (root / "datarim" / "sessions").mkdir(mode=0o755)
    (root / "datarim" / "sessions" / f"{SESSION}.session.md").write_text("x\n")
    for path in (root, root / "datarim", root / "datarim" / "snapshots"):
        path.chmod(0o755)
    for path in (root / "datarim" / "snapshots").iterdir():
        path.chmod(0o644)
    if AS_ROOT:
        # Discovery adopts only a datarim/ of the user it runs as (spec §8).
        os.chown(root / "datarim", NOBODY, NOBODY)
    try:
        yield root
    finally:
        for path in (root / "datarim" / "snapshots", root / "datarim" / "sessions"):
            path.chmod(0o755)
        shutil.rmtree(top)


def _both(bash_tool: str, subcommand: str, *args: str, **options: Any) -> tuple[int, bytes, bytes]:
    bash = _run("bash", bash_tool, subcommand, *args, **options)
    python = _run("python", bash_tool, subcommand, *args, **options)
    assert bash == python, (bash, python)
    return bash


@pytest.mark.parametrize("mode", [0o000, 0o600])  # neither searchable
def test_an_unsearchable_snapshots_directory_means_missing(workspace: Path, mode: int) -> None:
    (workspace / "datarim" / "snapshots").chmod(mode)
    root = ("--root", str(workspace))
    rel = b"datarim/snapshots/TUNE-0254.snapshot.md"
    replay = ("render-replay-prompt.sh", "replay", "--task", "TUNE-0254", *root)
    assert _both(*replay) == (1, b"", b"")
    check = ("check-stage-snapshot-on-exit.sh", "check", "--task", "TUNE-0254", *root)
    assert _both(*check) == (1, b"", b"check-stage-snapshot: " + rel + b" is missing\n")
    show = ("snapshot-show.sh", "show", "TUNE-0254", *root)
    assert _both(*show) == (1, b"", b"snapshot-show: " + rel + b" is missing\n")


def test_an_unsearchable_sessions_directory_means_missing(workspace: Path) -> None:
    (workspace / "datarim" / "sessions").chmod(0o000)
    check = ("check-session-handoff.sh", "session-check", "--session", SESSION)
    expected = f"check-session-handoff: datarim/sessions/{SESSION}.session.md is missing\n"
    assert _both(*check, "--root", str(workspace)) == (1, b"", expected.encode())


def _active_context(workspace: Path, mode: int) -> None:
    """datarim/activeContext.md listing TUNE-0254 as the one active task, with <mode>."""
    path = workspace / "datarim" / "activeContext.md"
    path.write_text("# Active context\n\n## Active Tasks\n\n- **TUNE-0254** \u2014 plan\n")
    path.chmod(mode)


def test_an_unreadable_active_context_is_said_so(workspace: Path) -> None:
    """It lists no task, but not because it names none: the resumers say it
    cannot be read (exit 3, as with no active task), doctor lists it to fix."""
    _active_context(workspace, 0o000)
    root = ("--root", str(workspace))
    for tool, command, prog in (
        ("render-replay-prompt.sh", "replay", b"render-replay-prompt"),
        ("resume-task.sh", "resume", b"resume-task"),
    ):
        expected = b": no --task given and datarim/activeContext.md cannot be read\n"
        assert _both(tool, command, *root) == (3, b"", prog + expected)
    code, out, err = _both("doctor.sh", "doctor", *root)
    assert (code, err) == (1, b"")
    assert (
        b"active tasks: none; the SessionStart hook stays silent:"
        b" datarim/activeContext.md cannot be read\n"
    ) in out
    assert b"\n  - datarim/activeContext.md cannot be read\n" in out


def test_the_session_start_hook_stays_silent_on_an_unreadable_active_context(
    workspace: Path,
) -> None:
    """Nothing on stdout or stderr, exit 0, nothing in the hooks log."""
    _active_context(workspace, 0o000)
    state = workspace.parent / "state"
    payload = b'{"hook_event_name":"SessionStart","source":"clear","cwd":"%s"}\n' % bytes(workspace)
    env = {"DATARIM_STATE_DIR": str(state)}
    hook = ("session-start-hook.sh", "session-start-hook")
    assert _both(*hook, stdin=payload, env_extra=env) == (0, b"", b"")
    assert not state.exists()


def test_a_readable_active_context_resumes_its_task(workspace: Path) -> None:
    """The same file readable: its task resumes (the tests above can fail)."""
    _active_context(workspace, 0o644)
    code, out, err = _both("render-replay-prompt.sh", "replay", "--root", str(workspace))
    assert (code, err) == (0, b"") and out.startswith(b"/dr-do TUNE-0254")
    code, out, err = _both("doctor.sh", "doctor", "--root", str(workspace))
    assert b"active tasks: TUNE-0254; the SessionStart hook resumes it" in out
    state = workspace.parent / "state"
    payload = b'{"hook_event_name":"SessionStart","source":"clear","cwd":"%s"}\n' % bytes(workspace)
    hook = ("session-start-hook.sh", "session-start-hook")
    code, out, err = _both(*hook, stdin=payload, env_extra={"DATARIM_STATE_DIR": str(state)})
    assert (code, err) == (0, b"") and b"TUNE-0254" in out


@pytest.mark.parametrize("mode", [0o000, 0o300, 0o600])  # unreadable, or unsearchable
def test_list_of_an_unreadable_snapshots_directory_says_so(workspace: Path, mode: int) -> None:
    (workspace / "datarim" / "snapshots").chmod(mode)
    listing = ("snapshot-list.sh", "list", "--root", str(workspace))
    assert _both(*listing) == (2, b"", b"snapshot-list: datarim/snapshots cannot be read\n")


def test_list_of_a_readable_snapshots_directory_lists_it(workspace: Path) -> None:
    """The same run, permissions intact: the snapshot is listed (the tests above can fail)."""
    code, out, err = _both("snapshot-list.sh", "list", "--root", str(workspace))
    assert (code, err) == (0, b"") and b"TUNE-0254" in out


# --- Writers in directories they may write but not list, dry runs that check what writes do ---

ANSWER = (REPO / "tests/conformance/suites/emit/writes-plain-block/in/answer.md").read_bytes()
SESSION_BODY = "## Layer 1 \u2014 Git State\nnone\n\n## Layer 5 \u2014 Failed Approaches\nnone\n"


def _inputs(workspace: Path) -> dict[str, str]:
    """Input files beside the workspace, readable by nobody."""
    top = workspace.parent
    files = {
        "body": ("body.md", b"Plan ready.\n"),
        "answer": ("answer.md", ANSWER),
        "tasks": ("tasks.txt", b"TUNE-0254 | in_progress\n"),
        "session-body": ("session.md", SESSION_BODY.encode()),
    }
    paths = {}
    for key, (name, data) in files.items():
        (top / name).write_bytes(data)
        (top / name).chmod(0o644)
        paths[key] = str(top / name)
    return paths


def _writer(kind: str, root: Path, inputs: dict[str, str]) -> tuple[str, ...]:
    common = ("--root", str(root), "--captured-at", "2026-05-21T13:45:00Z")
    if kind == "write":
        return ("snapshot-writer-wrapper.sh", "write", *common, "--task", "TUNE-0254",
                "--stage", "plan", "--command", "/dr-plan", "--captured-by", "agent",
                "--recommended-next", "/dr-do", "--body-file", inputs["body"])  # fmt: skip
    if kind == "emit":
        return ("emit-stage-snapshot.sh", "emit", *common, "--task", "TUNE-0032",
                "--stage", "plan", "--command", "/dr-plan",
                "--response-file", inputs["answer"])  # fmt: skip
    return ("session-handoff-writer-wrapper.sh", "session-write", *common, "--session", SESSION,
            "--captured-by", "agent", "--recommended-next", "/dr-do", "--next-action", "go on",
            "--active-tasks-file", inputs["tasks"],
            "--body-file", inputs["session-body"])  # fmt: skip


def _give_to_nobody(*paths: Path) -> None:
    if AS_ROOT:
        for path in paths:
            os.chown(path, NOBODY, NOBODY)


@pytest.mark.parametrize("kind", ["write", "emit", "session-write"])
def test_writers_write_into_a_directory_they_cannot_list(workspace: Path, kind: str) -> None:
    """Mode 300: writable and searchable, not listable. No temp-file sweep there
    (the shell glob sees nothing either), and the file is written."""
    directory = workspace / "datarim" / ("sessions" if kind == "session-write" else "snapshots")
    (directory / f"{SESSION}.session.md").unlink(missing_ok=True)  # a fresh session file
    _give_to_nobody(directory, *directory.iterdir())
    inputs = _inputs(workspace)
    names = {"write": "TUNE-0254.snapshot.md", "emit": "TUNE-0032.snapshot.md"}
    target = directory / names.get(kind, f"{SESSION}.session.md")
    outputs = []
    for impl in ("bash", "python"):
        target.unlink(missing_ok=True)
        directory.chmod(0o300)
        code, out, err = _run(impl, *_writer(kind, workspace, inputs))
        directory.chmod(0o700)
        outputs.append((code, out, err, target.read_bytes() if target.exists() else None))
    assert outputs[0] == outputs[1], outputs
    code, _, err, written = outputs[0]
    assert (code, written is not None) == (0, True), err


def _dry_run(workspace: Path) -> tuple[int, bytes, bytes]:
    tool = _writer("emit", workspace, _inputs(workspace))
    return _both(*tool, "--dry-run")


def _write(workspace: Path) -> tuple[int, bytes, bytes]:
    return _both(*_writer("emit", workspace, _inputs(workspace)))


def test_a_dry_run_refuses_a_root_it_cannot_search(workspace: Path) -> None:
    workspace.chmod(0o000)
    try:
        expected = (1, b"", b"emit-stage-snapshot: --root is not a directory\n")
        assert _dry_run(workspace) == expected
        assert _write(workspace) == expected
    finally:
        workspace.chmod(0o755)


@pytest.mark.parametrize(
    ("place", "mode", "message"),
    [
        ("datarim", 0o555, b"cannot create datarim/snapshots"),  # snapshots/ still to make
        ("datarim", 0o666, b"cannot create datarim/snapshots"),
        ("snapshots", 0o555, b"cannot create lock .lock.TUNE-0032"),
        ("snapshots", 0o666, b"cannot create lock .lock.TUNE-0032"),  # not searchable
    ],
)
def test_a_dry_run_refuses_what_the_write_refuses(
    workspace: Path, place: str, mode: int, message: bytes
) -> None:
    """The same code and message from the dry run as from the write, which then
    writes nothing: a write that cannot be is never announced as possible."""
    snapshots = workspace / "datarim" / "snapshots"
    if place == "datarim":
        shutil.rmtree(snapshots)
    _give_to_nobody(workspace / "datarim", *([snapshots] if snapshots.exists() else []))
    directory = workspace / "datarim" if place == "datarim" else snapshots
    directory.chmod(mode)
    try:
        expected = (1, b"", b"emit-stage-snapshot: " + message + b"\n")
        assert _dry_run(workspace) == expected
        assert _write(workspace) == expected
    finally:
        directory.chmod(0o755)
    assert not (snapshots / "TUNE-0032.snapshot.md").exists()
    snapshots.mkdir(exist_ok=True)  # for the fixture's clean-up


def test_a_dry_run_passes_where_the_write_passes(workspace: Path) -> None:
    """The same workspace, nothing taken away: both pass (the tests above can fail)."""
    _give_to_nobody(workspace / "datarim", workspace / "datarim" / "snapshots")
    code, out, err = _dry_run(workspace)
    assert (code, err) == (0, b"") and out.startswith(b"recommended_next: /dr-design\n")
    assert _write(workspace)[0] == 0
