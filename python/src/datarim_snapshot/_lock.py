"""Bash twin: scripts/lib/datarim-lock.sh.

The mkdir lock every writer holds while it publishes.

The protocol (docs/lock-protocol.md) is the same in both implementations, so
a bash and a Python writer on the same artefact exclude each other:

* the lock is a directory, ``<dir>/.lock.<ID>``, made with mkdir (atomic on
  every filesystem, NFS and SMB included, unlike flock); the writer holds it
  once it has also created ``<lock>/owner`` exclusively (O_EXCL) with its
  record ``pid=``, ``host=``, ``start=`` (the kernel's start time of the pid,
  when /proc has it) and ``impl=`` lines;
* a waiter polls every 20 to 120 ms (backing off, with jitter) until its
  timeout, then gives up with exit 3;
  meanwhile it takes over a provably orphaned lock: a complete record of a
  dead process on this host (moved aside, re-read, compared, then replaced
  exclusively by the waiter's own), or a lock that showed no complete record
  for ORPHAN_GRACE_SECONDS on end (looks at most that long apart).
  Live owners and other hosts' are waited for.
"""

from __future__ import annotations

import errno
import os
import stat
import time

from ._errors import LockBusyError, RefusedError, quietly
from ._rules import pattern

# No random, socket, shutil or contextlib here: importing them would cost every
# write some 10 ms, more than the write itself (docs/performance.md).

POLL_SECONDS = 0.02  # the shortest wait between two polls
MAX_SPREAD_MS = 100  # the most a poll's random extra wait grows to
# A lock seen without a complete owner record for this long (by looks at most
# this long apart) is orphaned.
ORPHAN_GRACE_SECONDS = 2.0


def process_start(pid: int) -> str:
    """The kernel's start time of pid (field 22 of /proc/<pid>/stat), or ""."""
    fields = _proc_stat_fields(pid)
    return fields[19] if fields is not None and len(fields) >= 20 else ""


def _proc_stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after "(comm) " (state first); None without one."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read().decode("ascii", "replace")
    except OSError:
        return None
    return data.rsplit(") ", 1)[-1].split()


def host_name() -> str:
    """The kernel's host name: uname's nodename, what socket.gethostname() returns."""
    return os.uname().nodename


def random15() -> int:
    """A random number in 0..32767, as bash's $RANDOM gives."""
    return int.from_bytes(os.urandom(2), "big") & 0x7FFF


def owner_alive(pid: int, start: str) -> bool:
    """False when pid is provably gone: no such process, a zombie, or the pid now
    names a process with another start time. True when it may be alive."""
    if os.path.isdir("/proc/self"):
        fields = _proc_stat_fields(pid)
        if fields is None or (fields and fields[0] == "Z"):
            return False
        return not start or len(fields) < 20 or fields[19] == start
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False  # OverflowError: a pid past what the system can have
    except OSError:
        return True  # EPERM: another user's live process
    return True


def owner_record(impl: str = "python") -> bytes:
    """This process's owner record, the bytes of <lock>/owner."""
    pid = os.getpid()
    return f"pid={pid}\nhost={host_name()}\nstart={process_start(pid)}\nimpl={impl}\n".encode()


NOT_REGULAR = b"<not a regular file>"


