"""Bash twin: scripts/lib/session-replay.sh (+ session-replay.awk).

The resume of a session handoff (/dr-continue, spec §5): pick the artefact,
validate it, re-verify its claims against the live state, then print the
banners and the shared replay prompt (spec §4) of the newest block.

Unlike the snapshot replay this is never silent: an operator who asked to
resume a session learns why it cannot be resumed.
"""

from __future__ import annotations

import os

from . import _session_probes as session_probes
from ._errors import MalformedError, MissingError, UsageError
from ._flags import parse_flags
from ._frontmatter import text
from ._records import Record
from ._replay_render import render_replay_prompt
from ._roots import reader_root
from ._rules import bad_session, first_word, occurrences, pattern, session_id_ok
from ._session_format import SESSION_CAP, Block, check_session_bytes, layer, word
from ._snapshot_validator import read_artifact

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Union

    from ._console import Console

    PathLike = Union[str, "os.PathLike[str]"]

SUFFIX = ".session.md"
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_NON_WORD = rb"[^A-Za-z0-9_]+"


class Targets(Record):
    """What the newest block asks to re-verify, by body line number (from 1)."""

    __slots__ = ("repos", "claims", "files")

    def __init__(self) -> None:
        # line, sha, path, and for a repo/HEAD line that cannot be read the banner
        # that says so (sha and path then empty)
        self.repos: list[tuple[int, str, str, str]] = []
        self.claims: list[tuple[int, str, bool]] = []  # line, sha, digits or letters only
        self.files: list[tuple[int, str]] = []  # line, path


def verified_at(line: bytes) -> int:
    """0-based position of the first whole-word "verified:" tag, or -1."""
    for at in occurrences(line, b"verified:"):
        if at == 0 or line[at - 1] not in _WORD_BYTES:
            return at
    return -1


def downgrade(line: bytes) -> bytes:
    """verified: turned into unverified: (whole-word tags only)."""
    out = b""
    while True:
        at = verified_at(line)
        if at < 0:
            return out + line
        out += line[:at] + b"unverified:"
        line = line[at + 9 :]


_HEAD_KEY = rb"[ \t]+head:"


def _scan_repo(line: bytes, number: int, file_line: int, targets: Targets) -> None:
    """Layer 1: "repo: <path>  HEAD: <sha>" (the keys in any case, blanks before
    HEAD:, anything after the SHA; backticks stripped, an optional "- " or "* "
    before). The path ends at two blanks, a tab or the blanks before HEAD:. A
    repo/HEAD line that cannot be read is reported, never skipped."""
    rest = line[2:] if line[:2] in (b"- ", b"* ") else line
    low = rest.lower()
    found = pattern(_HEAD_KEY).search(low)
    if not low.startswith(b"repo:") or found is None:
        return
    path = rest[5 : found.start()].lstrip(b" \t")
    ends = [at for at in (path.find(b"  "), path.find(b"\t")) if at >= 0]
    if ends:
        path = path[: min(ends)]
    sha = rest[found.end() :].lstrip(b" \t")
    cut = pattern(rb"[ \t]").search(sha)
    if cut is not None:
        sha = sha[: cut.start()]
    path, sha = path.replace(b"`", b""), sha.replace(b"`", b"")
    if session_probes.path_ok(path) and session_probes.sha_ok(sha):
        targets.repos.append((number, sha.decode(), os.fsdecode(path), ""))
    else:
        unchecked = (
            f'HEAD-UNCHECKED: line {file_line} of the handoff cannot be checked: "{text(line)}" '
            "(want repo: <path>  HEAD: <7 to 40 hex digits>)."
        )
        targets.repos.append((number, "", "", unchecked))


def _scan_claim(line: bytes, number: int, targets: Targets) -> None:
    """A verified: line that claims pushed or merged work: each SHA-like word (7
    to 40 hex digits), flagged when it is digits only or letters only (a date, a
    PR number): a claim then only when git knows a commit by that name."""
    if verified_at(line) < 0:
        return
    low = line.lower()
    if word(low, b"pushed") < 0 and word(low, b"merged") < 0:
        return
    for candidate in pattern(_NON_WORD).split(line):
        if session_probes.sha_ok(candidate):
            digits = sum(48 <= byte <= 57 for byte in candidate)
            pure = digits in (0, len(candidate))
            targets.claims.append((number, candidate.decode(), pure))


def _scan_file(line: bytes, number: int, targets: Targets) -> None:
    """Layer 3: "- <path> [note]" (the path is the first word, backticks stripped)."""
    if not line.startswith(b"- "):
        return
    path = first_word(line[2:]).replace(b"`", b"")
    if session_probes.path_ok(path):
        targets.files.append((number, os.fsdecode(path)))


def body_lines(data: bytes, block: Block) -> list[bytes]:
    lines = data[block.body_from : block.body_to].split(b"\n")
    return lines[:-1]


