"""Bash twin: scripts/lib/datarim-roots.sh.

Where a command works: the reader's root (--root, else the one rule of spec §8
every reader and hook follows) and the writer's (--root, made physical).
"""

from __future__ import annotations

import os

from ._errors import RefusedError, UsageError
from ._records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Union

    from ._console import Console

    PathLike = Union[str, "os.PathLike[str]"]

GIT_TOP_LEVEL = "git-top-level"
NEAREST_KNOWLEDGE_BASE = "nearest-knowledge-base"
CURRENT_DIRECTORY = "current-directory"

_MARKER_FILES = ("activeContext.md", "tasks.md", "backlog.md")
_MARKER_DIRECTORIES = ("tasks", "snapshots", "sessions")


class RootChoice(Record):
    """The root found and why: GIT_TOP_LEVEL, NEAREST_KNOWLEDGE_BASE or CURRENT_DIRECTORY."""

    __slots__ = ("path", "reason")

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason


def is_knowledge_base(datarim: str) -> bool:
    """A datarim/ directory holding a knowledge base: tasks.md, backlog.md,
    activeContext.md, tasks/, snapshots/ or sessions/. A bare datarim/ (the
    framework's own source tree has one) is not."""
    return any(os.path.exists(os.path.join(datarim, name)) for name in _MARKER_FILES) or any(
        os.path.isdir(os.path.join(datarim, name)) for name in _MARKER_DIRECTORIES
    )


def own_knowledge_base(datarim: str) -> bool:
    """is_knowledge_base, and datarim is ours (its owner is the effective user):
    discovery never adopts a datarim/ another user left in a shared parent
    (/tmp/x/datarim), as git refuses a repository of another owner, so their
    text never reaches our model and our answers never land in their folder."""
    try:
        if os.stat(datarim).st_uid != os.geteuid():
            return False
    except OSError:
        return False
    return is_knowledge_base(datarim)


def foreign_datarim(root: str) -> bool:
    """root/datarim exists and another user owns it. Discovery never adopts
    such a folder, but when it finds no knowledge base it falls back to the
    directory it started from, whose datarim/ may be that folder: then a reader
    refuses and a hook does nothing, so another user's text never reaches our
    model (spec §8)."""
    try:
        return os.stat(os.path.join(root, "datarim")).st_uid != os.geteuid()
    except OSError:
        return False


FOREIGN_DATARIM = "the datarim/ of the working directory belongs to another user"


def kb_file_ok(root: str, rel: str) -> bool:
    """root/rel, a file of the knowledge base a reader hands on (a task list, a
    legacy document), is a readable regular file that is no symlink, and, under
    datarim/tasks/, that folder is none either: the resume path reads nothing a
    link points at, so a cloned repository cannot send ~/.ssh/id_rsa to the
    model (spec §4)."""
    path = os.path.join(root, rel)
    if os.path.islink(path) or not (os.path.isfile(path) and os.access(path, os.R_OK)):
        return False
    return not (
        rel.startswith("datarim/tasks/") and os.path.islink(os.path.join(root, "datarim", "tasks"))
    )


def working_directory() -> str:
    """The current directory; once it has been deleted, $PWD as bash keeps it
    (or "/" without one), so both implementations look in the same places."""
    try:
        return os.getcwd()
    except OSError:
        pwd = os.environ.get("PWD", "")
        return pwd if pwd.startswith("/") else "/"


def _ceilings() -> set[str]:
    """The GIT_CEILING_DIRECTORIES entries, one trailing slash dropped (as bash does)."""
    found = set()
    for entry in os.environ.get("GIT_CEILING_DIRECTORIES", "").split(":"):
        if len(entry) > 2 and entry.startswith("/") and entry.endswith("/"):
            entry = entry[:-1]
        found.add(entry)
    return found


def _git_top_here(directory: str) -> bool:
    """directory holds .git as git takes it: a gitfile, or a directory with HEAD."""
    dot_git = os.path.join(directory, ".git")
    return os.path.isfile(dot_git) or os.path.isfile(os.path.join(dot_git, "HEAD"))


def discover_root(start: PathLike | None = None) -> RootChoice:
    """The root from start (default: the current directory) upwards: the git top
    level when its datarim/ is a knowledge base, else the nearest directory whose
    datarim/ is one, else start itself; a datarim/ of another owner is none
    (own_knowledge_base). The git top level is found the way git
    finds it, without running git: the nearest directory holding .git, never
    looking above an entry of GIT_CEILING_DIRECTORIES."""
    here = os.fspath(start) if start is not None else working_directory()
    ceilings = _ceilings()
    directory = here
    nearest: str | None = None
    searching_git = True
    while True:
        if searching_git and _git_top_here(directory):
            searching_git = False
            if own_knowledge_base(os.path.join(directory, "datarim")):
                return RootChoice(directory, GIT_TOP_LEVEL)
            if nearest is not None:
                break
        if nearest is None and own_knowledge_base(os.path.join(directory, "datarim")):
            nearest = directory
            if not searching_git:
                break
        if directory in ("", "/"):
            break
        directory = os.path.dirname(directory)
        if directory in ceilings:
            searching_git = False
        if not searching_git and nearest is not None:
            break
    if nearest is not None:
        return RootChoice(nearest, NEAREST_KNOWLEDGE_BASE)
    return RootChoice(here, CURRENT_DIRECTORY)


def reader_root(root_flag: str | None) -> str:
    """--root when given (it must be a directory: UsageError code 3 otherwise),
    else discover_root's, refused (code 3) when its datarim/ is another user's
    (foreign_datarim)."""
    if root_flag is None:
        root = discover_root().path
        if foreign_datarim(root):
            raise UsageError(f"{FOREIGN_DATARIM}; pass --root to read it", code=3)
        return root
    if not os.path.isdir(root_flag):
        raise UsageError("--root is not a directory", code=3)
    return root_flag


def writer_root(root: str) -> str:
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
        datarim = os.path.join(writer_root(root), "datarim")
    except RefusedError:
        return None
    return None if is_knowledge_base(datarim) else datarim


def tell_written(
    console: Console, program: str, new_knowledge_base: str | None, redactions: int
) -> None:
    """What a writer says on stderr after a write: the knowledge base it started
    (often the sign of a mistaken --root), and how many secrets it redacted."""
    if new_knowledge_base:
        message = f"created a new knowledge base in {new_knowledge_base} (is --root right?)"
        console.error(program, message)
    if redactions:
        console.error(program, f"redacted {redactions} secret(s) before saving")