def read_lock_file(path: str) -> bytes | None:
    """A lock file's bytes (at most 512); None when there is none. Anything but a
    regular file (a FIFO would block the read, a symlink lead elsewhere) is
    never read: NOT_REGULAR; a NUL ends the bytes with "\\n<NUL>". Neither
    passes for a record (the bash twin reads them the same way)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError:
        return NOT_REGULAR if os.path.lexists(path) else None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return NOT_REGULAR
        data = os.read(fd, 512)
    except OSError:
        return NOT_REGULAR
    finally:
        os.close(fd)
    nul = data.find(b"\0")
    return data if nul < 0 else data[:nul] + b"\n<NUL>"


def read_owner(lock: str) -> bytes | None:
    """read_lock_file of <lock>/owner."""
    return read_lock_file(os.path.join(lock, "owner"))


def _remove_entry(path: str) -> None:
    """Removes a file, a symlink (not what it points to) or a directory tree."""
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            import shutil  # only for a directory someone left in a lock

            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass


def commit_lock(lock: str, record: bytes) -> bool:
    """Creates <lock>/owner exclusively: True when the lock is now ours, False
    when an owner file is already there (a lost race, which a network
    filesystem may report as EPERM rather than EEXIST) or the lock directory
    is gone (another host's removal that this host's cached view still hides
    shows as ENOENT). OSError otherwise, also when the file was made but could
    not be written (a full disk): it is removed again, never left as an empty
    record."""
    path = os.path.join(lock, "owner")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except (FileExistsError, FileNotFoundError):
        return False
    except OSError as exc:
        if exc.errno == errno.EPERM or os.path.lexists(path) or not os.path.isdir(lock):
            return False
        raise
    try:
        view = memoryview(record)
        while view:
            view = view[os.write(fd, view) :]
    except OSError:
        os.close(fd)
        unlink_quietly(path)
        raise
    os.close(fd)
    return True


_RECORD = rb"pid=([1-9][0-9]{0,9})\nhost=([^\n]*)\nstart=([0-9]*)\nimpl=[^\n]+\n\Z"


def _put_back(lock: str, aside: str) -> None:
    """Links a moved-aside record back as the owner file (never over one: link
    fails when the name is taken), then drops the aside name."""
    quietly(os.link, aside, os.path.join(lock, "owner"))
    unlink_quietly(aside)


def take_over(lock: str, record: bytes, seen: bytes) -> bool:
    """Moves the owner file aside; if it still holds seen, deletes it and commits
    record, else puts it back. True when the lock is now ours; OSError when our
    owner file could not be written."""
    owner = os.path.join(lock, "owner")
    aside = os.path.join(lock, f"owner.aside.{os.getpid()}.{random15()}")
    try:
        os.rename(owner, aside)
    except OSError:
        return False
    if read_lock_file(aside) != seen:
        # Not the record we judged: a live writer's. Give it back.
        _put_back(lock, aside)
        return False
    _remove_entry(aside)
    return commit_lock(lock, record)  # OSError: ours to report (acquire_lock)


def restore_asides(lock: str, host: bytes) -> bool:
    """A lock without an owner file may hold a record a waiter moved aside and
    did not put back (killed, or paused, in the take-over). A complete record
    of a process that may be alive (or of another host) goes back as the
    owner; anything else is dropped. True when a record was put back."""
    try:
        names = [n for n in os.listdir(lock) if n.startswith("owner.aside.")]
    except OSError:
        return False
    restored = False
    for name in sorted(names):
        aside = os.path.join(lock, name)
        seen = read_lock_file(aside)
        if seen is None:
            continue
        match = pattern(_RECORD).match(seen)
        if match and (
            not host
            or match.group(2) != host
            or owner_alive(int(match.group(1)), match.group(3).decode())
        ):
            _put_back(lock, aside)
            restored = True
        else:
            _remove_entry(aside)
    return restored


class _Recovery:
    """What a waiter saw of a lock it could not make, across its polls."""

    def __init__(self, lock: str, record: bytes) -> None:
        self.lock = lock
        self.record = record
        self.seen: bytes | None = None
        self.since = 0.0
        self.last = 0.0

    def attempt(self) -> bool:
        """One look at the lock; True when it was orphaned and is now ours."""
        seen = read_owner(self.lock)
        host = host_name().encode()
        if seen is not None:
            match = pattern(_RECORD).match(seen)  # re loads only when a lock is contested
            if match:
                self.seen = None
                # Another host's writer (shared filesystem) or a live one: only wait.
                if not host or match.group(2) != host:
                    return False
                if owner_alive(int(match.group(1)), match.group(3).decode()):
                    return False
                return take_over(self.lock, self.record, seen)
        elif restore_asides(self.lock, host):
            # A live writer's record moved aside by a waiter that died or
            # stalled there: put back rather than counted as an ownerless lock.
            self.seen = None
            return False
        # No complete record: a writer between mkdir and its owner file, or
        # one killed there. Time how long the very same state lasts on end. A
        # look more than the grace after the one before (this waiter was
        # stopped or starved meanwhile) saw nothing of the gap, where a live
        # writer's record may have stood all along: it starts the watch again.
        state = b"missing" if seen is None else b"file:" + seen
        now = time.monotonic()
        last, self.last = self.last, now
        if state != self.seen or now - last > ORPHAN_GRACE_SECONDS:
            self.seen = state
            self.since = now
            return False
        if now - self.since < ORPHAN_GRACE_SECONDS:
            return False
        self.seen = None
        if seen is None:
            return commit_lock(self.lock, self.record)
        return take_over(self.lock, self.record, seen)


class _HeldLock:
    __slots__ = ("lock", "timeout")

    def __init__(self, lock: str, timeout: int) -> None:
        self.lock = lock
        self.timeout = timeout

    def __enter__(self) -> bool:
        return acquire_lock(self.lock, self.timeout)

    def __exit__(self, *exc_info: object) -> None:
        release_lock(self.lock)


def held_lock(lock: str, timeout: int) -> _HeldLock:
    """Holds the lock for the with-block (``as`` gives True when it was orphaned
    and taken over); LockBusyError after timeout seconds. A live writer's lock
    is never broken; an orphaned one is taken over."""
    return _HeldLock(lock, timeout)


def _not_a_lock(lock: str) -> bool:
    """lock is a symlink or something else that is no directory (one lstat, so
    a lock released meanwhile is no match)."""
    try:
        return not stat.S_ISDIR(os.lstat(lock).st_mode)
    except OSError:
        return False


def check_lock_path(lock: str) -> None:
    """Refuses a lock path we must never wait for (dr_lock_path_ok): a symlink or
    a file that is no lock, or no lock at all in a directory we may not create it
    in. A dry run asks before any mkdir; acquire_lock meets the same on its own."""
    name = os.path.basename(lock)
    if _not_a_lock(lock):
        raise RefusedError(f"lock {name} is a symlink or not a directory; remove it")
    if not os.path.isdir(lock) and not may_enter_and_write(os.path.dirname(lock)):
        raise RefusedError(f"cannot create lock {name}")


def _make_lock(lock: str, lost: int) -> bool | None:
    """mkdir of the lock: True made, False one is there, None look again: EPERM,
    how a network filesystem (sshfs) may report a mkdir another writer won,
    while no lock is seen (lost earlier EPERMs in a row before this one; from
    the fourth it is final). OSError for any other failure."""
    try:
        os.mkdir(lock, 0o700)
    except FileExistsError:
        return False
    except PermissionError as exc:
        if exc.errno != errno.EPERM or lost >= 3:
            raise
        return False if os.path.isdir(lock) else None
    return True


def acquire_lock(lock: str, timeout: int) -> bool:
    """Takes the lock, polling every 20 to 120 ms (backing off, with jitter);
    True when it was orphaned and taken over, False when made afresh."""
    deadline = time.monotonic() + timeout
    name = os.path.basename(lock)
    record = owner_record()
    recovery = _Recovery(lock, record)
    lost = spread = 0
    while True:
        try:
            made = _make_lock(lock, lost)
        except OSError:
            raise RefusedError(f"cannot create lock {name}") from None
        lost = lost + 1 if made is None else 0
        if made is False:
            # Never lock through a symlink, nor wait for a file that is no lock.
            check_lock_path(lock)
            try:
                if recovery.attempt():
                    return True
            except OSError:
                # An orphaned lock taken over, our owner file not written.
                quietly(os.rmdir, lock)
                raise RefusedError(f"cannot record the owner of lock {name}") from None
        elif made:
            quietly(os.chmod, lock, 0o700)
            try:
                if commit_lock(lock, record):
                    return False
            except OSError:
                quietly(os.rmdir, lock)
                raise RefusedError(f"cannot record the owner of lock {name}") from None
            # A waiter took our fresh lock over before we wrote the owner (we
            # stalled for the grace period); it is theirs now.
        if time.monotonic() >= deadline:
            raise LockBusyError(
                f"lock busy: another writer holds {name} (waited {timeout} s); retry later"
            )
        # 20 ms plus a random part up to a spread that about doubles with each
        # poll to 100 ms: many waiters spread their polls over time rather
        # than all retry at once.
        time.sleep(POLL_SECONDS + random15() % (spread + 1) / 1000)
        spread = min(spread * 2 + 10, MAX_SPREAD_MS)


def release_lock(lock: str) -> None:
    """Removes the lock with whatever is in it; tries again when a waiter that had
    moved our owner file aside puts it back meanwhile. A symlink standing in for
    the lock is never followed."""
    for _ in range(3):
        try:
            if not stat.S_ISDIR(os.lstat(lock).st_mode):
                return
            for entry in os.listdir(lock):
                _remove_entry(os.path.join(lock, entry))
            os.rmdir(lock)
            return
        except FileNotFoundError:
            return
        except OSError:
            continue


def may_enter_and_write(path: str) -> bool:
    """We may search path and create entries in it (test -w and -x, effective ids)."""
    mode = os.W_OK | os.X_OK
    if os.access in os.supports_effective_ids:
        return os.access(path, mode, effective_ids=True)
    return os.access(path, mode)


def unlink_quietly(path: str) -> None:
    quietly(os.unlink, path)
