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
import resource
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from fuzzkit import FUZZ
from hypothesis import given
from hypothesis import strategies as st

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
    proc.stdout.close()  # pytest turns the ResourceWarning of an open pipe into an error
    proc.stderr.close()
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
@pytest.mark.parametrize("hook", ["prompt", "stop"])
def test_a_huge_payload_is_refused_as_it_is_read(
    turn: tuple[Path, dict[str, str]], impl: str, hook: str
) -> None:
    """50 MB with a turn record pending (so both hooks parse it): the size is
    checked while reading, not after taking it all in (bash's awk used to hold
    and scan the whole of it, 20 s of CPU, past the runtime's 10 s timeout).
    The rest is read away unparsed: well under a second of CPU, the write
    delivered whole, the failure logged."""
    root, env = turn
    state = Path(env["HOME"]) / ".local" / "state" / "datarim"
    (state / "turns").mkdir(parents=True, mode=0o700)
    record = state / "turns" / "3f2a-9c"
    record.write_text("stage=plan\ntask=TUNE-0032\nturn=\n")
    answer = "x" * 50_000_000
    payload = _payload(root, "Stop", prompt="/dr-plan TUNE-0032", last_assistant_message=answer)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    assert _write_all(HOOKS[impl][hook], env, payload) == (0, "")
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    assert cpu < 2.0 and wall < 8.0, (cpu, wall)
    log = (state / "hooks.log").read_text()
    assert f" {hook}-hook payload over 262144 bytes" in log
    # A prompt whose session cannot be told drops every pending record.
    assert record.exists() == (hook == "stop")


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
    from datarim_snapshot import _hook_state as hook_state

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


def _awk_utf8_valid(awk: list[str], samples: list[bytes], scratch: Path) -> list[bool]:
    """utf8_valid of datarim-rules.awk over samples (hex-encoded, one a line)."""
    program = scratch / "utf8.awk"
    program.write_text(
        'function unhex(h,    i, out) { out = ""; for (i = 1; i < length(h); i += 2)'
        ' out = out sprintf("%c", (index("0123456789abcdef", substr(h, i, 1)) - 1) * 16'
        ' + index("0123456789abcdef", substr(h, i + 1, 1)) - 1); return out }\n'
        "BEGIN { rules_init() }\n{ print utf8_valid(unhex($0)) }\n"
    )
    rules = str(REPO / "scripts" / "lib" / "datarim-rules.awk")
    lines = "".join(sample.hex() + "\n" for sample in samples).encode()
    done = subprocess.run(
        [*awk, "-f", rules, "-f", str(program)],
        input=lines,
        capture_output=True,
        env={"LC_ALL": "C", "PATH": os.environ["PATH"]},
        check=True,
    )
    return [line == b"1" for line in done.stdout.splitlines()]


def _python_valid(sample: bytes) -> bool:
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize("awk", [["awk"], ["busybox", "awk"]], ids=["awk", "busybox-awk"])
def test_utf8_valid_is_pythons_strict_decoding(awk: list[str], tmp_path: Path) -> None:
    """The payload readers check UTF-8 with one regex; it must be exactly strict
    decoding: every lead and continuation byte at every boundary, and random runs."""
    import random

    if awk[0] == "busybox" and shutil.which("busybox") is None:
        pytest.skip("no busybox here")
    rng = random.Random(13)
    edges = [0x00, 0x01, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF]
    edges += [0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
    samples = [bytes([a]) for a in edges]
    samples += [bytes([a, b]) for a in edges for b in edges]
    samples += [bytes([a, b, c]) for a in edges[10:] for b in edges[3:10] for c in edges[3:10]]
    samples += [
        bytes([a, b, c, d])
        for a in edges[-6:]
        for b in edges[3:10]
        for c in (0x80, 0xBF)
        for d in (0x80, 0xC0)
    ]
    samples += ["ünï — код 😀".encode() + bytes([rng.randrange(256)]) for _ in range(50)]
    samples += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 12))) for _ in range(2000)]
    samples = [s.replace(b"\x00", b"\x01").replace(b"\n", b" ") for s in samples]
    verdicts = _awk_utf8_valid(awk, samples, tmp_path)
    assert len(verdicts) == len(samples)
    assert verdicts == [_python_valid(s) for s in samples]


_JSONISH = st.text(
    alphabet='{}[]:,"\\ \t\n\r0123456789.eE+-truefalsnNaIiy\u00e9\x01\ufeffuab', max_size=40
)


def _outcome(read: object, text: str) -> object:
    try:
        return ("value", read(text))  # type: ignore[operator]
    except (ValueError, RecursionError) as exc:
        return ("refused", type(exc).__name__)


@FUZZ
@given(
    text=st.one_of(
        _JSONISH,
        st.builds(
            json.dumps,
            st.recursive(
                st.one_of(
                    st.none(),
                    st.booleans(),
                    st.integers(),
                    st.floats(allow_nan=False),
                    st.text(max_size=5),
                ),
                lambda inner: st.one_of(
                    st.lists(inner, max_size=3),
                    st.dictionaries(st.text(max_size=3), inner, max_size=3),
                ),
                max_leaves=10,
            ),
        ),
    )
)
def test_the_payload_reader_reads_as_json_loads(text: str) -> None:
    """hook_payload.loads takes the C scanner's short cut; its values and verdicts must be
    json.loads' own (with parse_int=float and NaN/Infinity refused)."""
    from datarim_snapshot import _hook_payload as hook_payload

    def reference(value: str) -> object:
        def refuse(name: str) -> object:
            raise ValueError(name)

        return json.loads(value, parse_constant=refuse, parse_int=float)

    assert _outcome(hook_payload.loads, text) == _outcome(reference, text)


def test_a_hook_reading_its_payload_imports_no_json_module() -> None:
    """The short cut is taken: neither json nor re is loaded for a valid payload."""
    code = (
        "import sys; from datarim_snapshot._hook_payload import load_payload; "
        "assert load_payload(b'{\"a\": [1, \"x\"]}') == {'a': [1.0, 'x']}; "
        "print(sorted(m for m in ('json', 're') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert done.stdout == b"[]\n"
