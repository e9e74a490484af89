"""The SessionStart hook's standard streams, both implementations.

The corpus feeds the hook through a pipe and reads it through a pipe. A real
parent may hand it other things: Node passes a UNIX socket as stdin, a shell
may pass a file it has read part-way; stdout may be full, closed, or a pipe
whose reader has gone. The hook must read its payload from the stream as it
stands and never fail: nothing more printed, exit 0, nothing on stderr.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from sample import sample_workspace

REPO = Path(__file__).resolve().parents[2]
HOOKS = {
    "bash": [str(REPO / "dev-tools" / "session-start-hook.sh")],
    "python": [sys.executable, "-m", "datarim_snapshot", "session-start-hook"],
}


Workspace = tuple[Path, bytes, bytes]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """A workspace with one valid snapshot; the payload; the hook's output through a pipe."""
    root = sample_workspace(tmp_path_factory.mktemp("hook") / "ws")
    (root / "datarim" / "activeContext.md").write_text("## Active Tasks\n- **TUNE-0254** — x\n")
    payload = json.dumps({"source": "clear", "cwd": str(root)}).encode()
    through_pipe = subprocess.run(HOOKS["bash"], input=payload, capture_output=True, check=True)
    assert through_pipe.stdout.startswith(b'{"hookSpecificOutput":')
    return root, payload, through_pipe.stdout


def _run(impl: str, *args: str, **streams: object) -> subprocess.CompletedProcess[bytes]:
    streams.setdefault("stderr", subprocess.PIPE)
    command = [*HOOKS[impl], *args]
    return subprocess.run(command, timeout=60, check=False, **streams)  # type: ignore[call-overload, no-any-return]


@pytest.mark.parametrize("impl", HOOKS)
def test_stdin_a_socket(impl: str, workspace: Workspace) -> None:
    """A Node parent's stdio 'pipe' is a socket, which /dev/stdin cannot re-open."""
    _, payload, expected = workspace
    ours, theirs = socket.socketpair()
    with ours, theirs:
        ours.sendall(payload)
        ours.shutdown(socket.SHUT_WR)
        done = _run(impl, stdin=theirs, stdout=subprocess.PIPE)
    assert (done.returncode, done.stdout, done.stderr) == (0, expected, b"")


@pytest.mark.parametrize("impl", HOOKS)
def test_stdin_a_file_read_part_way(impl: str, workspace: Workspace) -> None:
    """The payload is read from where the stream stands, not from the file's start."""
    root, payload, expected = workspace
    path = root.parent / "offset-payload"
    path.write_bytes(b"already read\n" + payload)
    with open(path, "rb") as stdin:
        stdin.seek(len(b"already read\n"))
        done = _run(impl, stdin=stdin, stdout=subprocess.PIPE)
    assert (done.returncode, done.stdout, done.stderr) == (0, expected, b"")


@pytest.mark.parametrize("impl", HOOKS)
def test_stdout_a_pipe_whose_reader_has_gone(impl: str, workspace: Workspace) -> None:
    """EPIPE (with SIGPIPE at its default, as subprocess leaves it): exit 0, silent."""
    _, payload, _ = workspace
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = _run(impl, input=payload, stdout=write_end)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (0, b"")


@pytest.mark.parametrize("impl", HOOKS)
def test_stdout_full(impl: str, workspace: Workspace) -> None:
    _, payload, _ = workspace
    with open("/dev/full", "wb") as full:
        done = _run(impl, input=payload, stdout=full)
    assert (done.returncode, done.stderr) == (0, b"")


@pytest.mark.parametrize("impl", HOOKS)
def test_help_to_a_full_stdout(impl: str) -> None:
    with open("/dev/full", "wb") as full:
        done = _run(impl, "--help", stdout=full, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stderr) == (0, b"")
