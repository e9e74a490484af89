"""What a command imports (docs/performance.md): not a timing test, a list of modules.

A Python command spends most of its time starting the interpreter and importing
modules; each of the modules below costs a call milliseconds (typing and
dataclasses with inspect most). So no module of the package imports them at load,
and a write, check or replay never does at run time (a write runs git without
subprocess). Each probe runs in a
fresh interpreter, since the test process has long imported all of them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = (
    "typing", "dataclasses", "inspect", "subprocess", "tempfile", "shutil", "socket",
    "random", "contextlib", "json",
)  # fmt: skip
TASK = "TUNE-0254"

PROBE = """
import sys
from datarim_snapshot import _cli as cli
code = cli.main(sys.argv[2:])
sys.stdout.flush()
loaded = [name for name in sys.argv[1].split(",") if name in sys.modules]
sys.stderr.write(f"{code} {','.join(loaded)}\\n")
"""


def loaded_after(
    argv: list[str], cwd: Path, watch: tuple[str, ...] = HEAVY, stdin: str = ""
) -> tuple[int, list[str]]:
    """(exit code, the modules of watch loaded) after cli.main(argv) in a fresh
    interpreter, stdin its standard input."""
    env = dict(os.environ)
    # The workspace lies outside any repository, wherever the test directory is.
    env["GIT_CEILING_DIRECTORIES"] = str(cwd)
    env.pop("DATARIM_SNAPSHOT_GIT", None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(watch), *argv],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    code, _, loaded = done.stderr.splitlines()[-1].partition(" ")
    return int(code), loaded.split(",") if loaded else []


def write_args(root: Path) -> list[str]:
    body = root.parent / "body.md"
    body.write_text("Stage summary.\n", encoding="utf-8")
    options = root.parent / "options.txt"
    options.write_text("/dr-qa TUNE-0254 | check\n", encoding="utf-8")
    return [
        "write", "--root", str(root), "--task", TASK, "--stage", "do", "--command", "/dr-do",
        "--captured-by", "agent", "--recommended-next", "/dr-qa", "--body-file", str(body),
        "--options-file", str(options),
    ]  # fmt: skip


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def test_no_module_of_the_package_imports_a_heavy_module_at_load() -> None:
    # json (so re) is the hook's, which parses a JSON payload on every call.
    watch = [name for name in HEAVY if name != "json"]
    probe = (
        "import importlib, os, sys\n"
        "import datarim_snapshot as pkg\n"
        "for name in sorted(os.listdir(pkg.__path__[0])):\n"
        "    if name.endswith('.py') and name != '__main__.py':\n"
        "        importlib.import_module('datarim_snapshot.' + name[:-3])\n"
        "print(len(sys.modules), ','.join(m for m in sys.argv[1].split(',') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, ",".join(watch)], capture_output=True, text=True, check=True
    )
    count, _, loaded = done.stdout.strip().partition(" ")
    assert int(count) > 30 and loaded == ""


def test_a_write_outside_git_imports_none_of_them(workspace: Path) -> None:
    assert loaded_after(write_args(workspace), workspace.parent) == (0, [])


def test_check_and_replay_import_none_of_them_nor_re(workspace: Path) -> None:
    assert loaded_after(write_args(workspace), workspace.parent)[0] == 0
    watch = (*HEAVY, "re")
    check = ["check", "--task", TASK, "--root", str(workspace)]
    assert loaded_after(check, workspace.parent, watch) == (0, [])
    replay = ["replay", "--task", TASK, "--root", str(workspace)]
    assert loaded_after(replay, workspace.parent, watch) == (0, [])


def test_a_write_that_runs_git_imports_none_of_them(workspace: Path) -> None:
    # The same probe in a git work tree: the anchor calls git (through
    # os.posix_spawnp, reading its output with select, which the probe sees
    # loaded), and still none of the heavy modules, subprocess among them.
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    code, loaded = loaded_after(write_args(workspace), workspace.parent, (*HEAVY, "select"))
    assert (code, loaded) == (0, ["select"])


RESUME_MODULES = (
    "datarim_snapshot._snapshot_resume",
    "datarim_snapshot._snapshot_validator",
    "datarim_snapshot._task_list",
    "datarim_snapshot._git_anchor",
)


def hook_loaded(source: str, workspace: Path) -> list[str]:
    """The resume modules loaded after a SessionStart hook run for source."""
    payload = json.dumps(
        {
            "session_id": "s-1",
            "transcript_path": "/nowhere",
            "cwd": str(workspace),
            "hook_event_name": "SessionStart",
            "source": source,
        }
    )
    argv = ["session-start-hook"]
    code, loaded = loaded_after(argv, workspace.parent, RESUME_MODULES, payload)
    assert code == 0
    return loaded


def test_a_session_start_that_does_not_resume_loads_no_resume_code(workspace: Path) -> None:
    # Most sessions start with "startup": the hook reads the payload and ends.
    (workspace / "datarim").mkdir()
    (workspace / "datarim" / "tasks.md").write_text("# Tasks\n", encoding="utf-8")
    assert hook_loaded("startup", workspace) == []
    # A /clear does resume, and loads what it needs.
    assert "datarim_snapshot._snapshot_resume" in hook_loaded("clear", workspace)
