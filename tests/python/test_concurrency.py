"""Writers of both implementations racing on one task exclude each other through one lock."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from datarim_snapshot import validate_stage_snapshot
from datarim_snapshot.snapshot import render_snapshot

REPO = Path(__file__).resolve().parents[2]
STAMP = "2026-05-21T13:45:00Z"


def _argv(impl: str, root: Path, body: Path) -> list[str]:
    if impl == "bash":
        prefix = [str(REPO / "dev-tools" / "snapshot-writer-wrapper.sh")]
    else:
        prefix = [sys.executable, "-m", "datarim_snapshot", "write"]
    return prefix + [
        "--root", str(root), "--task", "TUNE-0254", "--stage", "do", "--command", "/dr-do",
        "--captured-by", "agent", "--recommended-next", "/dr-qa", "--body-file", str(body),
        "--captured-at", STAMP,
    ]  # fmt: skip


def test_sixteen_writers_of_both_kinds_race_on_one_task(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    expected = set()
    procs = []
    env = {**os.environ, "DR_SNAPSHOT_LOCK_TIMEOUT": "60"}
    for n in range(16):
        impl = "bash" if n % 2 else "python"
        body = tmp_path / f"body-{n}.md"
        # Bodies of different sizes, some over the cap, so a torn write could not pass.
        body.write_bytes((f"writer {n} ({impl}) line\n" * (n * 40 + 1)).encode())
        expected.add(
            render_snapshot(
                "TUNE-0254", "do", "/dr-do", "agent", "/dr-qa", STAMP, None, body.read_bytes()
            )
        )
        procs.append(subprocess.Popen(_argv(impl, root, body), env=env, stderr=subprocess.PIPE))
    results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else b"") for p in procs]
    assert [code for code, _ in results] == [0] * 16, results
    snapshots = root / "datarim" / "snapshots"
    assert sorted(os.listdir(snapshots)) == ["TUNE-0254.snapshot.md"]
    assert (snapshots / "TUNE-0254.snapshot.md").read_bytes() in expected
    validate_stage_snapshot("TUNE-0254", str(root))
