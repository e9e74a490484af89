"""Input flags read from a pipe, both implementations (docs/operator-guide.md "Piped input").

The corpus feeds "-" from a file (bats) or a pipe (the Python command); here
real shell pipelines run each writer: a producer that writes far more than is
kept must not die of SIGPIPE (so `set -o pipefail` pipelines succeed), a
process substitution and a named FIFO are read like files, /dev/stdin is the
pipe itself, a closed standard input is refused, and a regular file on the
standard input is read no further than what is kept. Each test runs both
implementations and compares exit codes, streams and the files written.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PYTHON = f"{shlex.quote(sys.executable)} -m datarim_snapshot"
WRITERS = {
    "write": {
        "bash": shlex.quote(str(REPO / "dev-tools" / "snapshot-writer-wrapper.sh")),
        "python": f"{PYTHON} write",
    },
    "emit": {
        "bash": shlex.quote(str(REPO / "dev-tools" / "emit-stage-snapshot.sh")),
        "python": f"{PYTHON} emit",
    },
    "session-write": {
        "bash": shlex.quote(str(REPO / "dev-tools" / "session-handoff-writer-wrapper.sh")),
        "python": f"{PYTHON} session-write",
    },
}
WRITE_FLAGS = (
    "--root ws --task TUNE-0254 --stage plan --command /dr-plan --captured-by agent "
    "--recommended-next /dr-do --captured-at 2026-05-21T13:45:00Z"
)
EMIT_FLAGS = (
    "--root ws --task TUNE-0032 --stage plan --command /dr-plan --captured-at 2026-05-21T13:45:00Z"
)
SESSION_FLAGS = (
    "--root ws --session SESSION-20260521-134500 --captured-by agent "
    '--recommended-next "/dr-do TUNE-0254" --next-action "finish it" '
    "--captured-at 2026-05-21T13:45:00Z"
)
ANSWER = (
    "**TUNE-0032 · Piped**\n\n{log}\n---\n\n**Следующий шаг — TUNE-0032** (L3, in_progress)\n\n"
    "1. `/dr-qa TUNE-0032` — **рекомендуется** — check it\n2. `/dr-status` — escape hatch\n\n---\n"
)
Result = tuple[int, bytes, bytes, dict[str, bytes]]
SESSION_BODY = "## Layer 1 — Git State\nno repository\n## Layer 5 — Failed Approaches\nnone\n"


def _run(script: str, sandbox: Path, impl: str, suite: str) -> Result:
    """Runs a bash script in a fresh copy of sandbox with $W the writer of impl;
    returns the exit code, stdout, stderr and the files under ws/datarim."""
    work = sandbox / impl
    work.mkdir()
    (work / "ws" / "datarim").mkdir(parents=True)
    (work / "ws" / "datarim" / "tasks.md").write_text("# Tasks\n")  # a knowledge base already
    for name in ("big", "answer", "tasks", "body"):
        source = sandbox / name
        if source.exists():
            (work / name).write_bytes(source.read_bytes())
    env = dict(os.environ, W=WRITERS[suite][impl], LC_ALL="C.UTF-8", TZ="UTC")
    done = subprocess.run(
        ["bash", "-c", "set -o pipefail\n" + script],
        cwd=work,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    files = {}
    datarim = work / "ws" / "datarim"
    for path in sorted(datarim.rglob("*")) if datarim.exists() else []:
        if path.is_file():
            files[str(path.relative_to(work))] = path.read_bytes()
    return done.returncode, done.stdout, done.stderr, files


def _both(script: str, sandbox: Path, suite: str = "write") -> Result:
    bash = _run(script, sandbox, "bash", suite)
    python = _run(script, sandbox, "python", suite)
    assert python == bash
    return bash


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    line = b"a line of a long answer that goes on and on, sixty bytes..\n"
    (tmp_path / "big").write_bytes(line * 200_000)  # 12 MB: far past what is kept
    log = "\n".join(f"Log line {i:04d}: gate output." for i in range(2000))
    (tmp_path / "answer").write_text(ANSWER.format(log=log))
    (tmp_path / "tasks").write_text("TUNE-0254 | in_progress\n")
    (tmp_path / "body").write_text(SESSION_BODY)
    return tmp_path


def test_a_producer_of_megabytes_is_not_killed_by_sigpipe(sandbox: Path) -> None:
    """`cat huge | writer --body-file -` under pipefail: the pipeline succeeds."""
    script = f'cat big | $W {WRITE_FLAGS} --body-file -; echo "pipeline $? cat ${{PIPESTATUS[0]}}"'
    code, out, err, files = _both(script, sandbox)
    assert (code, out, err) == (0, b"pipeline 0 cat 0\n", b"")
    snapshot = files["ws/datarim/snapshots/TUNE-0254.snapshot.md"]
    assert len(snapshot) == 8192 and b"truncated: true\n" in snapshot


def test_emit_reads_a_piped_answer_to_its_cta_block(sandbox: Path) -> None:
    """The CTA block ends the answer: the whole stream is read, the body kept from its start."""
    script = f"cat answer | $W {EMIT_FLAGS} --response-file -"
    code, out, err, files = _both(script, sandbox, "emit")
    assert (code, out, err) == (0, b"", b"")
    snapshot = files["ws/datarim/snapshots/TUNE-0032.snapshot.md"]
    assert b"recommended_next: /dr-qa\n" in snapshot
    assert b"\n\n**TUNE-0032 \xc2\xb7 Piped**\n\nLog line 0000" in snapshot


def test_process_substitution_and_dev_stdin(sandbox: Path) -> None:
    """<(...) (a /dev/fd path to a pipe) and /dev/stdin (the pipe itself) read like files."""
    script = (
        f"printf '/dr-do TUNE-0254 | go\\n' | $W {WRITE_FLAGS} "
        "--body-file <(printf 'from a process substitution\\n') --options-file /dev/stdin"
    )
    code, out, err, files = _both(script, sandbox)
    assert (code, out, err) == (0, b"", b"")
    snapshot = files["ws/datarim/snapshots/TUNE-0254.snapshot.md"]
    assert b'  - "/dr-do TUNE-0254 | go"\n' in snapshot
    assert snapshot.endswith(b"---\n\nfrom a process substitution\n")


def test_a_named_fifo_is_read_to_its_end(sandbox: Path) -> None:
    """A FIFO's writer (here `cat big`) sees its whole output read: no SIGPIPE."""
    script = (
        "mkfifo fifo; cat big >fifo & producer=$!\n"
        f"$W {WRITE_FLAGS} --body-file fifo; status=$?\n"
        'wait "$producer"; echo "writer $status producer $?"'
    )
    code, out, err, _ = _both(script, sandbox)
    assert (code, out, err) == (0, b"writer 0 producer 0\n", b"")


