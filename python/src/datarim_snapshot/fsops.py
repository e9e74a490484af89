"""Filesystem steps shared by every writer: root resolution, the mkdir lock, atomic publish.

The lock protocol is the one of scripts/lib/datarim-common.sh (and of the
README's "Hardening" section), so a bash and a Python writer on the same
artefact exclude each other:

* the lock is a directory, ``<dir>/.lock.<ID>``, made with mkdir (atomic on
  every filesystem, NFS and SMB included, unlike flock); the writer holds it
  once it has also created ``<lock>/owner`` exclusively (O_EXCL) with its
  record ``pid=``, ``host=``, ``start=`` (the kernel's start time of the pid,
  when /proc has it) and ``impl=`` lines;
* a waiter polls every 20 ms until its timeout, then gives up with exit 3;
  meanwhile it takes over a provably orphaned lock: a complete record of a
  dead process on this host (moved aside, re-read, compared, then replaced
  exclusively by the waiter's own), or a lock that showed no complete record
  for ORPHAN_GRACE_SECONDS on end. Live owners and other hosts' are waited for;
* temp files are named ``.tmp.<ID>.<pid>.<random>`` and created only while
  holding the lock, so any such file seen by the holder is a dead writer's.
"""

from __future__ import annotations

import os
import stat
import sys
import time

from .errors import LockBusyError, RefusedError, UsageError
from .roots import is_knowledge_base
from .rules import pattern

# No random, socket, shutil or contextlib here: importing them would cost every
# write some 10 ms, more than the write itself (README "Speed").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO, Callable

POLL_SECONDS = 0.02
# A lock seen without a complete owner record for this long is orphaned.
ORPHAN_GRACE_SECONDS = 2.0
# Another tag's temp file this old is a dead writer's (find -mtime +0).
STALE_TEMP_SECONDS = 86400


STDIN = "-"  # an input flag's value that names the standard input


def require_readable(path: str, flag: str) -> None:
    """Raises RefusedError unless path can be read as an input file: STDIN (the
    standard input, when it is open), or a readable regular file, pipe or FIFO
    (/dev/stdin, <(...)) or character device."""
    if path == STDIN:
        if _stdin() is None:
            raise RefusedError(f"{flag} -: the standard input is closed")
        return
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        mode = 0
    kind_ok = stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)
    if not (kind_ok and os.access(path, os.R_OK)):
        raise RefusedError(f"{flag} is not a readable file")


def one_stdin(*flags: tuple[str, str | None]) -> None:
    """At most one input flag of a call may be STDIN (there is one standard
    input): raises UsageError naming every (flag, value) pair that is."""
    dashes = [flag for flag, value in flags if value == STDIN]
    if len(dashes) > 1:
        raise UsageError(
            " and ".join(dashes) + " read the standard input (-): at most one flag may"
        )


def _stdin() -> BinaryIO | None:
    """The standard input as bytes, unbuffered where it is the process's own
    fd 0 (so that what is not read stays where the shell twin leaves it);
    None when it is closed."""
    if sys.stdin is None:
        return None
    binary: Any = getattr(sys.stdin, "buffer", sys.stdin)
    raw: BinaryIO = getattr(binary, "raw", binary)
    return raw


class InputFile:
    """An input flag's file opened for reading (STDIN: the standard input,
    left open on exit); `with InputFile(path) as stream: ...`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.stream: BinaryIO | None = None

    def __enter__(self) -> BinaryIO:
        if self.path == STDIN:
            stream = _stdin()
            if stream is None:
                raise OSError("the standard input is closed")
            return stream
        self.stream = open(self.path, "rb", buffering=0)  # noqa: SIM115 (closed in __exit__)
        return self.stream

    def __exit__(self, *exc_info: object) -> None:
        if self.stream is not None:
            self.stream.close()


def read_up_to(stream: BinaryIO, limit: int) -> bytes:
    """At most limit bytes of stream, fewer only at its end."""
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = stream.read(left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def drain(stream: BinaryIO) -> None:
    """Reads a pipe, FIFO or socket to its end, throwing the bytes away, so that
    the program writing into it never dies of SIGPIPE; a file is left as it is."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError):
        return  # no descriptor (an in-memory stream): nothing is waiting to write
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        while stream.read(65536):
            pass


def read_input(path: str, limit: int) -> bytes:
    """At most limit bytes of an input file (STDIN: the standard input). Only
    those are kept; a pipe is then read to its end (see drain)."""
    with InputFile(path) as stream:
        data = read_up_to(stream, limit)
        if len(data) >= limit:
            drain(stream)
    return data


