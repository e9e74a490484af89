"""Git anchoring costs what the README says, in both implementations: no git process
for a workspace outside git or with DATARIM_SNAPSHOT_GIT=0, one `git status` per
write inside a work tree, one `git rev-parse` per replay of an anchored snapshot
whose HEAD has not moved and one `git rev-list` more when it has. A `git` first in
PATH logs every call, then runs the real one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")

WRITE = [
    "--task", "TUNE-0254", "--stage", "plan", "--command", "/dr-plan",
    "--captured-by", "agent", "--recommended-next", "/dr-do",
    "--captured-at", "2026-05-21T13:45:00Z",
]  # fmt: skip


def _command(impl: str, action: str) -> list[str]:
    if impl == "bash":
        tool = {"write": "snapshot-writer-wrapper.sh", "resume": "resume-task.sh"}.get(
            action, "render-replay-prompt.sh"
        )
        return [str(REPO / "dev-tools" / tool)]
    return [sys.executable, "-m", "datarim_snapshot", action]


@dataclass
class Box:
    tmp: Path
    env: dict[str, str]
    log: Path


@pytest.fixture()
def sandbox(tmp_path: Path) -> Box:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "git.log"
    spy = bin_dir / "git"
    spy.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >>"{log}"\nexec "{GIT}" "$@"\n')
    spy.chmod(0o755)
    (tmp_path / "body.md").write_text("Plan ready.\n")
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "LC_ALL": "C.UTF-8",
        "GIT_CEILING_DIRECTORIES": str(tmp_path),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "PYTHONPATH": str(REPO / "python" / "src"),
    }
    return Box(tmp_path, env, log)


def _git(ws: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run([str(GIT), "-C", str(ws), *args], env=env, check=True, capture_output=True)


def _work_tree(box: Box) -> Path:
    """box's ws/, a git work tree with one commit."""
    ws = box.tmp / "ws"
    ws.mkdir()
    (ws / "code.txt").write_text("one\n")
    _git(ws, box.env, "init", "-q")
    _git(ws, box.env, "add", "code.txt")
    _git(ws, box.env, "commit", "-q", "-m", "one")
    return ws


def _calls(box: Box) -> list[str]:
    log = box.log
    lines = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return [line.split(" --no-optional-locks ", 1)[-1].split(" ", 1)[0] for line in lines]


def _run(impl: str, action: str, ws: Path, box: Box, **extra: str) -> bytes:
    env = dict(box.env, **extra)
    args = _command(impl, action) + ["--root", str(ws)]
    if action == "write":
        args += WRITE + ["--body-file", str(box.tmp / "body.md")]
    else:
        args += ["--task", "TUNE-0254"]
    done = subprocess.run(args, env=env, capture_output=True, check=True)
    return done.stdout


@pytest.mark.parametrize("impl", ["bash", "python"])
def test_no_git_process_outside_a_work_tree(impl: str, sandbox: Box) -> None:
    ws = sandbox.tmp / "ws"
    ws.mkdir()
    _run(impl, "write", ws, sandbox)
    _run(impl, "replay", ws, sandbox)
    assert _calls(sandbox) == []
    assert b"git_" not in (ws / "datarim" / "snapshots" / "TUNE-0254.snapshot.md").read_bytes()


@pytest.mark.parametrize("impl", ["bash", "python"])
def test_git_calls_inside_a_work_tree(impl: str, sandbox: Box) -> None:
    env = sandbox.env
    ws = _work_tree(sandbox)
    _calls(sandbox)
    _run(impl, "write", ws, sandbox)
    assert _calls(sandbox) == ["status"]
    assert _run(impl, "replay", ws, sandbox).startswith(b"/dr-do")
    assert _calls(sandbox) == ["rev-parse"]
    (ws / "code.txt").write_text("two\n")
    _git(ws, env, "commit", "-q", "-am", "two")
    _calls(sandbox)
    assert _run(impl, "replay", ws, sandbox).startswith(b"NOTE: the code moved on")
    assert _calls(sandbox) == ["rev-parse", "rev-list"]
    _run(impl, "write", ws, sandbox, DATARIM_SNAPSHOT_GIT="0")
    _run(impl, "replay", ws, sandbox, DATARIM_SNAPSHOT_GIT="0")
    assert _calls(sandbox) == []


