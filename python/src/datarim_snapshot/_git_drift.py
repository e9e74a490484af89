"""Bash twin: scripts/lib/git-drift.sh.

Git drift on replay: when the HEAD a snapshot recorded (git_anchor.py) is no
longer the current HEAD, the facts and the notice above the replay prompt
(scripts/lib/text/drift-*.txt). ``DATARIM_SNAPSHOT_GIT=0`` turns it off.
"""

from __future__ import annotations

from ._git_anchor import GitTimeout, git_output, git_seconds, head, work_tree
from ._records import Record
from ._rules import pattern
from ._texts import text_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


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
        recorded_dirty: bool | None,
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
        self.relation = relation  # ahead, apart, missing (or unchecked: UNCHECKED)
        self.ahead = ahead  # commits only on HEAD's side
        self.behind = behind  # commits only on the recorded side


def drift(root: str, extra: Mapping[str, bytes]) -> Drift | None:
    """The drift facts when the snapshot's recorded git_head (in its optional
    fields) is not the current HEAD of root's repository; else None."""
    recorded = extra.get("git_head", b"")
    if not recorded:
        return None
    directory = work_tree(root)
    if directory is None:
        return None
    try:
        found = head(directory)
    except GitTimeout:
        return UNCHECKED
    if found is None or found[0] == recorded:
        return None
    current, branch = found
    between = recorded.decode() + "..." + current.decode()
    try:
        counts = git_output(directory, "rev-list", "--left-right", "--count", between)
    except GitTimeout:
        return UNCHECKED
    ahead = behind = None
    relation = "missing"
    if counts is not None:
        left, right = counts.split()
        behind, ahead = int(left), int(right)
        relation = "ahead" if behind == 0 else "apart"
    return Drift(
        recorded_head=recorded,
        recorded_branch=extra.get("git_branch", b""),
        recorded_dirty={b"true": True, b"false": False}.get(extra.get("git_dirty", b"")),
        current_head=current,
        current_branch=branch,
        relation=relation,
        ahead=ahead,
        behind=behind,
    )


# git did not answer within git_seconds(): the notice says the drift was not
# checked; the --json "drift" field is left out, as without drift.
UNCHECKED = Drift(b"", b"", False, b"", b"", "unchecked", None, None)


def _commits(count: int | None) -> bytes:
    return b"1 commit" if count == 1 else f"{count} commits".encode()


def _where(sha: bytes, branch: bytes, dirty: bool | None) -> bytes:
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
    if facts is UNCHECKED:
        seconds = str(git_seconds()).encode()
        return _fill(text_bytes("drift-unchecked.txt"), {b"seconds": seconds})
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
