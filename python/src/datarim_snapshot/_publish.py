"""Bash twin: scripts/lib/datarim-publish.sh.

Atomic publish: a temp file written, synced and renamed over the target,
mode 600.

The temp file, ``tmp.<pid>.<random>``, is made inside the artefact's lock
``.lock.<ID>`` (lock.py) its writer holds: a writer killed before the rename
leaves it there, and the next writer, taking the lock over, removes it first,
so a lock never holds more than one however many writers die in a row.
"""

from __future__ import annotations

import os
import stat

from ._errors import RefusedError
from ._lock import check_lock_path, may_enter_and_write, random15, unlink_quietly


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
        if os.path.lexists(path) or not (os.path.isdir(parent) and may_enter_and_write(parent)):
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


def publish(directory: str, name: str, tag: str, content: bytes, sweep: bool = False) -> None:
    """Atomically replaces directory/name with content (mode 600). Call it holding
    the lock directory/.lock.<tag>; with sweep (the lock was just taken over
    from a dead writer) it first removes the temp files the dead writer left in
    the lock and the directory/.tmp.<tag>.* files that writers of earlier
    versions left in the directory."""
    lock = os.path.join(directory, f".lock.{tag}")
    if sweep:
        try:
            left = os.listdir(lock)
        except OSError:
            left = []
        for entry in left:
            path = os.path.join(lock, entry)
            if entry.startswith("tmp.") and os.path.isfile(path) and not os.path.islink(path):
                unlink_quietly(path)
        prefix = f".tmp.{tag}."
        try:
            entries = os.listdir(directory)
        except OSError:
            entries = []  # a directory we may write and search but not list (mode 300)
        for entry in entries:
            path = os.path.join(directory, entry)
            if entry.startswith(prefix) and os.path.isfile(path) and not os.path.islink(path):
                unlink_quietly(path)
    target = os.path.join(directory, name)
    shown = f"datarim/{os.path.basename(directory)}/{name}"
    check_target(directory, name)
    tmp = os.path.join(lock, f"tmp.{os.getpid()}.{random15()}")
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
        unlink_quietly(tmp)
        raise RefusedError(
            f"cannot write a temporary file in datarim/{os.path.basename(directory)}"
        ) from None
    try:
        if os.path.islink(target):
            os.unlink(target)
        os.replace(tmp, target)
    except OSError:
        unlink_quietly(tmp)
        raise RefusedError(f"cannot rename the temporary file over {shown}") from None
