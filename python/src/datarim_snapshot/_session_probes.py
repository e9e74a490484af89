"""Bash twin: scripts/lib/session-probes.sh.

Claim re-verification probes (spec §5) and the session-reverify command.

Each probe returns (code, banner): code 0 when the claim holds (banner ""),
else the shell's code and the banner the resume prints. Probes never lie: an
abbreviated or upper-case SHA naming the current HEAD is not stale; a saved SHA
is read as an object name only, and a commit git does not know is never called
"landed"; a repository without an upstream branch says so. Git runs in the
given repository only (no GIT_DIR & co. from the caller), reads only, and gets
paths after "--". Each git call has at most DATARIM_GIT_TIMEOUT seconds
(git_anchor.git_seconds): a probe whose git did not answer says so ("<label>
cannot be checked: git did not answer within <n> s", code 3) and concludes
nothing else.
"""

from __future__ import annotations

import os

from ._errors import UsageError
from ._flags import parse_flags
from ._git_anchor import GitTimeout, git_seconds, run_git
from ._records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ._console import Console

PRESENT, ABSENT, NOT_A_WORK_TREE, UNKNOWN_COMMIT, NO_UPSTREAM, AMBIGUOUS = 0, 1, 3, 4, 5, 6
_HEX = b"0123456789abcdefABCDEF"
_CONTROLS = bytes([*range(0x01, 0x20), 0x7F])
_GIT_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
)


def sha_ok(value: bytes) -> bool:
    """7 to 40 hexadecimal digits."""
    return 7 <= len(value) <= 40 and not value.translate(None, _HEX)


def path_ok(value: bytes) -> bool:
    """A path a probe may use: 1 to 4096 bytes, no control character."""
    return 0 < len(value) <= 4096 and len(value.translate(None, _CONTROLS)) == len(value)


def git(repo: str, *args: str, stdin: bytes = b"") -> tuple[int, bytes]:
    """git confined to repo, fed stdin; (exit code, stdout), errors silenced. Variables that
    would point git at another repository are dropped; those that limit the
    search for one (GIT_CEILING_DIRECTORIES) are honoured. GitTimeout when it
    runs past git_seconds()."""
    env = {k: v for k, v in os.environ.items() if k not in _GIT_VARIABLES}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_LITERAL_PATHSPECS="1")
    return run_git(["git", "-C", repo, *args], env, stdin)


def _first_line(output: bytes) -> str:
    return os.fsdecode(output.split(b"\n", 1)[0])


def no_tree(label: str, hung: bool = False) -> str:
    """Why label could not be probed: it is not a git work tree, there is no
    git to ask, or git did not answer in time (hung), which are not the same
    news."""
    import shutil

    if hung:
        return f"{label} cannot be checked: git did not answer within {git_seconds()} s"
    if shutil.which("git") is None:
        return f"{label} cannot be checked: git is not on PATH"
    return f"{label} is not a git work tree"


def work_tree(repo: str) -> bool:
    if not os.path.isdir(repo):
        return False
    code, out = git(repo, "rev-parse", "--is-inside-work-tree")
    return code == 0 and _first_line(out) == "true"


def probe_stale(repo: str, label: str, saved: str) -> tuple[int, str]:
    """HEAD still the saved commit? 1 (moved) or 3 (not a git work tree, or
    git did not answer) with a banner."""
    return _in_work_tree(
        repo, label, f"saved HEAD {saved}", lambda: _probe_stale(repo, label, saved)
    )


def _in_work_tree(
    repo: str, label: str, saved: str, probe: Callable[[], tuple[int, str]]
) -> tuple[int, str]:
    """probe() when repo is a git work tree; else (or when git did not answer) 3 and
    a STALE SNAPSHOT banner that ends in (<saved>)."""
    try:
        if work_tree(repo):
            return probe()
        hung = False
    except GitTimeout:
        hung = True
    return NOT_A_WORK_TREE, f"STALE SNAPSHOT: {no_tree(label, hung)} ({saved})"


def _probe_stale(repo: str, label: str, saved: str) -> tuple[int, str]:
    code, out = git(repo, "rev-parse", "-q", "--verify", "HEAD^{commit}")
    head = _first_line(out) if code == 0 else ""
    if head and head.startswith(saved.lower()):
        return PRESENT, ""
    return ABSENT, f"STALE SNAPSHOT: {label} HEAD changed from {saved} to {head or '(no commit)'}"


def probe_upstream_stale(repo: str, label: str, saved: str) -> tuple[int, str]:
    """The reference's --stale (spec §8): the upstream branch (see upstream_ref;
    origin/main as a rule) still the saved commit? 1 (it moved on), 5 (there is
    no such branch) or 3 (not a git work tree, or git did not answer) with a
    banner."""
    return _in_work_tree(
        repo, label, f"saved {saved}", lambda: _probe_upstream_stale(repo, label, saved)
    )


