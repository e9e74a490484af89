"""emit, beyond the data-driven corpus in tests/conformance/suites/emit.

* the replay of an emitted snapshot, from either implementation, shows the
  primary option with its purpose as the CTA line;
* the Python API (dry run, disabled);
* a property test: the awk and the Python CTA parsers give the same bytes and
  codes on generated answers, well-formed or not.
"""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

import pytest
from datarim_snapshot import _cli as cli
from datarim_snapshot._snapshot_emit import emit_stage_snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
BASH_EMIT = REPO / "dev-tools" / "emit-stage-snapshot.sh"
STAMP = "2026-05-21T13:45:00Z"
EXAMPLES = int(os.environ.get("DATARIM_FUZZ_EXAMPLES", "40"))

# The primary is option 2 and option 1 has the same first word: the replay must
# still show the primary (emit.bats reads the same answer).
ANSWER = (REPO / "tests" / "fixtures" / "cta-primary-second.md").read_text(encoding="utf-8")


def _args(root: Path, answer: Path, *extra: str) -> list[str]:
    return [
        "--root", str(root), "--task", "TUNE-0032", "--stage", "verify",
        "--command", "/dr-verify", "--response-file", str(answer), "--captured-at", STAMP,
        *extra,
    ]  # fmt: skip


def _env() -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "LC_ALL": "C.UTF-8", "TZ": "UTC"}


def _run_bash(args: list[str]) -> tuple[int, bytes, bytes]:
    proc = subprocess.run(
        [str(BASH_EMIT), *args], env=_env(), capture_output=True, timeout=60, check=False
    )
    return proc.returncode, proc.stdout, proc.stderr


def _run_python(args: list[str]) -> tuple[int, bytes, bytes]:
    out, err = io.BytesIO(), io.BytesIO()
    code = cli.main(["emit", *args], out, err)
    return code, out.getvalue(), err.getvalue()


