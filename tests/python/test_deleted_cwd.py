"""Readers run, without --root, from a working directory that has been deleted.

Both implementations look for the root from $PWD upwards (the directory is
gone, so bash keeps the $PWD it inherited, and Python reads it when getcwd
fails): same exit code, same stdout, same stderr (apart from bash's own
`shell-init: error retrieving current directory` line, which it prints before
any script line runs), and never a Python traceback. replay stays silent.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from datarim_snapshot._cli import command_map
from sample import sample_workspace

REPO = Path(__file__).resolve().parents[2]
TASK = "TUNE-0254"
SESSION = "SESSION-20260521-134500"


def _readers() -> list[tuple[str, ...]]:
    """Every reader of the command map (class reader), with a task or a session
    where its synopsis names one, then the calls that read differently: replay
    with no task (the active one) and session-replay --latest."""
    commands = command_map()
    entries: list[tuple[str, ...]] = []
    for name, entry in commands.items():
        if entry.kind != "reader" or entry.script == "-":
            continue
        usage = REPO / "scripts" / "lib" / "text" / f"usage-{entry.program}.txt"
        synopsis = usage.read_text("utf-8").split("\n", 1)[0]
        args: tuple[str, ...] = ("--task", TASK) if "<TASK-ID>" in synopsis else ()
        args += ("--session", SESSION) if "<SESSION-ID>" in synopsis else ()
        entries.append((entry.script, name, *args))
    entries.append((commands["replay"].script, "replay"))
    entries.append((commands["session-replay"].script, "session-replay", "--latest"))
    return entries


COMMANDS = _readers()


def _in_deleted(directory: Path, command: list[str]) -> tuple[int, bytes, bytes]:
    """Runs command from directory, deleted just before (PWD still names it)."""
    done = subprocess.run(
        ["sh", "-c", 'cd "$0" && rmdir "$0" && exec "$@"', str(directory), *command],
        capture_output=True,
        env=dict(os.environ, DATARIM_NOW="2026-05-23T15:00:00Z"),
        timeout=60,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def _both(directory: Path, entry: tuple[str, ...]) -> tuple[int, bytes, bytes]:
    tool, subcommand, *args = entry
    directory.mkdir()
    bash = _in_deleted(directory, [str(REPO / "dev-tools" / tool), *args])
    directory.mkdir()
    python = _in_deleted(directory, [sys.executable, "-m", "datarim_snapshot", subcommand, *args])
    assert b"Traceback" not in python[2], python[2].decode()
    own = b"shell-init: error retrieving current directory"
    bash_err = b"".join(line for line in bash[2].splitlines(True) if not line.startswith(own))
    assert (bash[0], bash[1], bash_err) == python, (bash, python)
    return python


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = sample_workspace(tmp_path / "ws", TASK)
    (root / "datarim" / "activeContext.md").write_text(f"## Active Tasks\n- **{TASK}** — x\n")
    return root


@pytest.mark.parametrize("entry", COMMANDS, ids=lambda entry: " ".join(entry[1:]))
def test_below_a_workspace(workspace: Path, entry: tuple[str, ...]) -> None:
    """The root is still found upwards from the deleted directory."""
    code, out, _ = _both(workspace / "gone", entry)
    if entry[1] == "replay":
        assert code == 0 and out.startswith(b"/dr-do ")


@pytest.mark.parametrize("entry", COMMANDS, ids=lambda entry: " ".join(entry[1:]))
def test_outside_any_workspace(tmp_path: Path, entry: tuple[str, ...]) -> None:
    code, out, _ = _both(tmp_path / "gone", entry)
    if entry[1] == "replay":
        assert code != 0 and out == b""
