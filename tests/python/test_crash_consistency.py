"""Crash consistency: writers SIGKILLed at random moments, many times over. After every
kill the snapshot is the complete old file or the complete new one and validates; the
next writer recovers the lock and clears the temp file a killed writer left."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest
from datarim_snapshot._snapshot_validator import check_snapshot_file
from datarim_snapshot._snapshot_writer import render_snapshot
from lockprobe import IMPLS, REPO
from sample import STAMP, do_stage_writer

TASK = "TUNE-0254"
ROUNDS = int(os.environ.get("DATARIM_CRASH_ROUNDS", "32"))


def _run(impl: str, root: Path, body: Path, kill: float | None, in_lock: bool = False) -> bool:
    """Runs one writer; SIGKILLs its process group after kill seconds (None: never;
    in_lock: counted from the moment its lock appears). True when it was killed."""
    env = {**os.environ, "DR_SNAPSHOT_LOCK_TIMEOUT": "20"}
    proc = subprocess.Popen(
        do_stage_writer(impl, root, body), env=env, stderr=subprocess.PIPE, start_new_session=True
    )
    if kill is not None:
        if in_lock:
            lock = root / "datarim" / "snapshots" / f".lock.{TASK}"
            while proc.poll() is None and not lock.exists():
                time.sleep(0.0002)
        try:
            proc.wait(timeout=kill)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return True
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return False


def _duration(impl: str, root: Path, body: Path) -> float:
    began = time.monotonic()
    _run(impl, root, body, None)
    return time.monotonic() - began


@pytest.mark.parametrize("impl", IMPLS)
def test_sigkill_at_random_moments_never_leaves_a_torn_snapshot(tmp_path: Path, impl: str) -> None:
    rng = random.Random(f"crash-{impl}")
    root = tmp_path / "ws"
    root.mkdir()
    snapshots = root / "datarim" / "snapshots"
    target = snapshots / f"{TASK}.snapshot.md"
    body = tmp_path / "body.md"
    body.write_bytes(b"warm-up\n")
    # Half the kills at any moment of a run, half while it holds the lock.
    took = _duration(impl, root, body)
    kills = locks_left = temps_left = 0
    for version in range(ROUNDS):
        old = target.read_bytes()
        # Bodies of different sizes, some over the cap, so a torn file could not pass.
        data = (f"version {version} of {impl}: " + "ж" * rng.randrange(0, 6000) + "\n").encode()
        body.write_bytes(data)
        new = render_snapshot(TASK, "do", "/dr-do", "agent", "/dr-qa", STAMP, None, data)
        finishes = version % 4 == 3
        if finishes:
            kills += _run(impl, root, body, None)
        elif version % 2:
            kills += _run(impl, root, body, rng.uniform(0, took * 1.2))
        else:
            kills += _run(impl, root, body, rng.uniform(0, 0.004), in_lock=True)
        locks_left += os.path.isdir(snapshots / f".lock.{TASK}")
        now = target.read_bytes()
        assert now in (old, new), f"round {version}: neither the old nor the new snapshot"
        check_snapshot_file(str(target), TASK)
        lock = snapshots / f".lock.{TASK}"
        temps = [name for name in os.listdir(snapshots) if name.startswith(".tmp.")]
        if lock.is_dir():
            temps += [name for name in os.listdir(lock) if name.startswith("tmp.")]
        # At most the one temp file of the writer just killed (inside the lock it
        # left); none after a finished write.
        assert len(temps) <= (0 if finishes else 1), temps
        temps_left += len(temps)
        if finishes:
            assert now == new
            assert sorted(os.listdir(snapshots)) == [f"{TASK}.snapshot.md"]
    print(f"{impl}: {kills} kills, {locks_left} locks and {temps_left} temp files left behind")
    assert kills >= ROUNDS // 4
    assert locks_left >= 1, "no kill hit a held lock: the run proved nothing about recovery"
    bash_check = REPO / "dev-tools" / "check-stage-snapshot-on-exit.sh"
    subprocess.run([str(bash_check), "--task", TASK, "--root", str(root)], check=True)
