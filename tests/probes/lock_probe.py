"""Test probe: holds a datarim lock through the Python port (twin of lock-probe.sh).

python lock_probe.py <lock-dir> <timeout-s> <hold-s|until:FILE> <inside-marker-dir|->
"""

from __future__ import annotations

import os
import sys
import time

from datarim_snapshot._errors import DatarimError
from datarim_snapshot._lock import acquire_lock, owner_record, read_owner, release_lock


def main(lock: str, timeout: str, hold: str, marker: str) -> int:
    try:
        acquire_lock(lock, int(timeout))
    except DatarimError as exc:
        print(f"lock-probe: {exc.message}", file=sys.stderr)
        return exc.code
    print("held", flush=True)
    if marker != "-":
        try:
            os.mkdir(marker)
        except FileExistsError:
            print("VIOLATION", flush=True)
            return 9
    if hold.startswith("until:"):
        while not os.path.exists(hold[len("until:") :]):
            time.sleep(0.01)
    else:
        time.sleep(float(hold))
    if marker != "-":
        os.rmdir(marker)
    if not still_ours(lock):
        print("LOST", flush=True)
        return 8
    release_lock(lock)
    return 0


def still_ours(lock: str) -> bool:
    """The owner file holds our record. A waiter that judged a stale record may
    have moved it aside for a moment (take_over puts back what is not the record
    it judged), which on a loaded machine can last seconds: an absent file is
    read again for up to 30 s (lock-probe.sh does the same)."""
    deadline = time.monotonic() + 30
    seen = read_owner(lock)
    while seen is None and time.monotonic() < deadline:
        time.sleep(0.005)
        seen = read_owner(lock)
    return seen == owner_record()


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:5]))