def seconds_env(name: str, default: int) -> int:
    """A whole number of seconds from the environment (unset or empty: default)."""
    value = os.environ.get(name, "")
    if value == "":
        return default
    if not value.isascii() or not value.isdigit() or len(value) > 9:
        raise UsageError(f"{name} must be a whole number of seconds")
    return int(value)


def resolve_root(root: str) -> str:
    """The physical absolute root; refuses one inside a knowledge base's own datarim/."""
    if not os.path.isdir(root):
        raise RefusedError("--root is not a directory")
    try:
        # Searchable too (the shell twin cd's into it): "root/." resolves only then.
        os.stat(os.path.join(root, "."))
    except OSError:
        raise RefusedError("--root is not a directory") from None
    try:
        os.getcwd()
    except OSError:
        # The shell twin resolves the root with cd and back; from a deleted
        # working directory there is no way back, and it refuses.
        raise RefusedError("cannot return to the working directory") from None
    absolute = os.path.realpath(root)
    part = absolute
    while part not in ("", "/"):
        if os.path.basename(part) == "datarim" and is_knowledge_base(part):
            raise RefusedError(
                "--root lies inside a knowledge base's datarim/ directory; pass the workspace root"
            )
        part = os.path.dirname(part)
    return absolute


def new_knowledge_base(root: str) -> str | None:
    """The physical <root>/datarim when it holds no knowledge base yet, so that a
    write starts one there (often the sign of a mistaken --root); else None.
    Quiet: a root that cannot be resolved is for the write to report."""
    try:
        datarim = os.path.join(resolve_root(root), "datarim")
    except RefusedError:
        return None
    return None if is_knowledge_base(datarim) else datarim


def new_knowledge_base_notice(datarim: str) -> str:
    """The one line a writer says after starting a knowledge base."""
    return f"created a new knowledge base in {datarim} (is --root right?)"


def artifact_dir(path: str, create: bool = True) -> None:
    """Refuses a symlink standing in for path; creates it as 700 when missing.
    With create False (a dry run) only refuses what the write would refuse: a
    symlink, something that is no directory, or a missing path whose nearest
    existing parent we may not write in or search."""
    name = os.path.basename(path)
    if os.path.islink(path):
        raise RefusedError(f"datarim/{name} is a symlink; refusing to write through it")
    if os.path.isdir(path):
        return
    if not create:
        parent = os.path.dirname(path)
        if not os.path.lexists(parent):
            parent = os.path.dirname(parent)
        if os.path.lexists(path) or not (os.path.isdir(parent) and _may_enter_and_write(parent)):
            raise RefusedError(f"cannot create datarim/{name}")
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.mkdir(path, 0o700)
        os.chmod(path, 0o700)
    except OSError:
        if os.path.isdir(path) and not os.path.islink(path):
            return  # a concurrent writer made it
        raise RefusedError(f"cannot create datarim/{name}") from None


def _may_enter_and_write(path: str) -> bool:
    """We may search path and create entries in it (test -w and -x, effective ids)."""
    mode = os.W_OK | os.X_OK
    if os.access in os.supports_effective_ids:
        return os.access(path, mode, effective_ids=True)
    return os.access(path, mode)


def check_publish(directory: str, name: str, lock: str) -> None:
    """What a write would refuse before writing a byte, checked without touching
    anything (a dry run): the directory, the lock path and the target."""
    artifact_dir(directory, create=False)
    if os.path.isdir(directory):  # else made fresh by the write: nothing in it to refuse
        check_lock_path(lock)
        check_target(directory, name)


def check_target(directory: str, name: str) -> None:
    """Refuses a directory standing at directory/name, which no rename may replace."""
    try:
        if stat.S_ISDIR(os.lstat(os.path.join(directory, name)).st_mode):
            raise RefusedError(f"datarim/{os.path.basename(directory)}/{name} is a directory")
    except FileNotFoundError:
        pass


