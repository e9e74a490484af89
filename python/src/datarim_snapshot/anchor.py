"""Git anchoring of stage snapshots, the twin of scripts/lib/git-anchor.sh,
scripts/lib/git-drift.sh and scripts/lib/git-anchor.awk (README "Trust: redaction and drift").

The writer records where the code stood (HEAD, branch, dirty) as optional
frontmatter fields after ``truncated``; on replay, a notice says when HEAD has
moved on since. ``DATARIM_SNAPSHOT_GIT=0`` turns all of it off (no git call).
"""

from __future__ import annotations

import os

from .errors import DatarimError
from .fsops import resolve_root
from .records import Record
from .rules import pattern, utf8_scan, yaml_quote
from .texts import text_bytes

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


class Anchor(Record):
    __slots__ = ("head", "branch", "dirty")

    def __init__(self, head: bytes, branch: bytes, dirty: bool) -> None:
        self.head = head
        self.branch = branch  # empty: HEAD was detached
        self.dirty = dirty


class Drift(Record):
    __slots__ = (
        "recorded_head",
        "recorded_branch",
        "recorded_dirty",
        "current_head",
        "current_branch",
        "relation",
        "ahead",
        "behind",
    )

    def __init__(
        self,
        recorded_head: bytes,
        recorded_branch: bytes,
        recorded_dirty: bool,
        current_head: bytes,
        current_branch: bytes,
        relation: str,
        ahead: int | None,
        behind: int | None,
    ) -> None:
        self.recorded_head = recorded_head
        self.recorded_branch = recorded_branch
        self.recorded_dirty = recorded_dirty
        self.current_head = current_head
        self.current_branch = current_branch  # empty: HEAD is detached
        self.relation = relation  # ahead, apart or missing
        self.ahead = ahead  # commits only on HEAD's side
        self.behind = behind  # commits only on the recorded side


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
    return lines + b"git_dirty: " + (b"true" if anchor.dirty else b"false") + b"\n"


def work_tree(root: str, forced: bool = False) -> str | None:
    """The physical root when it or a directory above it holds a .git entry,
    looking no higher than git would under GIT_CEILING_DIRECTORIES; else None.
    DATARIM_SNAPSHOT_GIT=0 makes it None unless forced (an operator's --git-state)."""
    if os.environ.get("DATARIM_SNAPSHOT_GIT") == "0" and not forced:
        return None
    try:
        physical = resolve_root(root)
    except DatarimError:
        return None
    ceilings = os.environ.get("GIT_CEILING_DIRECTORIES", "").split(":")
    directory = physical
    while True:
        if os.path.lexists(directory + "/.git"):
            return physical
        if directory in ("", "/"):
            return None
        directory = directory.rsplit("/", 1)[0]
        if (directory or "/") in ceilings:
            return None


def _git(directory: str, *args: str) -> bytes | None:
    """git's stdout on the repository of directory, or None when it fails."""
    import subprocess  # here: a workspace outside git never pays for it

    env: Mapping[str, str] = {k: v for k, v in os.environ.items() if k not in _GIT_ENV}
    try:
        done = subprocess.run(
            ["git", "-C", directory, "--no-optional-locks", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            check=False,
        )
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None


def probe(root: str, forced: bool = False) -> Anchor | None:
    """Where the code of root's git work tree stands: HEAD, its branch, and whether
    anything outside root/datarim/ differs from HEAD (untracked files included).
    forced: even under DATARIM_SNAPSHOT_GIT=0."""
    directory = work_tree(root, forced)
    if directory is None:
        return None
    out = _git(
        directory, "status", "--porcelain=v2", "--branch", "--no-ahead-behind",
        "--", ":(exclude)datarim",
    )  # fmt: skip
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


def drift(root: str, extra: Mapping[str, bytes]) -> Drift | None:
    """The drift facts when the snapshot's recorded git_head (in its optional
    fields) is not the current HEAD of root's repository; else None."""
    recorded = extra.get("git_head", b"")
    if not recorded:
        return None
    directory = work_tree(root)
    if directory is None:
        return None
    out = _git(directory, "rev-parse", "HEAD", "--symbolic-full-name", "HEAD")
    if out is None:
        return None
    current, _, symbolic = out.rstrip(b"\n").partition(b"\n")
    if current == recorded:
        return None
    branch = symbolic[len(b"refs/heads/") :] if symbolic.startswith(b"refs/heads/") else b""
    between = recorded.decode() + "..." + current.decode()
    counts = _git(directory, "rev-list", "--left-right", "--count", between)
    ahead = behind = None
    relation = "missing"
    if counts is not None:
        left, right = counts.split()
        behind, ahead = int(left), int(right)
        relation = "ahead" if behind == 0 else "apart"
    return Drift(
        recorded_head=recorded,
        recorded_branch=extra.get("git_branch", b""),
        recorded_dirty=extra.get("git_dirty") == b"true",
        current_head=current,
        current_branch=branch,
        relation=relation,
        ahead=ahead,
        behind=behind,
    )


def _commits(count: int | None) -> bytes:
    return b"1 commit" if count == 1 else f"{count} commits".encode()


def _where(sha: bytes, branch: bytes, dirty: bool) -> bytes:
    where = b"branch " + branch if branch else b"detached HEAD"
    if dirty:
        where += b", uncommitted changes"
    return sha + b" (" + where + b")"


_PLACEHOLDER = rb"\{([a-z_]+)\}"


def _fill(template: bytes, values: Mapping[bytes, bytes]) -> bytes:
    """template with every {name} replaced by its value in one pass: a value is
    never read again, so a branch called "{current}" stays as it is."""
    return pattern(_PLACEHOLDER).sub(
        lambda match: values.get(match.group(1), match.group(0)), template
    )


def notice(facts: Drift | None) -> bytes:
    """The notice block above the replay prompt (scripts/lib/text/drift-*.txt),
    ending in a blank line; b"" without drift."""
    if facts is None:
        return b""
    relation = text_bytes(f"drift-{facts.relation}.txt")
    if relation.endswith(b"\n"):
        relation = relation[:-1]
    relation = _fill(
        relation,
        {
            b"ahead": _commits(facts.ahead),
            b"behind": _commits(facts.behind),
            b"recorded_head": facts.recorded_head,
            b"current_head": facts.current_head,
        },
    )
    return _fill(
        text_bytes("drift-notice.txt"),
        {
            b"recorded": _where(facts.recorded_head, facts.recorded_branch, facts.recorded_dirty),
            b"current": _where(facts.current_head, facts.current_branch, False),
            b"relation": relation,
        },
    )


def drift_json(facts: Drift) -> dict[str, object]:
    """The drift facts as the --json field "drift" carries them."""
    return {
        "recorded_head": facts.recorded_head.decode(),
        "recorded_branch": facts.recorded_branch.decode() or None,
        "recorded_dirty": facts.recorded_dirty,
        "current_head": facts.current_head.decode(),
        "current_branch": facts.current_branch.decode("utf-8", "replace") or None,
        "relation": facts.relation,
        "commits_ahead": facts.ahead,
        "commits_behind": facts.behind,
    }
