"""Many writers of several kinds at once, over several artefacts: the load test and
`make bench` (tests/bench/bench-load.py) both drive it.

A writer kind says how to start one write and how to judge the artefact after all
writes ended: KINDS write snapshots, SESSION_KINDS append to session handoffs, each
with its own argv and verify functions; run_load and the checks are the same for all.
mixed_plan is the issue's load: 32 writers over several tasks and one session file.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from datarim_snapshot._session_format import HEADINGS, check_session_bytes
from datarim_snapshot._snapshot_validator import check_snapshot_file
from datarim_snapshot._snapshot_writer import render_snapshot

REPO = Path(__file__).resolve().parents[2]
STAMP = "2026-05-21T13:45:00Z"
BUSY = b"lock busy: another writer holds"


@dataclass(frozen=True)
class WriterKind:
    name: str
    family: str  # kinds of one family write the same artefacts (their locks exclude each other)
    timeout_env: str
    argv: Callable[[Path, str, Path], list[str]]  # (root, artefact id, body file) -> argv
    # (root, artefact id, bodies of the writes that exited 0) -> raises AssertionError
    verify: Callable[[Path, str, list[bytes]], None]
    leftovers: Callable[[Path], list[str]]  # stray entries in the family's directory


def _snapshot_argv(prefix: list[str]) -> Callable[[Path, str, Path], list[str]]:
    def argv(root: Path, task: str, body: Path) -> list[str]:
        return prefix + [
            "--root", str(root), "--task", task, "--stage", "do", "--command", "/dr-do",
            "--captured-by", "agent", "--recommended-next", "/dr-qa",
            "--body-file", str(body), "--captured-at", STAMP,
        ]  # fmt: skip

    return argv


def snapshot_bytes(task: str, body: bytes) -> bytes:
    return render_snapshot(task, "do", "/dr-do", "agent", "/dr-qa", STAMP, None, body)


def _landed(root: Path, family: str, target: str, bodies: list[bytes]) -> Path | None:
    """The artefact's path when a write of it landed; when none did, there is none."""
    path = root / "datarim" / f"{family}s" / f"{target}.{family}.md"
    assert bodies or not path.exists(), f"{target}: a {family} file though no write landed"
    return path if bodies else None


def _verify_snapshot(root: Path, task: str, bodies: list[bytes]) -> None:
    path = _landed(root, "snapshot", task, bodies)
    if path is None:
        return
    # Overwrite semantics: the file is one whole write that landed, never a mix.
    assert path.read_bytes() in {snapshot_bytes(task, body) for body in bodies}, task
    check_snapshot_file(str(path), task)


def _leftovers(family: str) -> Callable[[Path], list[str]]:
    """Entries of datarim/<family>s that are no artefact: temp files, locks, strays."""

    def leftovers(root: Path) -> list[str]:
        directory = root / "datarim" / f"{family}s"
        if not directory.exists():
            return []
        return sorted(n for n in os.listdir(directory) if not n.endswith(f".{family}.md"))

    return leftovers


def _kinds(
    family: str,
    argv: Callable[[list[str]], Callable[[Path, str, Path], list[str]]],
    verify: Callable[[Path, str, list[bytes]], None],
    entry_point: str,
    subcommand: str,
) -> list[WriterKind]:
    """The bash and the Python writer of one family (their lock timeout variable too)."""
    timeout_env = f"DR_{family.upper()}_LOCK_TIMEOUT"
    bash = [str(REPO / "dev-tools" / entry_point)]
    python = [sys.executable, "-m", "datarim_snapshot", subcommand]
    leftovers = _leftovers(family)
    return [
        WriterKind(f"{family}-{impl}", family, timeout_env, argv(prefix), verify, leftovers)
        for impl, prefix in (("bash", bash), ("python", python))
    ]


KINDS = _kinds("snapshot", _snapshot_argv, _verify_snapshot, "snapshot-writer-wrapper.sh", "write")


