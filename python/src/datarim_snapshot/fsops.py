"""Filesystem steps shared by every writer: root resolution, the mkdir lock, atomic publish.

The lock protocol is the one of scripts/lib/datarim-common.sh, so a bash and a
Python writer on the same artefact exclude each other:

* the lock is a directory, ``<dir>/.lock.<ID>``, taken with mkdir (atomic on
  every filesystem, NFS and SMB included, unlike flock);
* the holder writes ``<lock>/owner`` with lines ``pid=``, ``host=``,
  ``start=`` (the kernel's start time of the pid, when /proc has it) and
  ``impl=``, so a later writer can tell a dead holder from a live one;
* a waiter polls every 20 ms until its timeout, then gives up with exit 3;
* temp files are named ``.tmp.<ID>.<pid>.<random>`` and created only while
  holding the lock, so any such file seen by the holder is a dead writer's.
"""

from __future__ import annotations

import os
import random
import socket
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from .errors import LockBusyError, RefusedError, UsageError

POLL_SECONDS = 0.02


def seconds_env(name: str, default: int) -> int:
    """A whole number of seconds from the environment (unset or empty: default)."""
    value = os.environ.get(name, "")
    if value == "":
        return default
    if not value.isascii() or not value.isdigit() or len(value) > 9:
        raise UsageError(f"{name} must be a whole number of seconds")
    return int(value)


def is_knowledge_base(path: str) -> bool:
    return (
        os.path.exists(os.path.join(path, "activeContext.md"))
        or os.path.exists(os.path.join(path, "tasks.md"))
        or any(os.path.isdir(os.path.join(path, d)) for d in ("tasks", "snapshots", "sessions"))
    )


def resolve_root(root: str) -> str:
    """The physical absolute root; refuses one inside a knowledge base's own datarim/."""
    if not os.path.isdir(root):
        raise RefusedError("--root is not a directory")
    absolute = os.path.realpath(root)
    part = absolute
    while part not in ("", "/"):
        if os.path.basename(part) == "datarim" and is_knowledge_base(part):
            raise RefusedError(
                "--root lies inside a knowledge base's datarim/ directory; pass the workspace root"
            )
        part = os.path.dirname(part)
    return absolute


def artifact_dir(path: str) -> None:
    """Refuses a symlink standing in for path; creates it as 700 when missing."""
    name = os.path.basename(path)
    if os.path.islink(path):
        raise RefusedError(f"datarim/{name} is a symlink; refusing to write through it")
    if os.path.isdir(path):
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.mkdir(path, 0o700)
        os.chmod(path, 0o700)
    except OSError:
        if os.path.isdir(path) and not os.path.islink(path):
            return  # a concurrent writer made it
        raise RefusedError(f"cannot create datarim/{name}") from None


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
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read().decode("ascii", "replace")
    except OSError:
        return ""
    fields = data.rsplit(") ", 1)[-1].split()
    return fields[19] if len(fields) >= 20 else ""


@contextmanager
def held_lock(lock: str, timeout: int) -> Iterator[None]:
    """Holds the mkdir lock for the with-block; LockBusyError after timeout seconds."""
    deadline = time.monotonic() + timeout
    name = os.path.basename(lock)
    while True:
        try:
            os.mkdir(lock, 0o700)
            break
        except FileExistsError:
            pass
        except OSError:
            raise RefusedError(f"cannot create lock {name}") from None
        if time.monotonic() >= deadline:
            raise LockBusyError(
                f"lock busy: another writer holds {name} (waited {timeout} s); retry later"
            )
        time.sleep(POLL_SECONDS)
    try:
        os.chmod(lock, 0o700)
        pid = os.getpid()
        owner = f"pid={pid}\nhost={socket.gethostname()}\nstart={process_start(pid)}\nimpl=python\n"
        with open(os.path.join(lock, "owner"), "w", encoding="utf-8") as handle:
            handle.write(owner)
    except OSError:
        pass
    try:
        yield
    finally:
        release_lock(lock)


def release_lock(lock: str) -> None:
    try:
        for entry in os.listdir(lock):
            os.unlink(os.path.join(lock, entry))
        os.rmdir(lock)
    except OSError:
        pass


def publish(directory: str, name: str, tag: str, content: bytes) -> None:
    """Atomically replaces directory/name with content (mode 600). Call it holding the lock."""
    prefix = f".tmp.{tag}."
    for entry in os.listdir(directory):
        if entry.startswith(prefix):
            with suppress(OSError):
                os.unlink(os.path.join(directory, entry))
    target = os.path.join(directory, name)
    shown = f"datarim/{os.path.basename(directory)}/{name}"
    try:
        if stat.S_ISDIR(os.lstat(target).st_mode):
            raise RefusedError(f"{shown} is a directory")
    except FileNotFoundError:
        pass
    tmp = os.path.join(directory, f"{prefix}{os.getpid()}.{random.randrange(32768)}")
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


def _unlink_quietly(path: str) -> None:
    with suppress(OSError):
        os.unlink(path)
