"""Orphaned locks (docs/lock-protocol.md): a writer killed while holding its lock never
blocks later writers of either implementation for more than about a second; a live
owner's lock and another host's are only waited for; many waiters noticing the same
dead lock at once never both get it."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from datarim_snapshot._errors import LockBusyError
from datarim_snapshot._lock import (
    ORPHAN_GRACE_SECONDS,
    acquire_lock,
    commit_lock,
    host_name,
    owner_alive,
    process_start,
)
from lockprobe import (
    IMPLS,
    dead_lock,
    finish,
    kill_probe,
    start_probe,
    wait_held,
    wait_polling,
)

PAIRS = [(dead, waiter) for dead in IMPLS for waiter in IMPLS]


def _owner(lock: Path) -> bytes:
    return (lock / "owner").read_bytes()


def _record(pid: int, start: str, host: str | None = None) -> bytes:
    host = host_name() if host is None else host
    return f"pid={pid}\nhost={host}\nstart={start}\nimpl=bash\n".encode()


@pytest.mark.parametrize(("dead", "waiter"), PAIRS, ids=[f"{d}-dead-{w}-waits" for d, w in PAIRS])
def test_a_killed_holders_lock_is_taken_over_within_a_second(
    tmp_path: Path, dead: str, waiter: str
) -> None:
    lock = tmp_path / ".lock.TUNE-0254"
    holder = start_probe(dead, lock, 5, 3600)
    wait_held(holder)
    proc = start_probe(waiter, lock, 30, 0)
    # Timed from the kill, not from the waiter's start-up (seconds on a loaded
    # machine): by then it polls the live holder's lock.
    wait_polling(proc)
    began = time.monotonic()
    kill_probe(holder)
    code, out, err = finish(proc)
    elapsed = time.monotonic() - began
    assert (code, out, err) == (0, b"held\n", b"")
    assert elapsed < 1.5, f"took {elapsed:.2f} s"
    assert not lock.exists()


@pytest.mark.parametrize("dead", IMPLS)
def test_many_waiters_on_one_dead_lock_hold_it_one_at_a_time(tmp_path: Path, dead: str) -> None:
    lock = tmp_path / ".lock.TUNE-0254"
    inside = tmp_path / "inside"
    for _ in range(2):
        dead_lock(dead, lock)
        probes = [start_probe(IMPLS[n % 2], lock, 60, 0.01, inside) for n in range(16)]
        results = [finish(p) for p in probes]
        assert [r[0] for r in results] == [0] * 16, results
        assert all(r[1] == b"held\n" for r in results), results
        assert not lock.exists()
        assert not inside.exists()


@pytest.mark.parametrize("holder", IMPLS)
def test_a_live_holders_lock_is_never_broken(tmp_path: Path, holder: str) -> None:
    lock = tmp_path / ".lock.TUNE-0254"
    released = tmp_path / "released"
    owner = start_probe(holder, lock, 5, f"until:{released}", tmp_path / "inside")
    wait_held(owner)
    record = _owner(lock)
    waiters = [start_probe(IMPLS[n % 2], lock, 1, 0) for n in range(6)]
    for proc in waiters:
        code, out, err = finish(proc)
        assert code == 3 and out == b"" and b"lock busy" in err, (code, out, err)
    assert _owner(lock) == record
    # The holder still holds: its owner file is intact when it releases.
    released.touch()
    assert finish(owner)[:2] == (0, b"")
    assert not lock.exists()


def _fake_lock(lock: Path, record: bytes | None) -> None:
    lock.mkdir()
    if record is not None:
        (lock / "owner").write_bytes(record)


def _gone_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


@pytest.mark.parametrize("waiter", IMPLS)
def test_another_hosts_lock_is_only_waited_for(tmp_path: Path, waiter: str) -> None:
    lock = tmp_path / ".lock.TUNE-0254"
    record = _record(_gone_pid(), "1", host="elsewhere.example")
    _fake_lock(lock, record)
    code, _, err = finish(start_probe(waiter, lock, 1, 0))
    assert code == 3, err
    assert _owner(lock) == record


@pytest.mark.parametrize("waiter", IMPLS)
def test_a_reused_pid_or_a_zombie_does_not_keep_a_lock_alive(tmp_path: Path, waiter: str) -> None:
    lock = tmp_path / ".lock.TUNE-0254"
    # Our own pid, alive, but with another start time: the recorded owner is gone.
    _fake_lock(lock, _record(os.getpid(), "1"))
    assert finish(start_probe(waiter, lock, 5, 0))[:2] == (0, b"held\n")
    zombie = subprocess.Popen(["true"])
    _wait_for_state(zombie.pid, "Z")  # exited, not yet reaped
    try:
        _fake_lock(lock, _record(zombie.pid, process_start(zombie.pid)))
        assert finish(start_probe(waiter, lock, 5, 0))[:2] == (0, b"held\n")
    finally:
        zombie.wait()


def _wait_for_state(pid: int, state: str) -> None:
    """Polls /proc/<pid>/stat until the process is in state (e.g. "Z")."""
    if not os.path.isdir("/proc"):
        time.sleep(0.2)
        return
    deadline = time.monotonic() + 30
    while (fields := _stat_fields(pid)) is None or fields[0] != state:
        assert time.monotonic() < deadline, (pid, fields)
        time.sleep(0.005)


def _stat_fields(pid: int) -> list[str] | None:
    try:
        data = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return data.rsplit(") ", 1)[-1].split()


OWNERLESS = {"no-owner": None, "empty": b"", "partial": b"pid=12"}


def test_a_lock_without_a_complete_owner_record_waits_out_the_grace(tmp_path: Path) -> None:
    # Every (state, implementation) pair on a lock of its own, all at once.
    locks = {}
    for state, owner in OWNERLESS.items():
        for impl in IMPLS:
            lock = tmp_path / f".lock.{state}.{impl}"
            _fake_lock(lock, owner)
            locks[(state, impl)] = lock
    # Within the grace it may be a writer between mkdir and its owner file.
    early = {key: start_probe(key[1], lock, 1, 0) for key, lock in locks.items()}
    for key, proc in early.items():
        assert finish(proc)[0] == 3, key
        assert (locks[key] / "owner").exists() == (OWNERLESS[key[0]] is not None)
    began = time.monotonic()
    late = {key: start_probe(key[1], lock, 30, 0) for key, lock in locks.items()}
    for key, proc in late.items():
        assert finish(proc)[:2] == (0, b"held\n"), key
        assert not locks[key].exists()
    assert time.monotonic() - began >= ORPHAN_GRACE_SECONDS


def test_a_waiter_stopped_past_the_grace_watches_the_lock_afresh(tmp_path: Path) -> None:
    # A waiter that saw no complete record, then was stopped (or starved) for
    # longer than the grace, saw nothing of the gap: a live writer's record
    # may have stood there all along. Its first look after the pause must not
    # count as the grace having passed. Every (state, implementation) pair at once.
    keys = [(state, impl) for state in ("no-owner", "partial") for impl in IMPLS]
    locks = {key: tmp_path / f".lock.{key[0]}.{key[1]}" for key in keys}
    for key, lock in locks.items():
        _fake_lock(lock, OWNERLESS[key[0]])
    procs = {key: start_probe(key[1], lock, 30, 0) for key, lock in locks.items()}
    for proc in procs.values():
        wait_polling(proc)  # it has looked at the lock: its watch has begun
        os.killpg(proc.pid, signal.SIGSTOP)
    time.sleep(ORPHAN_GRACE_SECONDS + 1.5)
    resumed = time.monotonic()
    for proc in procs.values():
        os.killpg(proc.pid, signal.SIGCONT)
    # Each probe's "held" timed as it comes, not one after another.
    with ThreadPoolExecutor(len(procs)) as pool:
        held_at = dict(zip(procs, pool.map(_time_held, procs.values())))
    for key, proc in procs.items():
        assert finish(proc)[0] == 0, key
        waited = held_at[key] - resumed
        assert waited >= ORPHAN_GRACE_SECONDS, f"{key}: claimed {waited:.2f} s after the pause"
        assert not locks[key].exists()


def _time_held(proc: subprocess.Popen[bytes]) -> float:
    """When the probe printed "held" (by the monotonic clock)."""
    wait_held(proc)
    return time.monotonic()


# Owner files that are no record: never opened if not regular (a FIFO would
# hang the reader), a NUL or a zero-padded pid is no record; all are waited
# out for the grace and then taken over, by both implementations alike.
ODD_OWNERS = ("fifo", "directory", "symlink", "nul-after-live-record", "zero-padded-pid")


def _odd_owner(lock: Path, kind: str) -> None:
    lock.mkdir()
    owner = lock / "owner"
    live = _record(os.getpid(), process_start(os.getpid()))
    if kind == "fifo":
        os.mkfifo(owner)
    elif kind == "directory":
        owner.mkdir()
        (owner / "inner").write_bytes(b"x")
    elif kind == "symlink":
        target = lock.parent / "elsewhere"
        target.write_bytes(live)
        owner.symlink_to(target)
    elif kind == "nul-after-live-record":
        owner.write_bytes(live + b"\0")
    else:
        owner.write_bytes(live.replace(b"pid=", b"pid=000", 1))


def test_an_owner_that_is_no_record_never_hangs_and_is_taken_over_after_the_grace(
    tmp_path: Path,
) -> None:
    locks = {}
    for kind in ODD_OWNERS:
        for impl in IMPLS:
            lock = tmp_path / kind / impl / ".lock.TUNE-0254"
            lock.parent.mkdir(parents=True)
            _odd_owner(lock, kind)
            locks[(kind, impl)] = lock
    procs = {key: start_probe(key[1], lock, 30, 0) for key, lock in locks.items()}
    for key, proc in procs.items():
        assert finish(proc)[:2] == (0, b"held\n"), key
        assert not locks[key].exists(), key
    # What a symlinked owner pointed at is left alone.
    assert (tmp_path / "symlink" / "bash" / "elsewhere").exists()


@pytest.mark.parametrize("waiter", IMPLS)
def test_a_live_record_left_aside_by_a_dead_waiter_is_put_back(tmp_path: Path, waiter: str) -> None:
    # A waiter killed in the take-over, after moving a live writer's record
    # aside: the lock has no owner file, only the aside. It must not count as
    # ownerless (the live writer still holds): the next waiter puts it back.
    lock = tmp_path / ".lock.TUNE-0254"
    live = _record(os.getpid(), process_start(os.getpid()))
    lock.mkdir()
    (lock / "owner.aside.99999.1").write_bytes(live)
    code, _, err = finish(start_probe(waiter, lock, 3, 0))
    assert code == 3, err
    assert _owner(lock) == live
    assert not (lock / "owner.aside.99999.1").exists()


@pytest.mark.parametrize("waiter", IMPLS)
def test_a_dead_record_left_aside_is_dropped_and_the_lock_recovered(
    tmp_path: Path, waiter: str
) -> None:
    lock = tmp_path / ".lock.TUNE-0254"
    lock.mkdir()
    (lock / "owner.aside.99999.1").write_bytes(_record(_gone_pid(), "1"))
    assert finish(start_probe(waiter, lock, 30, 0))[:2] == (0, b"held\n")
    assert not lock.exists()


@pytest.mark.parametrize("waiter", IMPLS)
@pytest.mark.parametrize("kind", ["symlink", "file"])
def test_a_lock_path_that_is_no_directory_is_refused_and_never_followed(
    tmp_path: Path, waiter: str, kind: str
) -> None:
    lock = tmp_path / ".lock.TUNE-0254"
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_bytes(b"keep\n")
    if kind == "symlink":
        lock.symlink_to(victim)
    else:
        lock.write_bytes(b"not a lock\n")
    code, out, err = finish(start_probe(waiter, lock, 3, 0))
    assert (code, out) == (1, b"")
    assert err == b"lock-probe: lock .lock.TUNE-0254 is a symlink or not a directory; remove it\n"
    assert sorted(p.name for p in victim.iterdir()) == ["keep.txt"]
    assert lock.is_symlink() == (kind == "symlink")


def test_a_pid_past_what_the_system_can_have_is_dead_without_proc(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_isdir = os.path.isdir
    monkeypatch.setattr(os.path, "isdir", lambda p: p != "/proc/self" and real_isdir(p))
    assert owner_alive(9_999_999_999, "") is False
    assert owner_alive(os.getpid(), "") is True


def _failing_open(code: int) -> object:
    def fail(*_args: object, **_kwargs: object) -> int:
        raise OSError(code, os.strerror(code))

    return fail


@pytest.mark.parametrize("code", [errno.EPERM, errno.ENOENT, errno.EEXIST])
def test_an_owner_file_lost_to_a_race_or_a_vanished_lock_means_look_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    """What a network filesystem says (docs/lock-protocol.md, step 2): EPERM for a
    lost exclusive create (sshfs), ENOENT when the lock directory another host
    removed still shows here. Not ours, no error; only another failure is one."""
    lock = tmp_path / ".lock.TUNE-0254"
    lock.mkdir()
    monkeypatch.setattr(os, "open", _failing_open(code))
    assert commit_lock(str(lock), _record(os.getpid(), "")) is False
    monkeypatch.setattr(os, "open", _failing_open(errno.EIO))
    with pytest.raises(OSError):
        commit_lock(str(lock), _record(os.getpid(), ""))


def test_a_mkdir_lost_with_eperm_is_looked_at_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """sshfs answers a mkdir another writer won with EPERM: the lock there is
    waited for (exit 3 at the timeout), not a failure to create it (exit 1)."""
    lock = tmp_path / ".lock.TUNE-0254"
    lock.mkdir()
    (lock / "owner").write_bytes(_record(1, "", "elsewhere.example"))
    real_mkdir = os.mkdir

    def eperm(path: str, *args: object) -> None:
        if path == str(lock):
            raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))
        real_mkdir(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "mkdir", eperm)
    with pytest.raises(LockBusyError):
        acquire_lock(str(lock), 1)
