"""Starts lock probes (tests/probes) of either implementation and reads what they report."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
IMPLS = ("bash", "python")


def probe_argv(impl: str, lock: Path, timeout: int, hold: float, marker: Path | None) -> list[str]:
    args = [str(lock), str(timeout), str(hold), str(marker) if marker else "-"]
    if impl == "bash":
        return [str(REPO / "tests" / "probes" / "lock-probe.sh"), *args]
    return [sys.executable, str(REPO / "tests" / "probes" / "lock_probe.py"), *args]


def start_probe(
    impl: str, lock: Path, timeout: int, hold: float, marker: Path | None = None
) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    if impl == "bash":
        env["PATH"] = os.environ.get("CONFORMANCE_PATH", env["PATH"])
    return subprocess.Popen(
        probe_argv(impl, lock, timeout, hold, marker),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )


def wait_held(proc: subprocess.Popen[bytes], within: float = 10.0) -> None:
    """Blocks until the probe prints "held"."""
    assert proc.stdout is not None
    deadline = time.monotonic() + within
    line = proc.stdout.readline()
    assert line == b"held\n", (line, proc.stderr.read() if proc.stderr else b"")
    assert time.monotonic() < deadline


def kill_probe(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILLs the probe's whole process group and reaps it: a terminal closed mid-write."""
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()


def dead_lock(impl: str, lock: Path) -> None:
    """Leaves behind the lock of a writer of impl killed while holding it."""
    proc = start_probe(impl, lock, 5, 3600)
    wait_held(proc)
    kill_probe(proc)
    assert (lock / "owner").is_file()


def finish(proc: subprocess.Popen[bytes], timeout: float = 60) -> tuple[int, bytes, bytes]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err