def test_session_handoff_from_pipes(sandbox: Path) -> None:
    code, out, err, files = _both(
        f"cat body | $W {SESSION_FLAGS} --active-tasks-file <(cat tasks) --body-file -",
        sandbox,
        "session-write",
    )
    assert code == 0 and err == b""
    assert out.startswith(b"Session saved \xe2\x86\x92 datarim/sessions/SESSION-20260521-134500")
    saved = files["ws/datarim/sessions/SESSION-20260521-134500.session.md"]
    assert saved.endswith(b"---\n\n" + SESSION_BODY.encode())


def test_a_closed_standard_input_is_refused(sandbox: Path) -> None:
    code, out, err, files = _both(f"$W {WRITE_FLAGS} --body-file - <&-", sandbox)
    assert (code, out, files) == (1, b"", {"ws/datarim/tasks.md": b"# Tasks\n"})
    assert err == b"snapshot-writer: --body-file -: the standard input is closed\n"


def test_a_file_on_stdin_is_read_no_further_than_what_is_kept(sandbox: Path) -> None:
    """`{ writer --body-file -; cat; } <file`: the rest of the file is still there
    for the next reader, from byte 16385 on (the body window and one byte)."""
    script = f"{{ $W {WRITE_FLAGS} --body-file - && wc -c; }} <big"
    code, out, err, _ = _both(script, sandbox)
    size = (sandbox / "big").stat().st_size
    assert (code, out.split(), err) == (0, [str(size - 16385).encode()], b"")
