#!/usr/bin/env python3
"""Load figures for `make bench`: 32 writers of both implementations at once, 24 writing
snapshots over 4 tasks and 8 appending to one session file (loadrun.mixed_plan, the load
of tests/python/test_session.py), three rounds; prints writes per second and the worst
wait (start of a writer to its exit), overall and per kind. Figures only, no pass/fail;
a round whose writes break the load rules (loadrun.check_load) stops it with an error."""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "python"))

from loadrun import check_load, mixed_plan, run_load  # noqa: E402

ROUNDS = 3
TIMEOUT = 60


def main() -> int:
    plan = mixed_plan()
    tasks = sorted({target for kind, target in plan if kind.family == "snapshot"})
    sessions = sorted({target for kind, target in plan if kind.family == "session"})
    rates: list[float] = []
    worst: list[float] = []
    per_kind: dict[str, list[float]] = {kind.name: [] for kind, _ in plan}
    for _ in range(ROUNDS):
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch) / "ws"
            (root / "datarim").mkdir(parents=True)
            (root / "datarim" / "tasks.md").write_text("# Tasks\n")  # an existing knowledge base
            writes, wall = run_load(root, plan, TIMEOUT, Path(scratch))
            check_load(root, writes, TIMEOUT)
        landed = sum(1 for w in writes if w.code == 0)
        rates.append(landed / wall)
        worst.append(max(w.seconds for w in writes))
        for w in writes:
            per_kind[w.kind.name].append(w.seconds)
    print(
        f"load: {len(plan)} writers at once over {len(tasks)} tasks and {len(sessions)}"
        f" session file, {ROUNDS} rounds"
    )
    print(f"  writes per second (median of rounds)   {statistics.median(rates):8.1f}")
    print(f"  worst wait, start to exit (max)        {max(worst) * 1000:8.0f} ms")
    for name, seconds in sorted(per_kind.items()):
        writers = len(seconds) // ROUNDS
        print(
            f"  {name:<16} x{writers:<3} median {statistics.median(seconds) * 1000:6.0f} ms"
            f"   worst {max(seconds) * 1000:6.0f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