def test_a_hung_git_costs_neither_the_write_nor_the_resume(sandbox: Box) -> None:
    """Issue 19: a git that never answers is cut off after DATARIM_GIT_TIMEOUT
    seconds in both languages: the write goes on without an anchor, and the
    resume of an anchored snapshot says that drift was not checked (same bytes)
    instead of the hook being killed at the runtime's deadline."""
    ws = _work_tree(sandbox)
    _run("bash", "write", ws, sandbox)  # anchored while git still answers
    snapshot = ws / "datarim" / "snapshots" / "TUNE-0254.snapshot.md"
    anchored = snapshot.read_bytes()
    assert b"git_head: " in anchored
    hung = sandbox.tmp / "bin" / "git"
    hung.write_text("#!/bin/sh\nexec sleep 60\n")
    outputs = {}
    for impl in ("bash", "python"):
        began = time.monotonic()
        outputs[impl] = _run(impl, "resume", ws, sandbox, DATARIM_GIT_TIMEOUT="1")
        assert time.monotonic() - began < 8, impl
        began = time.monotonic()
        _run(impl, "write", ws, sandbox, DATARIM_GIT_TIMEOUT="1")
        assert time.monotonic() - began < 8, impl
        assert b"git_head" not in snapshot.read_bytes(), impl
        snapshot.write_bytes(anchored)
    assert outputs["bash"] == outputs["python"]
    assert outputs["bash"].startswith(
        b"NOTE: git did not answer within 1 s, so whether the code moved on since this"
        b" snapshot was taken was not checked.\n\n/dr-do"
    )


def _reverify(impl: str) -> list[str]:
    if impl == "bash":
        return [str(REPO / "dev-tools" / "reverify-session-claims.sh")]
    return [sys.executable, "-m", "datarim_snapshot", "session-reverify"]


@pytest.mark.parametrize(
    ("hangs_on", "probe"),
    [
        ("rev-parse", "--stale --sha"),
        ("symbolic-ref", "--stale --saved-sha"),
        ("cat-file", "--sha-presence --sha"),
        ("merge-base", "--sha-presence --sha"),
        ("diff-tree", "--sha-presence --sha"),
        ("diff", "--sha-presence --sha"),
    ],
)
def test_a_claim_probe_whose_git_hangs_concludes_nothing(
    sandbox: Box, hangs_on: str, probe: str
) -> None:
    """A claim probe's git calls have DATARIM_GIT_TIMEOUT seconds each, in both
    languages; one that runs out says the claim cannot be checked because git
    did not answer (code 3, the same bytes), never that the repository is no
    work tree, that the commit is missing or that its content did not land."""
    ws = _work_tree(sandbox)
    _git(ws, sandbox.env, "update-ref", "refs/remotes/origin/main", "HEAD")
    (ws / "code.txt").write_text("two\n")
    _git(ws, sandbox.env, "commit", "-qam", "not pushed")
    done = subprocess.run(
        [str(GIT), "-C", str(ws), "rev-parse", "HEAD"], capture_output=True, check=True
    )
    sha = done.stdout.decode().strip()[:12]
    # Hangs on the one subcommand (the first word after -C <dir> and the options).
    wrapper = sandbox.tmp / "bin" / "git"
    wrapper.write_text(
        "#!/bin/sh\n"
        'for word in "$@"; do case $word in -*|"$2") continue;; esac\n'
        f'  [ "$word" = {hangs_on} ] && exec sleep 60; break; done\n'
        f'exec "{GIT}" "$@"\n'
    )
    results = {}
    for impl in ("bash", "python"):
        began = time.monotonic()
        run = subprocess.run(
            _reverify(impl) + probe.split() + [sha, "--repo", str(ws)],
            capture_output=True,
            env={**sandbox.env, "DATARIM_GIT_TIMEOUT": "1"},
            check=False,
            timeout=60,
        )
        assert time.monotonic() - began < 20, impl
        results[impl] = (run.returncode, run.stdout, run.stderr)
    assert results["bash"] == results["python"]
    code, out, _ = results["bash"]
    assert code == 3, results
    assert b"cannot be checked: git did not answer within 1 s" in out, out
