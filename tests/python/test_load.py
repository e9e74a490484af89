"""Load: 32 writers of both implementations at once over several tasks (loadrun.KINDS)."""

from __future__ import annotations

from pathlib import Path

from loadrun import KINDS, check_load, run_load
from lockprobe import finish, start_probe, wait_held

TASKS = [f"LOAD-{n:04d}" for n in range(1, 5)]


def test_32_writers_over_4_tasks_all_land_whole(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "datarim").mkdir(parents=True)
    (root / "datarim" / "tasks.md").write_text("# Tasks\n")  # no new-knowledge-base notice
    plan = [(KINDS[n % len(KINDS)], TASKS[(n // len(KINDS)) % len(TASKS)]) for n in range(32)]
    writes, _ = run_load(root, plan, 60, tmp_path)
    check_load(root, writes, 60)
    assert [w.code for w in writes] == [0] * 32


def test_under_load_a_held_task_times_out_with_exit_3_and_the_others_land(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    snapshots = root / "datarim" / "snapshots"
    snapshots.mkdir(parents=True)
    # Held for the whole run, however long starting 32 writers takes.
    released = tmp_path / "released"
    holder = start_probe("bash", snapshots / ".lock.LOAD-0009", 5, f"until:{released}")
    wait_held(holder)
    plan = [(KINDS[n % len(KINDS)], "LOAD-0009" if n < 8 else TASKS[n % 4]) for n in range(32)]
    writes, _ = run_load(root, plan, 1, tmp_path)
    released.touch()
    assert finish(holder)[0] == 0
    check_load(root, writes, 1)
    assert [w.code for w in writes[:8]] == [3] * 8
    assert 0 in [w.code for w in writes[8:]]
