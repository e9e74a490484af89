"""session-write --git-state: the Layer 1 lines it writes are the ones the resume reads.

Both implementations write a handoff with --git-state for a repository inside
the workspace and one outside it (an absolute path, which no conformance case
can pin byte for byte); session-replay of either implementation then finds
nothing stale, and after a commit in each repository names both as stale.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "conformance" / "fixtures" / "git-fixture.sh"
WRITERS = {
    "bash": [str(REPO / "dev-tools" / "session-handoff-writer-wrapper.sh")],
    "python": [sys.executable, "-m", "datarim_snapshot", "session-write"],
}
REPLAYS = {
    "bash": [str(REPO / "dev-tools" / "session-replay.sh")],
    "python": [sys.executable, "-m", "datarim_snapshot", "session-replay"],
}
BODY = b"## Layer 1 \xe2\x80\x94 Git State\n## Layer 5 \xe2\x80\x94 Failed Approaches\nnone\n"


def _env(sandbox: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CEILING_DIRECTORIES=str(sandbox), LC_ALL="C.UTF-8", TZ="UTC")
    return env


def _workspace(sandbox: Path) -> tuple[Path, Path]:
    """A workspace that is a repository, and a second repository beside it."""
    root, other = sandbox / "ws", sandbox / "elsewhere" / "lib"
    script = (
        f'. "{FIXTURE}"\n'
        f'fixture_repo "{root}" "{sandbox}/origin.git"\n'
        f'fixture_repo "{other}" "{sandbox}/lib-origin.git"\n'
    )
    subprocess.run(["bash", "-c", script], env=_env(sandbox), check=True, capture_output=True)
    (root / "datarim").mkdir()
    (root / "datarim" / "tasks.md").write_text("# Tasks\n")  # a knowledge base already
    (sandbox / "tasks").write_text("TUNE-0254 | in_progress\n")
    (sandbox / "body").write_bytes(BODY)
    return root, other


def _write(impl: str, sandbox: Path, root: Path, other: Path) -> bytes:
    argv = [
        *WRITERS[impl], "--root", str(root), "--session", "SESSION-20260521-134500",
        "--captured-by", "agent", "--recommended-next", "/dr-do TUNE-0254",
        "--next-action", "carry on", "--active-tasks-file", str(sandbox / "tasks"),
        "--body-file", str(sandbox / "body"), "--captured-at", "2026-05-21T13:45:00Z",
        "--git-state", str(root), "--git-state", str(other),
    ]  # fmt: skip
    done = subprocess.run(argv, env=_env(sandbox), capture_output=True, check=False)
    assert (done.returncode, done.stderr) == (0, b"")
    return (root / "datarim" / "sessions" / "SESSION-20260521-134500.session.md").read_bytes()


def _banners(impl: str, sandbox: Path, root: Path) -> list[bytes]:
    done = subprocess.run(
        [*REPLAYS[impl], "--latest", "--root", str(root)],
        env=_env(sandbox),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    head = done.stdout.split(b"\n\n", 1)[0]
    return [line for line in head.split(b"\n") if line.startswith(b"STALE")]


@pytest.mark.parametrize("writer", WRITERS)
def test_what_git_state_writes_the_resume_reads_back(tmp_path: Path, writer: str) -> None:
    root, other = _workspace(tmp_path)
    saved = _write(writer, tmp_path, root, other)
    head = b"539b8f594838b231dde1bfac28f70d21a96b1ed9"
    # The workspace's datarim/ (the handoff itself) does not make it dirty.
    assert b"\nrepo: .  HEAD: " + head + b"  branch: main  status: clean\n" in saved
    lib = b"repo: " + os.fsencode(os.path.realpath(other)) + b"  HEAD: " + head
    assert b"\n" + lib + b"  branch: main  status: clean\n" in saved
    for replay in REPLAYS:
        assert _banners(replay, tmp_path, root) == []
    for repo in (root, other):
        subprocess.run(
            ["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", "moved on"],
            env=dict(
                _env(tmp_path),
                GIT_CONFIG_GLOBAL="/dev/null",
                GIT_CONFIG_NOSYSTEM="1",
                GIT_AUTHOR_NAME="x",
                GIT_AUTHOR_EMAIL="x@example.invalid",
                GIT_COMMITTER_NAME="x",
                GIT_COMMITTER_EMAIL="x@example.invalid",
            ),
            check=True,
        )
    for replay in REPLAYS:
        stale = _banners(replay, tmp_path, root)
        assert [line.split(b" HEAD changed")[0] for line in stale] == [
            b"STALE SNAPSHOT: .",
            b"STALE SNAPSHOT: " + os.fsencode(os.path.realpath(other)),
        ]
