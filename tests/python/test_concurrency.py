"""Writers of both implementations racing on one task exclude each other through one lock."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from datarim_snapshot import validate_stage_snapshot
from datarim_snapshot._snapshot_writer import render_snapshot
from sample import STAMP, do_stage_writer


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
        procs.append(
            subprocess.Popen(do_stage_writer(impl, root, body), env=env, stderr=subprocess.PIPE)
        )
    errors = [p.communicate(timeout=120)[1] for p in procs]
    results = [(p.returncode, err) for p, err in zip(procs, errors)]
    assert [code for code, _ in results] == [0] * 16, results
    snapshots = root / "datarim" / "snapshots"
    assert sorted(os.listdir(snapshots)) == ["TUNE-0254.snapshot.md"]
    assert (snapshots / "TUNE-0254.snapshot.md").read_bytes() in expected
    validate_stage_snapshot("TUNE-0254", str(root))
