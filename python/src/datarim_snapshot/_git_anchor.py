"""Bash twin: scripts/lib/git-anchor.sh (+ git-anchor.awk).

Git anchoring of stage snapshots (docs/replay.md, the drift notice).

The writer records where the code stood (HEAD, branch, dirty) as optional
frontmatter fields after ``truncated``; on replay, a notice says when HEAD has
moved on since (git_drift.py). ``DATARIM_SNAPSHOT_GIT=0`` turns all of it off
(no git call).
"""

from __future__ import annotations

import os

from ._errors import DatarimError
from ._records import Record
from ._roots import writer_root
from ._rules import utf8_scan, yaml_quote

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

FIELDS = ("git_head", "git_branch", "git_dirty")
_HEX = b"0123456789abcdef"
# What a calling git hook may leave in the environment; the probe must look at
# the repository of the workspace root, not the hook's.
_GIT_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
)


# The most index entries whose dirtiness a snapshot write checks (spec §11):
# telling dirty from clean stats every tracked file, 130-340 ms in a 50,000-file
# work tree against a 25 ms write (docs/performance.md). Bash: git_anchor_index_large.
DIRTY_CHECK_LIMIT = 10000


class Anchor(Record):
    __slots__ = ("head", "branch", "dirty")

    def __init__(self, head: bytes, branch: bytes, dirty: bool | None) -> None:
        self.head = head
        self.branch = branch  # empty: HEAD was detached
        self.dirty = dirty  # None: not checked (the index is over DIRTY_CHECK_LIMIT)


def field_rank(key: str) -> int:
    """Rank of an anchor field in the writer's order (1..3), 0 for another key."""
    return FIELDS.index(key) + 1 if key in FIELDS else 0


def sha_ok(value: bytes) -> bool:
    """A full commit ID: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits."""
    return len(value) in (40, 64) and not value.translate(None, _HEX)


def branch_ok(value: bytes) -> bool:
    """A branch name fit for the frontmatter: one line of UTF-8, no control character."""
    return bool(value) and utf8_scan(value, ctl=True) == ""


def frontmatter(anchor: Anchor | None) -> bytes:
    """The anchor's frontmatter lines; b"" without an anchor or a commit ID.
    A branch that cannot be written as one clean line is left out."""
    if anchor is None or not sha_ok(anchor.head):
        return b""
    lines = b"git_head: " + anchor.head + b"\n"
    if anchor.branch and branch_ok(anchor.branch):
        lines += b"git_branch: " + yaml_quote(anchor.branch) + b"\n"
    if anchor.dirty is None:
        return lines
    return lines + b"git_dirty: " + (b"true" if anchor.dirty else b"false") + b"\n"


def work_tree(root: str, forced: bool = False) -> str | None:
    """The physical root when it or a directory above it holds a .git entry,
    looking no higher than git would under GIT_CEILING_DIRECTORIES; else None.
    DATARIM_SNAPSHOT_GIT=0 makes it None unless forced (an operator's --git-state)."""
    found = _work_tree_top(root, forced)
    return None if found is None else found[0]


def _work_tree_top(root: str, forced: bool) -> tuple[str, str] | None:
    """work_tree's answer and the directory whose .git entry it found."""
    if os.environ.get("DATARIM_SNAPSHOT_GIT") == "0" and not forced:
        return None
    try:
        physical = writer_root(root)
    except DatarimError:
        return None
    ceilings = os.environ.get("GIT_CEILING_DIRECTORIES", "").split(":")
    directory = physical
    while True:
        if os.path.lexists(directory + "/.git"):
            return physical, directory
        if directory in ("", "/"):
            return None
        directory = directory.rsplit("/", 1)[0]
        if (directory or "/") in ceilings:
            return None


class GitTimeout(Exception):
    """git did not answer within git_seconds()."""


def git_seconds() -> int:
    """How long one git call may take: DATARIM_GIT_TIMEOUT whole seconds (1 and
    up; default, or anything else, 4)."""
    value = os.environ.get("DATARIM_GIT_TIMEOUT", "")
    if not value.isascii() or not value.isdigit() or value.startswith("0") or len(value) > 4:
        return 4
    return int(value)


def git_output(directory: str, *args: str) -> bytes | None:
    """git's stdout on the repository of directory, or None when it fails;
    GitTimeout when it runs past git_seconds() (a hook has a deadline: a hung
    git must not cost the resume). git starts through os.posix_spawnp: the
    subprocess module (with selectors and threading) costs a write in a git work
    tree more to import than git takes to answer."""
    env: Mapping[str, str] = {k: v for k, v in os.environ.items() if k not in _GIT_ENV}
    argv = ["git", "-C", directory, "--no-optional-locks", *args]
    if not hasattr(os, "posix_spawnp"):
        return _git_output_subprocess(argv, env)
    read_fd, write_fd = os.pipe()
    if min(read_fd, write_fd) <= 2:  # a standard stream was closed: keep it simple
        os.close(read_fd)
        os.close(write_fd)
        return _git_output_subprocess(argv, env)
    try:
        # The pipe's ends are close-on-exec; git gets the write end as its stdout.
        pid = os.posix_spawnp(
            "git", argv, env,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, write_fd, 1),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ],
        )  # fmt: skip
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    os.close(write_fd)
    try:
        out, status = _git_collect(pid, read_fd, git_seconds())
    finally:
        os.close(read_fd)
    if status is None:
        raise GitTimeout
    return out if status == 0 else None


