#!/usr/bin/env python3
"""Load figures for `make bench`: 32 writers of both implementations at once over 4 tasks
(the writer kinds of tests/python/loadrun.py), three rounds; prints writes per second and
the worst wait (start of a writer to its exit). Figures only, no pass/fail; a round
whose writes break the load rules (tests/python/test_load.py) stops it with an error."""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python"))

from loadrun import KINDS, check_load, run_load  # noqa: E402

WRITERS = 32
TASKS = [f"LOAD-{n:04d}" for n in range(1, 5)]
ROUNDS = 3
TIMEOUT = 60


def main() -> int:
    rates: list[float] = []
    worst: list[float] = []
    per_kind: dict[str, list[float]] = {kind.name: [] for kind in KINDS}
    for _ in range(ROUNDS):
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch) / "ws"
            root.mkdir()
            plan = [
                (KINDS[n % len(KINDS)], TASKS[(n // len(KINDS)) % len(TASKS)])
                for n in range(WRITERS)
            ]
            writes, wall = run_load(root, plan, TIMEOUT, Path(scratch))
            check_load(root, writes, TIMEOUT)
        landed = sum(1 for w in writes if w.code == 0)
        rates.append(landed / wall)
        worst.append(max(w.seconds for w in writes))
        for w in writes:
            per_kind[w.kind.name].append(w.seconds)
    print(f"load: {WRITERS} writers at once over {len(TASKS)} tasks, {ROUNDS} rounds")
    print(f"  writes per second (median of rounds)   {statistics.median(rates):8.1f}")
    print(f"  worst wait, start to exit (max)        {max(worst) * 1000:8.0f} ms")
    for name, seconds in per_kind.items():
        print(
            f"  {name:<18} median {statistics.median(seconds) * 1000:6.0f} ms"
            f"   worst {max(seconds) * 1000:6.0f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
