"""A full disk, both implementations: exit 1 at once, one line, the lock removed.

The disk is a real one, a small tmpfs mounted for the test, so every write
fails as it would on a full disk (ENOSPC from the kernel, nothing injected):
- no free page: mkdir of the lock works (a directory takes no page on tmpfs)
  but the owner record cannot be written; the writer must neither wait out
  its lock timeout for "another writer" (exit 3) nor leave .lock.<ID>/owner;
- no free inode: mkdir of the lock itself fails;
- one free page: the owner record fits, the temporary file does not.
Mounting needs root (CAP_SYS_ADMIN); elsewhere the test is skipped, saying so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SESSION = "SESSION-20260521-134500"
STAMP = "2026-05-21T13:45:00Z"
PAGE = 4096
SESSION_BODY = "## Layer 1 \u2014 Git State\nnone\n\n## Layer 5 \u2014 Failed Approaches\nnone\n"


def _mount(where: Path, options: str) -> None:
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip() or 'not root'}")


@pytest.fixture
def disk() -> Iterator[Path]:
    """An empty 512 KiB tmpfs with at most 64 inodes."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    where = Path(tempfile.mkdtemp(prefix="datarim-full-"))
    _mount(where, "size=512k,nr_inodes=64,mode=755")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)
        shutil.rmtree(where, ignore_errors=True)


def _inputs(top: Path) -> dict[str, Path]:
    files = {
        "body": b"Plan ready.\n",
        "options": b"/dr-do TUNE-0254 | go\n",
        "answer": (
            REPO / "tests/conformance/suites/emit/writes-plain-block/in/answer.md"
        ).read_bytes(),
        "tasks": b"TUNE-0254 | in_progress\n",
        "session": SESSION_BODY.encode(),
    }
    paths = {}
    for name, data in files.items():
        paths[name] = top / f"{name}.in"
        paths[name].write_bytes(data)
    return paths


def _command(impl: str, kind: str, root: Path, inputs: dict[str, Path]) -> list[str]:
    tools = {
        "write": ("snapshot-writer-wrapper.sh", "write"),
        "emit": ("emit-stage-snapshot.sh", "emit"),
        "session-write": ("session-handoff-writer-wrapper.sh", "session-write"),
    }
    bash_tool, subcommand = tools[kind]
    head = (
        [str(REPO / "dev-tools" / bash_tool)]
        if impl == "bash"
        else [sys.executable, "-m", "datarim_snapshot", subcommand]
    )
    common = ["--root", str(root), "--captured-at", STAMP]
    if kind == "write":
        flags = ["--task", "TUNE-0254", "--stage", "plan", "--command", "/dr-plan",
                 "--captured-by", "agent", "--recommended-next", "/dr-do",
                 "--body-file", str(inputs["body"]),
                 "--options-file", str(inputs["options"])]  # fmt: skip
    elif kind == "emit":
        flags = ["--task", "TUNE-0032", "--stage", "plan", "--command", "/dr-plan",
                 "--response-file", str(inputs["answer"])]  # fmt: skip
    else:
        flags = ["--session", SESSION, "--captured-by", "agent", "--recommended-next", "/dr-do",
                 "--next-action", "go on", "--active-tasks-file", str(inputs["tasks"]),
                 "--body-file", str(inputs["session"])]  # fmt: skip
    return head + common + flags


def _run(impl: str, kind: str, root: Path, inputs: dict[str, Path]) -> tuple[int, bytes, bytes]:
    env = dict(
        os.environ,
        PYTHONPATH=str(REPO / "python" / "src"),
        PYTHONDONTWRITEBYTECODE="1",
        # Long enough that waiting it out cannot pass for exit 1.
        DR_SNAPSHOT_LOCK_TIMEOUT="20",
        DR_SESSION_LOCK_TIMEOUT="20",
    )
    done = subprocess.run(
        _command(impl, kind, root, inputs), capture_output=True, env=env, timeout=60, check=False
    )
    return done.returncode, done.stdout, done.stderr


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every entry under root/datarim: a file's bytes, None for a directory."""
    found: dict[str, bytes | None] = {}
    for path in sorted((root / "datarim").rglob("*")):
        found[str(path.relative_to(root))] = None if path.is_dir() else path.read_bytes()
    return found


def _fill_pages(disk: Path, leave: int = 0) -> None:
    """Fills every free page of the disk, then frees `leave` of them."""
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        while os.write(fd, b"\0" * PAGE) == PAGE:
            pass
    except OSError:
        pass  # ENOSPC: full
    finally:
        os.close(fd)
    # Each page's worth dropped from the end frees exactly one page.
    os.truncate(disk / "filler", max(os.path.getsize(disk / "filler") - leave * PAGE, 0))


def _fill_inodes(disk: Path) -> None:
    number = 0
    while True:
        try:
            (disk / f"inode.{number}").touch()
        except OSError:
            return
        number += 1


def _workspace(disk: Path) -> tuple[Path, dict[str, Path]]:
    """A workspace on the disk with a snapshot and a session artefact already
    written (what a failed write must leave as it was); inputs beside it."""
    root = disk / "ws"
    root.mkdir()
    (disk / "in").mkdir()
    inputs = _inputs(disk / "in")
    for kind in ("write", "emit", "session-write"):
        code, _, err = _run("bash", kind, root, inputs)
        assert code == 0, err
    return root, inputs


PROGRAMS = {"write": "snapshot-writer", "emit": "emit-stage-snapshot",
            "session-write": "session-handoff-writer"}  # fmt: skip
LOCKS = {"write": ".lock.TUNE-0254", "emit": ".lock.TUNE-0032", "session-write": f".lock.{SESSION}"}
DIRS = {"write": "snapshots", "emit": "snapshots", "session-write": "sessions"}
MESSAGES = {  # how full: the one line both implementations print
    "pages": "cannot record the owner of lock {lock}",
    "inodes": "cannot create lock {lock}",
    "one page": "cannot write a temporary file in datarim/{dir}",
}
EXPECTED = {
    (kind, fullness): f"{PROGRAMS[kind]}: {message}\n".format(lock=LOCKS[kind], dir=DIRS[kind])
    for kind in PROGRAMS
    for fullness, message in MESSAGES.items()
}


@pytest.mark.parametrize(("kind", "fullness"), list(EXPECTED))
def test_a_full_disk_fails_at_once_and_leaves_everything_as_it_was(
    disk: Path, kind: str, fullness: str
) -> None:
    root, inputs = _workspace(disk)
    before = _tree(root)
    if fullness == "inodes":
        _fill_inodes(disk)
    else:
        _fill_pages(disk, leave=1 if fullness == "one page" else 0)
    for impl in ("bash", "python"):
        outcome = _run(impl, kind, root, inputs)
        assert outcome == (1, b"", EXPECTED[kind, fullness].encode()), (impl, outcome)
        assert _tree(root) == before, impl  # no lock, no temp file, the old files whole


@pytest.mark.parametrize("kind", ["write", "emit", "session-write"])
def test_the_same_write_passes_once_there_is_room(disk: Path, kind: str) -> None:
    """The disk filled and freed again: both write (the test above can fail)."""
    root, inputs = _workspace(disk)
    _fill_pages(disk)
    (disk / "filler").unlink()
    for impl in ("bash", "python"):
        code, _, err = _run(impl, kind, root, inputs)
        assert code == 0, (impl, err)