def _session_argv(prefix: list[str]) -> Callable[[Path, str, Path], list[str]]:
    """Session writes append: each block carries only the first line of its body (in
    Layer 2), so that the appends of one load run stay far under the 32 KB cap."""

    def argv(root: Path, session: str, body: Path) -> list[str]:
        first = body.read_bytes().split(b"\n", 1)[0]
        handoff = body.with_name(body.name + ".handoff.md")
        layers = [HEADINGS[0], b"- load", HEADINGS[1], b"- " + first, HEADINGS[4], b"- none"]
        handoff.write_bytes(b"\n".join(layers) + b"\n")
        tasks = body.with_name(body.name + ".tasks.txt")
        tasks.write_bytes(b"LOAD-0001 | load\n")
        return prefix + [
            "--root", str(root), "--session", session, "--captured-by", "agent",
            "--recommended-next", "/dr-do", "--next-action", "carry on",
            "--active-tasks-file", str(tasks), "--body-file", str(handoff), "--captured-at", STAMP,
        ]  # fmt: skip

    return argv


def _verify_session(root: Path, session: str, bodies: list[bytes]) -> None:
    path = _landed(root, "session", session, bodies)
    if path is None:
        return
    data = path.read_bytes()
    check_session_bytes(data, session)
    # Append semantics: one whole block per write that landed, none lost, none mixed.
    assert data.count(b"\nartifact: session-handoff\n") == len(bodies), session
    for body in bodies:
        assert data.count(b"\n- " + body.split(b"\n", 1)[0] + b"\n") == 1, session


# Targets of these kinds are session IDs; they write datarim/sessions/.
SESSION_KINDS = _kinds(
    "session", _session_argv, _verify_session, "session-handoff-writer-wrapper.sh", "session-write"
)


SESSION = "SESSION-20260521-134500"


def mixed_plan(
    writers: int = 32, tasks: int = 4, session_every: int = 4
) -> list[tuple[WriterKind, str]]:
    """writers writers, both languages alternating: every session_every-th appends to
    one session file (SESSION), the others write snapshots over LOAD-0001..tasks."""
    plan = []
    appends = snapshots = 0
    for n in range(writers):
        if n % session_every == session_every - 1:
            plan.append((SESSION_KINDS[appends % 2], SESSION))
            appends += 1
        else:
            task = f"LOAD-{snapshots // 2 % tasks + 1:04d}"
            plan.append((KINDS[snapshots % 2], task))
            snapshots += 1
    return plan


@dataclass
class Write:
    kind: WriterKind
    target: str
    body: bytes
    code: int = -1
    seconds: float = 0.0
    stderr: bytes = b""


def run_load(
    root: Path,
    plan: list[tuple[WriterKind, str]],
    timeout: int,
    scratch: Path,
) -> tuple[list[Write], float]:
    """Starts one writer per (kind, target) of plan at once; returns the writes, wall time."""
    writes = []
    procs = []
    began = time.monotonic()
    for number, (kind, target) in enumerate(plan):
        # Bodies of different sizes, some over a cap, so that a torn write could not pass.
        body = (f"write {number} by {kind.name} on {target}\n" * (1 + number * 23)).encode()
        body_file = scratch / f"body-{number}.md"
        body_file.write_bytes(body)
        env = {**os.environ, kind.timeout_env: str(timeout)}
        procs.append(
            (
                time.monotonic(),
                subprocess.Popen(
                    kind.argv(root, target, body_file),
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                ),
            )
        )
        writes.append(Write(kind, target, body))
    for write, (started, proc) in zip(writes, procs):
        _, err = proc.communicate(timeout=timeout + 120)
        write.code = proc.returncode
        write.seconds = time.monotonic() - started
        write.stderr = err
    return writes, time.monotonic() - began


def check_load(root: Path, writes: list[Write], timeout: int) -> None:
    """Every write landed whole or exited 3 after its timeout; nothing interleaved or left over."""
    for write in writes:
        if write.code == 3:
            assert write.stderr.count(b"\n") == 1 and BUSY in write.stderr, write.stderr
            assert write.seconds >= timeout, f"exit 3 after {write.seconds:.2f} s < {timeout} s"
        else:
            assert (write.code, write.stderr) == (0, b""), (write.kind.name, write.stderr)
    families: dict[tuple[str, str], tuple[WriterKind, list[bytes]]] = {}
    for write in writes:
        entry = families.setdefault((write.kind.family, write.target), (write.kind, []))
        if write.code == 0:
            entry[1].append(write.body)
    for (_, target), (kind, bodies) in sorted(families.items()):
        kind.verify(root, target, bodies)
    for kind in {write.kind.family: write.kind for write in writes}.values():
        assert kind.leftovers(root) == [], kind.leftovers(root)