def _probe_upstream_stale(repo: str, label: str, saved: str) -> tuple[int, str]:
    ref = upstream_ref(repo)
    short = _short_ref(ref)
    code, out = git(repo, "rev-parse", "-q", "--verify", f"{ref}^{{commit}}")
    current = _first_line(out) if code == 0 else ""
    if not current:
        return NO_UPSTREAM, f"STALE SNAPSHOT: {label} cannot be checked: {label} has no {short}."
    if current.startswith(saved.lower()):
        return PRESENT, ""
    return ABSENT, f"STALE SNAPSHOT: {label} {short} changed from {saved} to {current}"


def _short_ref(ref: str) -> str:
    for prefix in ("refs/remotes/", "refs/heads/"):
        if ref.startswith(prefix):
            return ref[len(prefix) :]
    return ref


def commit_of(repo: str, sha: str) -> tuple[int, str]:
    """The commit a saved SHA names, read as an object name only: a branch or tag
    named like hex never stands in for it. (PRESENT, full name), UNKNOWN_COMMIT
    (none) or AMBIGUOUS (several)."""
    names = git(repo, "rev-parse", f"--disambiguate={sha.lower()}")[1]
    if not names.strip():
        return UNKNOWN_COMMIT, ""
    objects = git(repo, "cat-file", "--batch-check=%(objecttype) %(objectname)", stdin=names)[1]
    commits = [line[7:].decode() for line in objects.split(b"\n") if line.startswith(b"commit ")]
    if not commits:
        return UNKNOWN_COMMIT, ""
    if len(commits) > 1:
        return AMBIGUOUS, ""
    return PRESENT, commits[0]


def upstream_ref(repo: str) -> str:
    """The branch a claim is checked against: the current branch's configured
    upstream, else origin/HEAD's target, else refs/remotes/origin/main (which
    may not exist)."""
    for args in (
        ("rev-parse", "-q", "--verify", "--symbolic-full-name", "@{upstream}"),
        ("symbolic-ref", "-q", "refs/remotes/origin/HEAD"),
    ):
        code, out = git(repo, *args)
        if code == 0 and _first_line(out):
            return _first_line(out)
    return "refs/remotes/origin/main"


class ShaProbe(Record):
    """What probe_sha_detail found: the code and banner of probe_sha, the number of
    files whose content landed (0: none, or no check) and the branch's name."""

    __slots__ = ("code", "banner", "landed", "ref")

    def __init__(self, code: int, banner: str, landed: int = 0, ref: str = "") -> None:
        self.code = code
        self.banner = banner
        self.landed = landed
        self.ref = ref


def probe_sha(repo: str, label: str, sha: str, paths: Sequence[str] = ()) -> tuple[int, str]:
    """Is the commit in the upstream branch (see upstream_ref)? If not, the
    content check over the files the commit changed (only those of them among
    paths, when given) tells a squash merge from lost work."""
    found = probe_sha_detail(repo, label, sha, paths)
    return found.code, found.banner


def probe_sha_detail(repo: str, label: str, sha: str, paths: Sequence[str] = ()) -> ShaProbe:
    """probe_sha, with the number of files whose content landed and the branch's name."""
    try:
        return _probe_sha_detail(repo, label, sha, paths)
    except GitTimeout:
        return _sha_unchecked(label, sha, hung=True)


def _sha_unchecked(label: str, sha: str, hung: bool = False) -> ShaProbe:
    why = no_tree(label, hung).removeprefix(f"{label} cannot be checked: ")
    return ShaProbe(NOT_A_WORK_TREE, f"CLAIM-UNVERIFIED: SHA {sha} cannot be checked: {why}.")


def _probe_sha_detail(repo: str, label: str, sha: str, paths: Sequence[str]) -> ShaProbe:
    if not work_tree(repo):
        return _sha_unchecked(label, sha)
    ref = upstream_ref(repo)
    short = _short_ref(ref)
    if git(repo, "rev-parse", "-q", "--verify", f"{ref}^{{commit}}")[0] != 0:
        return ShaProbe(
            NO_UPSTREAM,
            f"CLAIM-UNVERIFIED: SHA {sha} cannot be checked: {label} has no {short}.",
            ref=short,
        )
    code, commit = commit_of(repo, sha)
    if code == UNKNOWN_COMMIT:
        return ShaProbe(
            UNKNOWN_COMMIT,
            f"CLAIM-UNVERIFIED: SHA {sha} not found in {short}. "
            "git does not know this commit, so its content cannot be checked.",
            ref=short,
        )
    if code == AMBIGUOUS:
        return ShaProbe(
            AMBIGUOUS,
            f"CLAIM-UNVERIFIED: SHA {sha} cannot be checked: several commits in {label} "
            "start with it.",
            ref=short,
        )
    if git(repo, "merge-base", "--is-ancestor", commit, ref)[0] == 0:
        return ShaProbe(PRESENT, "", ref=short)
    # The files the commit changed (only those of them named, when paths are
    # given): a path it did not touch would make an empty diff prove nothing.
    listed = git(repo, "diff-tree", "-r", "--root", "--no-commit-id", "--name-only", "-z", commit)
    names = [os.fsdecode(name) for name in listed[1].split(b"\0") if name]
    if paths:
        names = [name for name in names if name in paths]
    banner = f"CLAIM-UNVERIFIED: SHA {sha} not found in {short}."
    if names and git(repo, "diff", "--quiet", commit, ref, "--", *names)[0] == 0:
        banner += (
            f" Its content is there (no diff in {len(names)} file(s)): "
            "the work landed under another commit, e.g. a squash merge."
        )
        return ShaProbe(ABSENT, banner, len(names), short)
    return ShaProbe(ABSENT, banner, ref=short)