def _git_collect(pid: int, fd: int, seconds: int) -> tuple[bytes, int | None]:
    """Reads git's stdout to its end and waits for it, for at most seconds; past
    them kills it (SIGKILL, as subprocess.run's timeout does): status None."""
    import select
    import time

    deadline = time.monotonic() + seconds
    chunks = []
    while True:
        left = deadline - time.monotonic()
        if left > 0 and select.select([fd], [], [], left)[0]:
            data = os.read(fd, 65536)
            if data:
                chunks.append(data)
                continue
            break
        if time.monotonic() >= deadline:
            return _git_kill(pid), None
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return b"".join(chunks), os.waitstatus_to_exitcode(status)
        if time.monotonic() >= deadline:
            return _git_kill(pid), None
        time.sleep(0.001)


def _git_kill(pid: int) -> bytes:
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        return b""  # gone (and reaped) already
    os.waitpid(pid, 0)
    return b""


def _git_output_subprocess(argv: list[str], env: Mapping[str, str]) -> bytes | None:
    """git_output through subprocess, where os.posix_spawnp is missing."""
    code, out = run_git(argv, env)
    return out if code == 0 else None


def run_git(argv: list[str], env: Mapping[str, str], stdin: bytes = b"") -> tuple[int, bytes]:
    """A git command line through subprocess, fed stdin, its stderr silenced: (exit
    code, stdout); 127 when it cannot start. GitTimeout when it runs past git_seconds()."""
    import subprocess  # here: a command that runs no git never pays for it

    try:
        done = subprocess.run(
            argv,
            input=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            check=False,
            timeout=git_seconds(),
        )
    except subprocess.TimeoutExpired:
        raise GitTimeout from None
    except OSError:
        return 127, b""
    return done.returncode, done.stdout


def index_large(top: str) -> bool:
    """Whether the index of the work tree whose .git entry is in top lists more
    than DIRTY_CHECK_LIMIT entries (its header: b"DIRC", version, entry count,
    big-endian). A .git file names the git directory ("gitdir: <path>",
    relative to top or absolute). An index that cannot be read is small."""
    git_dir = top + "/.git"
    try:
        if os.path.isfile(git_dir):
            with open(git_dir, "rb") as pointer:
                line = pointer.readline().rstrip(b"\n")
            if not line.startswith(b"gitdir: "):
                return False
            git_dir = os.path.join(top, os.fsdecode(line[len(b"gitdir: ") :]))
        if not os.path.isfile(git_dir + "/index"):
            return False
        with open(git_dir + "/index", "rb") as index:
            header = index.read(12)
    except (OSError, ValueError):
        return False
    return (
        len(header) == 12
        and header.startswith(b"DIRC")
        and int.from_bytes(header[8:], "big") > DIRTY_CHECK_LIMIT
    )


def head(directory: str) -> tuple[bytes, bytes] | None:
    """HEAD and its branch from `git rev-parse HEAD --symbolic-full-name HEAD`:
    the commit, then refs/heads/<branch> (anything else: detached, b""). None
    when HEAD is no commit yet or git fails; GitTimeout when git runs past
    git_seconds(). Bash twin: git_anchor_head."""
    out = git_output(directory, "rev-parse", "HEAD", "--symbolic-full-name", "HEAD")
    if out is None:
        return None
    commit, _, ref = out.rstrip(b"\n").partition(b"\n")
    return commit, ref[len(b"refs/heads/") :] if ref.startswith(b"refs/heads/") else b""


def _head_unchecked(directory: str) -> Anchor | None:
    """HEAD and its branch, dirtiness not checked; None when HEAD is no commit
    yet or git fails or times out."""
    try:
        found = head(directory)
    except GitTimeout:
        return None
    return None if found is None else Anchor(*found, None)


def probe(root: str, forced: bool = False, full: bool = False) -> Anchor | None:
    """Where the code of root's git work tree stands: HEAD, its branch, and whether
    anything outside root/datarim/ differs from HEAD (untracked files included;
    None, not checked, when the index lists more than DIRTY_CHECK_LIMIT entries,
    unless full). forced: even under DATARIM_SNAPSHOT_GIT=0."""
    found = _work_tree_top(root, forced)
    if found is None:
        return None
    directory, top = found
    if not full and index_large(top):
        return _head_unchecked(directory)
    try:
        out = git_output(
            directory, "status", "--porcelain=v2", "--branch", "--no-ahead-behind",
            "--", ":(exclude)datarim",
        )  # fmt: skip
    except GitTimeout:
        return None  # no anchor rather than a write past the hook's deadline
    head = branch = b""
    dirty = False
    for line in (out or b"").split(b"\n"):
        if line.startswith(b"# branch.oid "):
            head = line[len(b"# branch.oid ") :]
        elif line.startswith(b"# branch.head "):
            branch = line[len(b"# branch.head ") :]
        elif line and not line.startswith(b"# "):
            dirty = True
            break
    if head in (b"", b"(initial)"):
        return None
    return Anchor(head, b"" if branch == b"(detached)" else branch, dirty)
