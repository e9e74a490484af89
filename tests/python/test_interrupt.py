"""Ctrl-C while a writer waits for a lock, both implementations.

The writer waits for a live owner's lock (this test process's own record);
SIGINT goes to its whole process group, as a terminal's Ctrl-C does. It must
end by that signal (a shell shows 130), print at most one line and no
traceback, and leave the lock it waited for exactly as it was.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from datarim_snapshot._lock import owner_record
from lockprobe import wait_polling

REPO = Path(__file__).resolve().parents[2]
SESSION = "SESSION-20260521-134500"
SESSION_BODY = "## Layer 1 \u2014 Git State\nnone\n\n## Layer 5 \u2014 Failed Approaches\nnone\n"
ANSWER = REPO / "tests/conformance/suites/emit/writes-plain-block/in/answer.md"
TOOLS = {
    "write": ("snapshot-writer-wrapper.sh", "snapshots", "TUNE-0254"),
    "emit": ("emit-stage-snapshot.sh", "snapshots", "TUNE-0032"),
    "session-write": ("session-handoff-writer-wrapper.sh", "sessions", SESSION),
}


@pytest.fixture(autouse=True)
def _children_take_sigint() -> Iterator[None]:
    """The writers get SIGINT at its default, as a terminal's job has it, even
    when this test run inherited it ignored (a background job of a
    non-interactive shell): an ignored signal stays ignored across exec, a
    handled one is reset to its default there."""
    before = signal.getsignal(signal.SIGINT)
    if before == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def _flags(kind: str, root: Path, top: Path) -> list[str]:
    (top / "body.md").write_text("Plan ready.\n")
    (top / "tasks.txt").write_text("TUNE-0254 | in_progress\n")
    (top / "session.md").write_text(SESSION_BODY)
    common = ["--root", str(root)]
    if kind == "write":
        return common + ["--task", "TUNE-0254", "--stage", "plan", "--command", "/dr-plan",
                         "--captured-by", "agent", "--recommended-next", "/dr-do",
                         "--body-file", str(top / "body.md")]  # fmt: skip
    if kind == "emit":
        return common + ["--task", "TUNE-0032", "--stage", "plan", "--command", "/dr-plan",
                         "--response-file", str(ANSWER)]  # fmt: skip
    return common + ["--session", SESSION, "--captured-by", "agent", "--recommended-next",
                     "/dr-do", "--next-action", "go on",
                     "--active-tasks-file", str(top / "tasks.txt"),
                     "--body-file", str(top / "session.md")]  # fmt: skip


@pytest.mark.parametrize("impl", ["bash", "python"])
@pytest.mark.parametrize("kind", list(TOOLS))
def test_ctrl_c_while_waiting_ends_quietly_and_leaves_the_lock(
    tmp_path: Path, kind: str, impl: str
) -> None:
    tool, subdir, artefact = TOOLS[kind]
    root = tmp_path / "ws"
    directory = root / "datarim" / subdir
    lock = directory / f".lock.{artefact}"
    lock.mkdir(parents=True)
    record = owner_record("test")  # this process: alive for the whole wait
    (lock / "owner").write_bytes(record)
    command = (
        [str(REPO / "dev-tools" / tool)]
        if impl == "bash"
        else [sys.executable, "-m", "datarim_snapshot", kind]
    )
    env = dict(os.environ, PYTHONPATH=str(REPO / "python" / "src"),
               DR_SNAPSHOT_LOCK_TIMEOUT="60", DR_SESSION_LOCK_TIMEOUT="60")  # fmt: skip
    writer = subprocess.Popen(
        command + _flags(kind, root, tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,  # its own process group, as a terminal's job
    )
    try:
        wait_polling(writer)
        os.killpg(writer.pid, signal.SIGINT)
        out, err = writer.communicate(timeout=20)
    finally:
        if writer.poll() is None:  # a lost Ctrl-C: end it, not the next test's run
            os.killpg(writer.pid, signal.SIGKILL)
            writer.communicate()
    assert writer.returncode == -signal.SIGINT, (writer.returncode, err)
    assert out == b""
    assert b"Traceback" not in err and err.count(b"\n") <= 1, err
    assert (lock / "owner").read_bytes() == record
    assert sorted(p.name for p in lock.iterdir()) == ["owner"]
    assert sorted(p.name for p in directory.iterdir()) == [lock.name]


ROUNDS = int(os.environ.get("DATARIM_INTERRUPT_ROUNDS", "4"))


@pytest.mark.parametrize("impl", ["bash", "python"])
def test_ctrl_c_at_any_moment_of_the_wait_ends_the_writer(tmp_path: Path, impl: str) -> None:
    # Bash loses a SIGINT that lands between a child's fork and its exec
    # unless the entry point traps it; a lost one kept the writer waiting for
    # its whole lock timeout. Random moments, bash's start-up included (make
    # stress runs many more rounds, DATARIM_INTERRUPT_SEED other moments);
    # Python's once it polls.
    import random

    rng = random.Random(os.environ.get("DATARIM_INTERRUPT_SEED", f"interrupt-{impl}"))
    for n in range(ROUNDS):
        root = tmp_path / f"ws{n}"
        lock = root / "datarim" / "snapshots" / ".lock.TUNE-0032"
        lock.mkdir(parents=True)
        (lock / "owner").write_bytes(owner_record("test"))
        command = (
            [str(REPO / "dev-tools" / "emit-stage-snapshot.sh")]
            if impl == "bash"
            else [sys.executable, "-m", "datarim_snapshot", "emit"]
        )
        env = dict(
            os.environ, PYTHONPATH=str(REPO / "python" / "src"), DR_SNAPSHOT_LOCK_TIMEOUT="60"
        )
        writer = subprocess.Popen(
            command + _flags("emit", root, tmp_path),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        delay = rng.uniform(0.05, 0.6)
        try:
            if impl == "python":
                # A SIGINT in Python's start-up (site, runpy: before any code
                # of ours runs) gets the interpreter's own traceback; bash ends
                # by one quietly at any moment, before its trap is set too.
                wait_polling(writer)
            time.sleep(delay)
            os.killpg(writer.pid, signal.SIGINT)
            _, err = writer.communicate(timeout=20)
        finally:
            if writer.poll() is None:
                os.killpg(writer.pid, signal.SIGKILL)
                writer.communicate()
        assert writer.returncode == -signal.SIGINT, (n, delay, writer.returncode, err)
        assert b"Traceback" not in err and err.count(b"\n") <= 1, (n, delay, err)
