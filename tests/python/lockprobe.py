"""Starts lock probes (tests/probes) of either implementation and reads what they report."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
IMPLS = ("bash", "python")


def probe_argv(
    impl: str, lock: Path, timeout: int, hold: float | str, marker: Path | None
) -> list[str]:
    args = [str(lock), str(timeout), str(hold), str(marker) if marker else "-"]
    if impl == "bash":
        return [str(REPO / "tests" / "probes" / "lock-probe.sh"), *args]
    return [sys.executable, str(REPO / "tests" / "probes" / "lock_probe.py"), *args]


def start_probe(
    impl: str, lock: Path, timeout: int, hold: float | str, marker: Path | None = None
) -> subprocess.Popen[bytes]:
    """hold: seconds, or "until:<file>": hold until the test creates that file."""
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


def wait_held(proc: subprocess.Popen[bytes], within: float = 60.0) -> None:
    """Blocks until the probe prints "held"; fails when it has not within that long."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], within)
    assert ready, f"no 'held' within {within} s: {proc.poll()}"
    line = proc.stdout.readline()
    assert line == b"held\n", (line, proc.stderr.read() if proc.stderr else b"")


def wait_polling(proc: subprocess.Popen[bytes], within: float = 60.0) -> None:
    """Blocks until the process sleeps between two polls of a lock (so it has
    looked at the lock at least once): Python in nanosleep, bash in select
    (its timed read, bash 4.1 and later) or in its `sleep` child.
    /proc/<pid>/wchan names where a process sleeps ("0" while it runs); where
    /proc names nothing (none, or wchan hidden), waits 3 s."""
    began = time.monotonic()
    named = False
    while proc.poll() is None:
        where = _read(f"/proc/{proc.pid}/wchan")
        if "nanosleep" in where or "poll_schedule" in where or _has_child_named(proc.pid, "sleep"):
            return
        named = named or where not in ("", "0")
        assert time.monotonic() - began < within, f"never polled within {within} s"
        if not named and time.monotonic() - began > 3:
            return
        time.sleep(0.002)
    raise AssertionError(f"ended before it polled: {proc.returncode}")


def _read(path: str) -> str:
    try:
        with open(path) as handle:
            return handle.read()
    except OSError:
        return ""


def _has_child_named(pid: int, name: str) -> bool:
    try:
        entries = os.listdir("/proc")
    except OSError:
        return False
    for entry in entries:
        if entry.isdigit():
            head, _, rest = _read(f"/proc/{entry}/stat").rpartition(") ")
            fields = rest.split()
            if len(fields) > 1 and fields[1] == str(pid) and head.endswith(f"({name}"):
                return True
    return False


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