def test_replay_of_an_emitted_snapshot_shows_the_primary_option(tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(ANSWER, encoding="utf-8")
    snapshots = []
    for name, run in (("bash", _run_bash), ("python", _run_python)):
        root = tmp_path / name
        (root / "datarim").mkdir(parents=True)
        (root / "datarim" / "tasks.md").write_text("# Tasks\n")  # no new-knowledge-base notice
        assert run(_args(root, answer)) == (0, b"", b"")
        snapshots.append((root / "datarim/snapshots/TUNE-0032.snapshot.md").read_bytes())
    assert snapshots[0] == snapshots[1]
    # Option 1 also starts with /dr-do; the replay must still show the primary.
    out, err = io.BytesIO(), io.BytesIO()
    code = cli.main(["replay", "--task", "TUNE-0032", "--root", str(tmp_path / "bash")], out, err)
    assert (code, err.getvalue()) == (0, b"")
    prompt = out.getvalue()
    assert prompt.split(b"\n", 1)[0] == b"/dr-do TUNE-0032 | TDD implementation"
    assert prompt.endswith(b"done before:\n" + ANSWER.encode())


def test_api_dry_run_returns_what_would_be_written_and_touches_nothing(tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(ANSWER, encoding="utf-8")
    root = tmp_path / "ws"
    root.mkdir()
    emission = emit_stage_snapshot(
        root, "TUNE-0032", "verify", "/dr-verify", answer, captured_at=STAMP, dry_run=True
    )
    assert emission.path is None
    assert emission.recommended_next == "/dr-do"
    assert emission.options == [
        "/dr-do TUNE-0032 | TDD implementation",
        "/dr-do TUNE-0032 --dry-run | check the plan's steps without changing code",
        "/dr-status | escape hatch",
    ]
    assert emission.preview.startswith(b"recommended_next: /dr-do\noptions:\n")
    assert list(root.iterdir()) == []
    written = emit_stage_snapshot(root, "TUNE-0032", "verify", "/dr-verify", answer)
    assert written.path is not None
    assert emission.preview in Path(written.path).read_bytes()


def test_api_reads_no_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The commands' switches: the API's caller says what it wants in arguments.
    monkeypatch.setenv("DATARIM_DISABLE_SNAPSHOT", "1")
    monkeypatch.setenv("DATARIM_SNAPSHOT_REDACT", "0")
    answer = tmp_path / "answer.md"
    answer.write_text("DB_PASSWORD=hunter2\n" + ANSWER, encoding="utf-8")
    written = emit_stage_snapshot(tmp_path, "TUNE-0032", "do", "/dr-do", answer)
    assert written.path is not None
    assert b"DB_PASSWORD=[REDACTED]\n" in Path(written.path).read_bytes()
    kept = emit_stage_snapshot(tmp_path, "TUNE-0032", "do", "/dr-do", answer, redact=False)
    assert b"DB_PASSWORD=hunter2\n" in Path(str(kept.path)).read_bytes()


# Generated answers: the pieces of the grammar, near misses and hostile bytes.
# U+E000 and U+E001 stand for a raw 0xFF byte and a NUL, spliced in after encoding.
_PIECES = [
    "TUNE-0032", "TUNE-0031", "/dr-do", "/dr-status", "dr-do", "`", " — ", "—", "**",
    "**рекомендуется**", "альтернатива", " | ", '"', "\\", "\t", "\x1b", "\r", "é", "🚀",
    ": ", " #", ":", "Эскалация", "---", " ", "x", "\ue000", "\ue001",
]  # fmt: skip
_text = st.lists(st.sampled_from(_PIECES), max_size=6).map("".join)
_command = st.one_of(
    st.sampled_from(["/dr-do TUNE-0032", "/dr-status", "/dr-do:", "dr-do", "", "/dr-qa  x"]),
    _text,
)
_marker = st.sampled_from(
    ["", " — **рекомендуется** — ", " — альтернатива — ", " — ", " - ", " — **рекомендуется**"]
)
_option = st.one_of(
    st.builds(lambda c, m, p: f"`{c}`{m}{p}", _command, _marker, _text),
    st.builds(lambda t, m, p: f"{t}{m}{p}", _text, _marker, _text),
)
_header = st.builds(
    lambda shape, task: shape.format(task),
    st.sampled_from(
        [
            "**Следующий шаг — {}** (L2, in_progress)",
            "**QA failed для {} — earliest failed layer: Layer 1 (lint)**",
            "**Expectations BLOCKED для {} — 1 wish-item(s) missed/partial без override**",
        ]
    ),
    st.sampled_from(["TUNE-0032"] * 6 + ["TUNE-0031", ""]),
)
_good_option = st.builds(
    lambda c, m, p: f"`{c}`{m}{p}",
    st.sampled_from(["/dr-do TUNE-0032", "/dr-status", '/dr-qa TUNE-0032 --focus-items "W-1"']),
    st.sampled_from([" — **рекомендуется** — ", " — альтернатива — ", " — "]),
    st.sampled_from(["implement", "escape hatch", "a: b | c", "", "и ещё — текст"]),
)
_numbered = st.builds(
    lambda options: [f"{n}. {o}" for n, o in enumerate(options, start=1)],
    st.lists(st.one_of(_good_option, _good_option, _good_option, _option), min_size=1, max_size=6),
)
_plain_noise = st.one_of(
    st.builds(lambda n, o: f"{n}. {o}", st.integers(1, 7), _option),
    st.sampled_from(["---", "**Другие активные задачи:**", "", "  ", "1.", "1. "]),
    st.builds(lambda o: f"- {o}", _option),
    _text,
)
_noise = st.one_of(_header, _plain_noise)
_block = st.builds(
    lambda header, options, others, close: [header, "", *options, *others, *close],
    _header,
    _numbered,
    st.one_of(
        st.just([]),
        st.lists(_plain_noise, max_size=3).map(lambda x: ["", "**Другие активные задачи:**", *x]),
    ),
    st.sampled_from(
        [["", "---"], [], ["---", "1. `/dr-qa TUNE-0032` — **рекомендуется** — after"]]
    ),
)
_answer = st.builds(
    lambda first, before, block, after, crlf, final: (
        (first + "\n" + ("\r\n" if crlf else "\n").join(before + block + after) + final)
        .encode("utf-8")
        .replace("\ue000".encode(), b"\xff")
        .replace("\ue001".encode(), b"\0")
    ),
    st.sampled_from(["**TUNE-0032 · title**"] * 3 + ["**TUNE-0031 · other**", "**Итог · x**", ""]),
    st.lists(_noise, max_size=5),
    st.one_of(_block, _block, _block, st.just([])),
    st.lists(st.one_of(_plain_noise, _plain_noise, _plain_noise, _noise), max_size=3),
    st.booleans(),
    st.sampled_from(["", "\n", "\r\n"]),
)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(answer=_answer, json=st.booleans())
def test_property_emit_parsers_agree(tmp_path: Path, answer: bytes, json: bool) -> None:
    path = tmp_path / "answer.md"
    path.write_bytes(answer)
    args = _args(tmp_path, path, "--json" if json else "--dry-run")
    assert _run_python(args) == _run_bash(args)
