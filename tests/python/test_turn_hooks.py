"""The UserPromptSubmit and Stop hooks beyond the corpus, both implementations.

The corpus pins each hook's verdicts one call at a time through a pipe. Here:
a turn end to end (prompt hook, then Stop hook, in every pairing of the two
implementations, which share the turn record), the streams a real parent
passes (a Node parent's socket; a payload longer than a pipe holds, which the
runtime's write must deliver whole even when the hook has nothing to do), and
the state directory's rules where a case cannot look (outside the sandbox).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HOOKS = {
    "bash": {
        "prompt": [str(REPO / "dev-tools" / "prompt-hook.sh")],
        "stop": [str(REPO / "dev-tools" / "stop-hook.sh")],
    },
    "python": {
        "prompt": [sys.executable, "-m", "datarim_snapshot", "prompt-hook"],
        "stop": [sys.executable, "-m", "datarim_snapshot", "stop-hook"],
    },
}
ANSWER = """**TUNE-0032 · Some task title**

Plan ready.

---

**Следующий шаг — TUNE-0032** (L3, in_progress)

1. `/dr-design TUNE-0032` — **рекомендуется** — auto-transition after plan for L3
2. `/dr-do TUNE-0032` — if no creative phase is needed

---
"""


@pytest.fixture
def turn(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A knowledge base and the environment of a CLI that runs the hooks."""
    root = tmp_path / "ws"
    (root / "datarim").mkdir(parents=True)
    (root / "datarim" / "tasks.md").write_text("# Tasks\n")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path / "home"),
        "LC_ALL": "C.UTF-8",
        "DATARIM_NOW": "2026-12-01T10:00:00Z",
    }
    return root, env


def _payload(root: Path, event: str, **members: object) -> bytes:
    base = {"session_id": "3f2a-9c", "transcript_path": "/nowhere.jsonl", "cwd": str(root)}
    return json.dumps({**base, "hook_event_name": event, **members}).encode()


def _run(
    command: list[str], env: dict[str, str], **streams: object
) -> subprocess.CompletedProcess[bytes]:
    streams.setdefault("stdout", subprocess.PIPE)
    streams.setdefault("stderr", subprocess.PIPE)
    return subprocess.run(command, env=env, timeout=60, check=False, **streams)  # type: ignore[call-overload, no-any-return]


def _snapshot(root: Path) -> Path:
    return root / "datarim" / "snapshots" / "TUNE-0032.snapshot.md"


@pytest.mark.parametrize("prompt_impl", HOOKS)
@pytest.mark.parametrize("stop_impl", HOOKS)
def test_a_stage_turn_end_to_end(
    turn: tuple[Path, dict[str, str]], prompt_impl: str, stop_impl: str
) -> None:
    """Either implementation's Stop hook reads either one's turn record."""
    root, env = turn
    prompt = _run(
        HOOKS[prompt_impl]["prompt"],
        env,
        input=_payload(root, "UserPromptSubmit", prompt="/dr-plan TUNE-0032"),
    )
    stop = _run(
        HOOKS[stop_impl]["stop"],
        env,
        input=_payload(root, "Stop", stop_hook_active=False, last_assistant_message=ANSWER),
    )
    assert [prompt.returncode, prompt.stdout, prompt.stderr] == [0, b"", b""]
    assert [stop.returncode, stop.stdout, stop.stderr] == [0, b"", b""]
    text = _snapshot(root).read_text()
    assert "stage: plan\ncommand: /dr-plan\n" in text
    assert text.endswith(ANSWER)
    state = Path(env["HOME"]) / ".local" / "state" / "datarim"
    assert os.listdir(state / "turns") == []  # the record is spent
    assert not (state / "hooks.log").exists()


@pytest.mark.parametrize("impl", HOOKS)
def test_a_plain_prompt_after_a_stage_turn_writes_nothing(
    turn: tuple[Path, dict[str, str]], impl: str
) -> None:
    """The stage turn ended without a Stop (interrupted); the next, plain turn's
    Stop must not use its record."""
    root, env = turn
    _run(
        HOOKS[impl]["prompt"],
        env,
        input=_payload(root, "UserPromptSubmit", prompt="/dr-plan TUNE-0032"),
    )
    _run(
        HOOKS[impl]["prompt"],
        env,
        input=_payload(root, "UserPromptSubmit", prompt="and now explain it"),
    )
    _run(HOOKS[impl]["stop"], env, input=_payload(root, "Stop", last_assistant_message=ANSWER))
    assert not _snapshot(root).exists()