def scan(lines: list[bytes], first_line: int) -> Targets:
    """What to re-verify; first_line is the file line of lines[0]."""
    targets = Targets()
    current = 1  # text before the Layer 1 heading counts as Layer 1
    for number, line in enumerate(lines, start=1):
        heading = layer(line)
        if heading:
            current = heading
            continue
        # A CR that ends the line (a CRLF body) is no part of a path or SHA.
        if line.endswith(b"\r"):
            line = line[:-1]
        if current == 1:
            _scan_repo(line, number, first_line + number - 1, targets)
        if current == 3:
            _scan_file(line, number, targets)
        _scan_claim(line, number, targets)
    return targets


def recommended_cta(block: Block) -> bytes:
    """recommended_next (with the first active task when it names none), then
    " | " and the next action."""
    cta = block.recommended_next
    if b" " not in cta and block.tasks:
        cta += b" " + block.tasks[0].encode()
    return cta + b" | " + block.next_action


def probe_all(root: str, targets: Targets) -> tuple[list[str], set[int]]:
    """The banners (stale repositories, then claims, then files; each once) and
    the body lines whose probe failed."""
    stale: list[str] = []
    claims: list[str] = []
    missing: list[str] = []
    failed: set[int] = set()
    repos: list[tuple[str, str]] = []
    for number, sha, path, unchecked in targets.repos:
        if unchecked:
            stale.append(unchecked)
            failed.add(number)
            continue
        repo = path if path.startswith("/") else os.path.join(root, path)
        repos.append((repo, path))
        code, banner = session_probes.probe_stale(repo, path, sha)
        if code:
            stale.append(banner)
            failed.add(number)
    if not repos:
        repos = [(root, ".")]
    for number, sha, pure in targets.claims:
        # A word of digits only or letters only is a claim only when a
        # repository knows a commit by it: dates and PR numbers are not SHAs.
        if pure and all(
            session_probes.commit_of(repo, sha)[0] == session_probes.UNKNOWN_COMMIT
            for repo, _ in repos
        ):
            continue
        # The claim holds when any Layer 1 repository has the commit upstream;
        # else the first one whose git knows the commit says why, or the first.
        first = known = ""
        for repo, label in repos:
            code, banner = session_probes.probe_sha(repo, label, sha)
            if code == session_probes.PRESENT:
                break
            first = first or banner
            if code == session_probes.ABSENT:
                known = known or banner
        else:
            claims.append(known or first)
            failed.add(number)
    for number, path in targets.files:
        code, banner = session_probes.probe_file(root, path)
        if code:
            missing.append(banner)
            failed.add(number)
    unique = list(dict.fromkeys(banner for banner in stale + claims + missing if banner))
    return unique, failed


def latest_session(directory: str) -> str | None:
    """The newest artefact in directory by mtime (a tie goes to the later ID)."""
    best: tuple[int, str] | None = None
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return None
    for name in names:
        if not name.startswith("SESSION-") or not name.endswith(SUFFIX):
            continue
        if not session_id_ok(name[: -len(SUFFIX)]):
            continue
        try:
            mtime = os.stat(os.path.join(directory, name)).st_mtime_ns
        except OSError:
            continue
        if best is None or not best[0] > mtime:
            best = (mtime, name)
    return best[1][: -len(SUFFIX)] if best else None


def replay_session(
    session: str | None = None, latest: bool = False, root: PathLike | None = None
) -> bytes:
    """The resume's output: banners, a blank line, then the replay prompt (no
    banners: the prompt alone). Raises UsageError (code 3), MissingError (1) or
    MalformedError (2) with the message the shell prints."""
    if session and latest:
        raise UsageError("give --session or --latest, not both", code=3)
    if not session and not latest:
        raise UsageError("want --session <SESSION-ID> or --latest", code=3)
    if session and not session_id_ok(session):
        raise UsageError(bad_session(session), code=3)
    root = reader_root(None if root is None else os.fspath(root))
    directory = os.path.join(root, "datarim", "sessions")
    if os.path.islink(directory):
        raise MalformedError("datarim/sessions is a symlink")
    if latest:
        session = latest_session(directory)
        if session is None:
            raise MissingError("no session artefact in datarim/sessions; nothing to resume")
    assert session is not None
    rel = f"datarim/sessions/{session}{SUFFIX}"
    path = os.path.join(directory, session + SUFFIX)
    try:
        data = read_artifact(path, SESSION_CAP + 1)
        block = check_session_bytes(data, session)
    except MissingError as exc:
        raise MissingError(f"{rel} {exc.message}; nothing to resume") from None
    except MalformedError as exc:
        raise MalformedError(f"{rel} {exc.message}; not resuming from an invalid handoff") from None
    lines = body_lines(data, block)
    banners, failed = probe_all(root, scan(lines, block.body_line))
    body = b"".join(
        (downgrade(line) if number in failed else line) + b"\n"
        for number, line in enumerate(lines, start=1)
    )
    prompt = render_replay_prompt(recommended_cta(block), body)
    if not banners:
        return prompt
    return os.fsencode("\n".join(banners)) + b"\n\n" + prompt


def session_replay_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/session-replay.sh."""
    flags = parse_flags("--session= --latest --root=", "", argv)
    output = replay_session(flags.get("session"), bool(flags.get("latest")), flags.get("root"))
    console.write(output)
    return 0
