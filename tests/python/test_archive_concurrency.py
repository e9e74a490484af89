"""snapshot-archive under contention, bash and Python at once.

Two archivers racing on one snapshot (one bash, one Python): exactly one
moves it, the other finds it gone (exit 1), and exactly one archive file
exists. An archiver racing a writer of the same task: both hold the task's
snapshot lock in turn, so the archive is always a whole, valid snapshot, and
whatever is left in datarim/snapshots is one too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from datarim_snapshot import check_snapshot_file
from sample import do_stage_args, writer_command

REPO = Path(__file__).resolve().parents[2]
ROUNDS = int(os.environ.get("DATARIM_ARCHIVE_ROUNDS", "6"))
TASK = "TUNE-0254"


def bash_archive(root: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(REPO / "dev-tools" / "snapshot-archive.sh"), TASK, "--root", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def python_archive(root: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "datarim_snapshot", "archive", TASK, "--root", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def write_snapshot(root: Path, body: bytes, python: bool = False) -> subprocess.Popen[bytes]:
    body_file = root / f"body.{os.getpid()}.{len(body)}"
    body_file.write_bytes(body)
    command = writer_command("python" if python else "bash")
    command += do_stage_args(root, TASK, body_file, recommended_next="/dr-archive")
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(proc: subprocess.Popen[bytes]) -> tuple[int, bytes, bytes]:
    """Waits for the process and reads (and closes) both pipes."""
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def archives(root: Path) -> list[Path]:
    return sorted((root / "documentation" / "archive" / "tune" / "snapshots").glob("*.md"))


def test_two_archivers_move_the_snapshot_once(tmp_path: Path) -> None:
    for round_number in range(ROUNDS):
        root = tmp_path / f"ws{round_number}"
        root.mkdir()
        assert finish(write_snapshot(root, b"final answer\n"))[0] == 0
        first, second = (
            (bash_archive(root), python_archive(root))
            if round_number % 2
            else (python_archive(root), bash_archive(root))
        )
        outcomes = sorted(finish(p) for p in (first, second))
        (won, out, err), (lost, _, lost_err) = outcomes
        assert (won, lost) == (0, 1), outcomes
        assert out == b"documentation/archive/tune/snapshots/TUNE-0254-final-stage.md\n"
        assert err == b""
        assert b"is missing" in lost_err
        assert [p.name for p in archives(root)] == ["TUNE-0254-final-stage.md"]
        assert not (root / "datarim" / "snapshots" / f"{TASK}.snapshot.md").exists()
        assert sorted(os.listdir(root / "datarim" / "snapshots")) == []  # no lock left behind


def test_archiver_and_writer_never_see_half_a_snapshot(tmp_path: Path) -> None:
    for round_number in range(ROUNDS):
        root = tmp_path / f"ws{round_number}"
        root.mkdir()
        assert finish(write_snapshot(root, b"first\n" * 500))[0] == 0
        archiver = python_archive(root) if round_number % 2 else bash_archive(root)
        writer = write_snapshot(root, b"second\n" * 700, python=round_number % 2 == 0)
        assert finish(writer)[0] == 0
        assert finish(archiver)[0] == 0  # the snapshot exists throughout: replaced, never removed
        [archive] = archives(root)
        check_snapshot_file(str(archive), TASK)  # raises unless a whole, valid snapshot
        left = root / "datarim" / "snapshots" / f"{TASK}.snapshot.md"
        if left.exists():  # the writer came second
            check_snapshot_file(str(left), TASK)
            assert b"second" in left.read_bytes() and b"first" in archive.read_bytes()