@pytest.mark.parametrize("impl", HOOKS)
@pytest.mark.parametrize("hook", ["prompt", "stop"])
def test_stdin_a_socket(turn: tuple[Path, dict[str, str]], impl: str, hook: str) -> None:
    """A Node parent's stdio 'pipe' is a socket, which /dev/stdin cannot re-open."""
    root, env = turn
    if hook == "stop":
        _run(
            HOOKS[impl]["prompt"],
            env,
            input=_payload(root, "UserPromptSubmit", prompt="/dr-plan TUNE-0032"),
        )
        payload = _payload(root, "Stop", last_assistant_message=ANSWER)
    else:
        payload = _payload(root, "UserPromptSubmit", prompt="/dr-plan TUNE-0032")
    ours, theirs = socket.socketpair()
    with ours, theirs:
        ours.sendall(payload)
        ours.shutdown(socket.SHUT_WR)
        done = _run(HOOKS[impl][hook], env, stdin=theirs)
    assert [done.returncode, done.stdout, done.stderr] == [0, b"", b""]
    record = Path(env["HOME"]) / ".local" / "state" / "datarim" / "turns" / "3f2a-9c"
    if hook == "stop":
        assert _snapshot(root).is_file() and not record.exists()
    else:
        assert record.read_text() == "stage=plan\ntask=TUNE-0032\nturn=\n"


def _write_all(command: list[str], env: dict[str, str], payload: bytes) -> tuple[int, str]:
    """Writes payload to the hook's stdin from another thread, as a runtime does;
    the hook's exit code and what the write saw ("" when it was delivered)."""
    proc = subprocess.Popen(
        command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None
    seen: list[str] = []

    def write() -> None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(payload)
            proc.stdin.close()
            seen.append("")
        except BrokenPipeError as exc:
            seen.append(repr(exc))

    writer = threading.Thread(target=write)
    writer.start()
    assert proc.stdout is not None and proc.stderr is not None
    out, err = proc.stdout.read(), proc.stderr.read()
    writer.join(60)
    code = proc.wait(60)
    assert (out, err) == (b"", b"")
    return code, seen[0]


@pytest.mark.parametrize("impl", HOOKS)
@pytest.mark.parametrize("hook", ["prompt", "stop"])
@pytest.mark.parametrize("size", [200_000, 3_000_000])
def test_the_whole_payload_is_read_whatever_the_hook_does(
    turn: tuple[Path, dict[str, str]], impl: str, hook: str, size: int
) -> None:
    """More than a pipe holds, with no turn record (the Stop hook's fast path) and
    past the payload limit: the runtime's write never fails (EPIPE), exit 0."""
    root, env = turn
    payload = _payload(root, "Stop", prompt="thanks", last_assistant_message="x" * size)
    assert _write_all(HOOKS[impl][hook], env, payload) == (0, "")


@pytest.mark.parametrize("impl", HOOKS)
def test_a_disabled_hook_reads_the_whole_payload(
    turn: tuple[Path, dict[str, str]], impl: str
) -> None:
    root, env = turn
    payload = _payload(root, "Stop", last_assistant_message="x" * 500_000)
    for hook in ("prompt", "stop"):
        assert _write_all(
            HOOKS[impl][hook], {**env, "DATARIM_DISABLE_STOP_HOOK": "1"}, payload
        ) == (0, "")


def _bash_state_dir(env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    script = f'. {REPO}/scripts/lib/hook-state.sh && hook_state_dir dir && printf %s "$dir"'
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, check=False)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"HOME": "/h"}, "/h/.local/state/datarim"),
        ({"HOME": "/h", "XDG_STATE_HOME": "/x"}, "/x/datarim"),
        ({"HOME": "/h", "XDG_STATE_HOME": "x"}, "/h/.local/state/datarim"),
        ({"HOME": "/h", "XDG_STATE_HOME": "/x", "DATARIM_STATE_DIR": "/s"}, "/s"),
        ({"HOME": "/h", "DATARIM_STATE_DIR": "s"}, None),
        ({"HOME": ""}, None),
        ({"HOME": "home"}, None),
        ({}, None),
    ],
)
def test_the_state_directory(env: dict[str, str], expected: str | None) -> None:
    """Never /.local at the file system's root for want of a HOME."""
    from datarim_snapshot import hook_state

    bash = _bash_state_dir({"PATH": os.environ["PATH"], **env})
    assert (bash.stdout.decode() if bash.returncode == 0 else None) == expected
    saved = dict(os.environ)
    try:
        for name in ("HOME", "XDG_STATE_HOME", "DATARIM_STATE_DIR"):
            os.environ.pop(name, None)
        os.environ.update(env)
        assert hook_state.state_dir() == expected
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.mark.parametrize("impl", HOOKS)
def test_a_hooks_own_temp_file_is_no_pending_turn(
    turn: tuple[Path, dict[str, str]], impl: str
) -> None:
    """An answer file a killed Stop hook left behind does not send every later
    Stop down the slow path, nor count as a record."""
    root, env = turn
    turns = Path(env["HOME"]) / ".local" / "state" / "datarim" / "turns"
    turns.mkdir(parents=True)
    (turns / ".answer.123.456").write_text(ANSWER)
    done = _run(HOOKS[impl]["stop"], env, input=b"not json")
    assert [done.returncode, done.stdout, done.stderr] == [0, b"", b""]
    assert not (turns.parent / "hooks.log").exists()  # the payload was never parsed
