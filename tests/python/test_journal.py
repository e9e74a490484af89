"""The reference's harness journal (spec §8) where conformance cases cannot reach: the
real /tmp default and a directory another user owns. Both writers, the same outcome."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WRAPPER = REPO / "dev-tools" / "snapshot-writer-wrapper.sh"
STAMP = "2026-05-21T13:45:00Z"


def writers(root: Path, task: str, body: Path) -> list[list[str]]:
    flags = [
        "--root", str(root), "--task", task, "--stage", "do", "--command", "/dr-do",
        "--captured-by", "agent", "--recommended-next", "/dr-qa", "--body-file", str(body),
        "--captured-at", STAMP,
    ]  # fmt: skip
    return [
        [str(WRAPPER), *flags],
        [sys.executable, "-m", "datarim_snapshot", "write", *flags],
    ]


def run(argv: list[str], env: dict[str, str]) -> None:
    result = subprocess.run(argv, capture_output=True, env=env, check=False)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[tuple[str, Path, Path]]:
    """A task of its own and its journal directory in the real /tmp, removed afterwards."""
    task = f"JRNL-{secrets.randbelow(90000) + 10000}-{secrets.token_hex(4)}"
    directory = Path("/tmp") / f"datarim-test-{task}"
    directory.mkdir(mode=0o700)
    body = tmp_path / "body.md"
    body.write_text(f"**{task} \u00b7 journal**\n\nDone.\n\n1. `/dr-qa {task}` \u2014 check\n")
    (tmp_path / "ws" / "datarim").mkdir(parents=True)
    (tmp_path / "ws" / "datarim" / "tasks.md").write_text("# Tasks\n")  # no new-KB notice
    yield task, directory, body
    shutil.rmtree(directory, ignore_errors=True)


def test_both_writers_append_to_the_journal_in_tmp_by_default(
    harness: tuple[str, Path, Path], tmp_path: Path
) -> None:
    task, directory, body = harness
    env = {k: v for k, v in os.environ.items() if k != "DATARIM_HARNESS_DIR"}
    for argv in writers(tmp_path / "ws", task, body):
        run(argv, env)
    lines = (directory / "journal.md").read_text().splitlines()
    assert len(lines) == 2 and lines[0] == lines[1]
    assert lines[0].startswith(
        f"do \u00b7 {STAMP} \u00b7 header-present:y \u00b7 snapshot-written:y"
        " \u00b7 cta-footer:y \u00b7 snapshot-sha:"
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a directory to another user")
def test_a_directory_another_user_owns_is_never_written(
    harness: tuple[str, Path, Path], tmp_path: Path
) -> None:
    task, directory, body = harness
    os.chown(directory, 65534, 65534)
    env = {k: v for k, v in os.environ.items() if k != "DATARIM_HARNESS_DIR"}
    for argv in writers(tmp_path / "ws", task, body):
        run(argv, env)
    assert list(directory.iterdir()) == []
    assert (tmp_path / "ws" / "datarim" / "snapshots" / f"{task}.snapshot.md").is_file()