def probe_file(root: str, path: str) -> tuple[int, str]:
    """Does path (relative: from root) exist?"""
    target = path if path.startswith("/") else os.path.join(root, path)
    if os.path.lexists(target):
        return PRESENT, ""
    return ABSENT, f"FILE-MISSING: {path} \u2014 may have moved, merged, or been deleted."


def _path_fault(value: str) -> bool:
    return not path_ok(os.fsencode(value))


def session_reverify_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/reverify-session-claims.sh."""
    args, paths, paths_from = _split_paths(argv)
    flags = parse_flags(
        "--stale --sha-presence --file-missing --exit-code --sha= --saved-sha= --repo= "
        "--path= --root=",
        "",
        args,
    )
    code, banner = _reverify(flags, paths, paths_from)
    if banner:
        console.write(os.fsencode(banner) + b"\n")
    if code in (0, NOT_A_WORK_TREE):
        return code
    # The probe ran and the claim failed: the reference's 0, unless asked.
    return 1 if flags.get("exit_code") else 0


def _split_paths(argv: Sequence[str]) -> tuple[list[str], list[str], str]:
    """The flags, the paths and how they came: after "--" (all the rest), or after
    "--files" (the reference's form: up to the next flag); "" without paths."""
    args: list[str] = []
    paths: list[str] = []
    paths_from = ""
    rest = list(argv)
    while rest:
        arg = rest.pop(0)
        if arg not in ("--", "--files"):
            args.append(arg)
            continue
        if paths_from == arg:
            raise UsageError(f"flag given twice: {arg}")
        if paths_from:
            raise UsageError("give the paths after --files or after --, not both")
        paths_from = arg
        if arg == "--":
            paths, rest = paths + rest, []
        else:
            while rest and not rest[0].startswith("--"):
                paths.append(rest.pop(0))
    return args, paths, paths_from


def _reverify(flags: dict[str, str], paths: list[str], paths_from: str) -> tuple[int, str]:
    modes = [m for m in ("stale", "sha_presence", "file_missing") if flags.get(m)]
    if len(modes) != 1:
        raise UsageError("want exactly one of --stale, --sha-presence, --file-missing")
    sha, saved, repo = flags.get("sha", ""), flags.get("saved_sha", ""), flags.get("repo", "")
    path, root = flags.get("path", ""), flags.get("root", "")
    if modes[0] == "file_missing":
        if sha + saved + repo + paths_from:
            raise UsageError("--file-missing takes --path and --root only")
        if _path_fault(path):
            raise UsageError("invalid --path (want 1 to 4096 bytes without control characters)")
        root = root or "."
        if not os.path.isdir(root):
            raise UsageError("--root is not a directory")
        return probe_file(root, path)
    if modes[0] == "stale" and (path + root + paths_from or (sha and saved)):
        raise UsageError("--stale takes --sha or --saved-sha, and --repo only")
    if modes[0] == "sha_presence" and path + root + saved:
        raise UsageError("--sha-presence takes --sha, --repo and paths (after --files or --) only")
    sha += saved
    if not sha_ok(os.fsencode(sha)):
        raise UsageError(f"invalid SHA (expected 7-40 hex chars): {sha}")
    repo = repo or "."
    if _path_fault(repo):
        raise UsageError("invalid --repo (want 1 to 4096 bytes without control characters)")
    if any(_path_fault(p) for p in paths):
        raise UsageError(
            f"invalid path after {paths_from} (want 1 to 4096 bytes without control characters)"
        )
    if saved:
        return probe_upstream_stale(repo, repo, sha)
    if modes[0] == "stale":
        return probe_stale(repo, repo, sha)
    found = probe_sha_detail(repo, repo, sha, paths)
    if found.landed:
        # The reference's evidence line, after the claim's own.
        return found.code, (
            f"CLAIM-UNVERIFIED: SHA {sha} not found in {found.ref}.\n"
            f"CONTENT-LANDED: diff {sha}..{found.ref} for the saved files is empty \u2014 "
            "work landed under a foreign squash-commit header, not lost."
        )
    return found.code, found.banner
