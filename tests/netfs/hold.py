"""make test-netfs probe: the Python twin of hold.sh.

python hold.py <lock-dir> <timeout-s> <holds> <marker-dir> <log>
"""

from __future__ import annotations

import os
import sys
import time

from datarim_snapshot._errors import DatarimError
from datarim_snapshot._lock import acquire_lock, host_name, release_lock


def main(lock: str, timeout: str, holds: str, marker: str, log: str) -> int:
    me = f"{host_name()} python {os.getpid()}"
    for _ in range(int(holds)):
        try:
            acquire_lock(lock, int(timeout))
        except DatarimError as exc:
            print(f"hold: {exc.message}", file=sys.stderr)
            return exc.code
        try:
            os.mkdir(marker)
        except FileExistsError:
            with open(log, "a") as out:
                out.write(f"VIOLATION {me}\n")
            return 9
        with open(log, "a") as out:
            out.write(f"start {time.time():.6f} {me}\n")
        time.sleep(0.005)
        with open(log, "a") as out:
            out.write(f"end {time.time():.6f} {me}\n")
        os.rmdir(marker)
        release_lock(lock)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:6]))
