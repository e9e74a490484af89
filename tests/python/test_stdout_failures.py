"""When standard output cannot be written (docs/hardening.md "Output that cannot be written"):
a reader that has gone ends both implementations as SIGPIPE ends a shell tool
(nothing on stderr); a full or failing stdout costs one line on stderr, never a
traceback, and the exit code still says what the command did (a handoff saved
is saved: exit 0)."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
from sample import sample_workspace

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(os.environ.get("VIRTUAL_ENV", REPO / ".venv")) / "bin"
SESSION = "SESSION-20260521-134500"


def _workspace(tmp_path: Path) -> Path:
    return sample_workspace(tmp_path / "ws", body="Plan ready.\n" * 400)


def _session_args(tmp_path: Path, root: Path) -> list[str]:
    tasks = tmp_path / "tasks.txt"
    tasks.write_text("TUNE-0254 | in_progress\n")
    body = tmp_path / "handoff.md"
    body.write_text("## Layer 1 \u2014 Git State\n\n## Layer 5 \u2014 Failed Approaches\nnone\n")
    return [
        *("--root", str(root), "--session", SESSION, "--captured-by", "agent"),
        *("--recommended-next", "/dr-do TUNE-0254", "--next-action", "go on"),
        *("--active-tasks-file", str(tasks), "--body-file", str(body)),
    ]


def _commands(tmp_path: Path, root: Path) -> dict[str, tuple[list[str], list[str]]]:
    """name -> (bash argv, Python argv)."""
    tools = REPO / "dev-tools"
    python = [str(VENV_BIN / "python"), "-m", "datarim_snapshot"]
    replay = ["--root", str(root), "--task", "TUNE-0254"]
    session = _session_args(tmp_path, root)
    return {
        "replay": ([str(tools / "render-replay-prompt.sh"), *replay], [*python, "replay", *replay]),
        "list": ([str(tools / "snapshot-list.sh"), "--root", str(root)],
                 [*python, "list", "--root", str(root)]),
        "session-write": ([str(tools / "session-handoff-writer-wrapper.sh"), *session],
                          [*python, "session-write", *session]),
    }  # fmt: skip


def _run(argv: list[str], stdout: int) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, LC_ALL="C.UTF-8", DATARIM_NOW="2099-01-01T00:00:00Z")
    return subprocess.run(argv, stdout=stdout, stderr=subprocess.PIPE, env=env, timeout=60)


@pytest.mark.parametrize("name", ["replay", "list", "session-write"])
def test_a_reader_that_has_gone_ends_both_as_sigpipe_would(tmp_path: Path, name: str) -> None:
    root = _workspace(tmp_path)
    results = []
    for argv in _commands(tmp_path, root)[name]:
        read_end, write_end = os.pipe()
        os.close(read_end)  # the reader has gone before the first byte
        try:
            done = _run(argv, write_end)
        finally:
            os.close(write_end)
        results.append((done.returncode, done.stderr))
        (root / "datarim" / "sessions" / f"{SESSION}.session.md").unlink(missing_ok=True)
    assert results == [(-signal.SIGPIPE, b"")] * 2


@pytest.mark.parametrize("name", ["replay", "list", "session-write"])
def test_a_full_stdout_costs_one_line_and_keeps_the_exit_code(tmp_path: Path, name: str) -> None:
    root = _workspace(tmp_path)
    saved = root / "datarim" / "sessions" / f"{SESSION}.session.md"
    for impl, argv in zip(("bash", "python"), _commands(tmp_path, root)[name]):
        with open("/dev/full", "wb") as full:
            done = _run(argv, full.fileno())
        lines = done.stderr.splitlines()
        assert done.returncode == 0, (impl, done.stderr)
        assert len(lines) == 1 and b"Traceback" not in done.stderr, (impl, done.stderr)
        expected = b"write error" if impl == "bash" else b"cannot write to standard output"
        assert expected in lines[0]
        if name == "session-write":
            assert saved.is_file()  # what was saved stays saved
            saved.unlink()