def read_prefix(path: str, limit: int) -> bytes:
    """At most limit bytes of path: only the part a writer may keep is ever read."""
    chunks: list[bytes] = []
    left = limit
    with open(path, "rb") as handle:
        while left > 0:
            chunk = handle.read(left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    return b"".join(chunks)


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
    when an owner file is already there or the lock is gone. OSError otherwise,
    also when the file was made but could not be written (a full disk): it is
    removed again, never left as an empty record."""
    path = os.path.join(lock, "owner")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    except OSError:
        if os.path.lexists(path) or not os.path.isdir(lock):
            return False
        raise
    try:
        view = memoryview(record)
        while view:
            view = view[os.write(fd, view) :]
    except OSError:
        os.close(fd)
        _unlink_quietly(path)
        raise
    os.close(fd)
    return True


_RECORD = rb"pid=([1-9][0-9]{0,9})\nhost=([^\n]*)\nstart=([0-9]*)\nimpl=[^\n]+\n\Z"


def _put_back(lock: str, aside: str) -> None:
    """Links a moved-aside record back as the owner file (never over one: link
    fails when the name is taken), then drops the aside name."""
    quietly(os.link, aside, os.path.join(lock, "owner"))
    _unlink_quietly(aside)


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
        # one killed there. Time how long the very same state lasts.
        state = b"missing" if seen is None else b"file:" + seen
        now = time.monotonic()
        if state != self.seen:
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

    def __enter__(self) -> None:
        acquire_lock(self.lock, self.timeout)

    def __exit__(self, *exc_info: object) -> None:
        release_lock(self.lock)


def held_lock(lock: str, timeout: int) -> _HeldLock:
    """Holds the lock for the with-block; LockBusyError after timeout seconds.
    A live writer's lock is never broken; an orphaned one is taken over."""
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
    if not os.path.isdir(lock) and not _may_enter_and_write(os.path.dirname(lock)):
        raise RefusedError(f"cannot create lock {name}")


def acquire_lock(lock: str, timeout: int) -> None:
    deadline = time.monotonic() + timeout
    name = os.path.basename(lock)
    record = owner_record()
    recovery = _Recovery(lock, record)
    while True:
        try:
            os.mkdir(lock, 0o700)
        except FileExistsError:
            # Never lock through a symlink, nor wait for a file that is no lock.
            check_lock_path(lock)
            try:
                if recovery.attempt():
                    return
            except OSError:
                # An orphaned lock taken over, our owner file not written.
                quietly(os.rmdir, lock)
                raise RefusedError(f"cannot record the owner of lock {name}") from None
        except OSError:
            raise RefusedError(f"cannot create lock {name}") from None
        else:
            quietly(os.chmod, lock, 0o700)
            try:
                if commit_lock(lock, record):
                    return
            except OSError:
                quietly(os.rmdir, lock)
                raise RefusedError(f"cannot record the owner of lock {name}") from None
            # A waiter took our fresh lock over before we wrote the owner (we
            # stalled for the grace period); it is theirs now.
        if time.monotonic() >= deadline:
            raise LockBusyError(
                f"lock busy: another writer holds {name} (waited {timeout} s); retry later"
            )
        time.sleep(POLL_SECONDS)


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


def publish(directory: str, name: str, tag: str, content: bytes) -> None:
    """Atomically replaces directory/name with content (mode 600). Call it holding the lock."""
    prefix = f".tmp.{tag}."
    try:
        entries = os.listdir(directory)
    except OSError:
        # A directory we may write and search but not list (mode 300): no
        # sweep, as the shell glob finds nothing there; the write goes on.
        entries = []
    for entry in entries:
        if entry.startswith(prefix):
            _unlink_quietly(os.path.join(directory, entry))
        elif entry.startswith(".tmp."):
            # Other tags' temp files are live writers' or dead ones'; a day
            # old, they are dead (session IDs are new every session).
            path = os.path.join(directory, entry)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and time.time() - info.st_mtime >= STALE_TEMP_SECONDS:
                _unlink_quietly(path)
    target = os.path.join(directory, name)
    shown = f"datarim/{os.path.basename(directory)}/{name}"
    check_target(directory, name)
    tmp = os.path.join(directory, f"{prefix}{os.getpid()}.{random15()}")
    try:
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600
        )
        try:
            os.fchmod(fd, 0o600)
            view = memoryview(content)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        _unlink_quietly(tmp)
        raise RefusedError(
            f"cannot write a temporary file in datarim/{os.path.basename(directory)}"
        ) from None
    try:
        if os.path.islink(target):
            os.unlink(target)
        os.replace(tmp, target)
    except OSError:
        _unlink_quietly(tmp)
        raise RefusedError(f"cannot rename the temporary file over {shown}") from None


def quietly(action: Callable[..., object], *args: object) -> None:
    """action(*args), an OSError ignored (contextlib.suppress would cost an import)."""
    try:  # noqa: SIM105
        action(*args)
    except OSError:
        pass


def _unlink_quietly(path: str) -> None:
    quietly(os.unlink, path)
