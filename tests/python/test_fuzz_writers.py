"""Fuzzing the snapshot writers (docs/testing.md): random and hostile flag values, flag
sets and input files through both implementations. Both give the same exit code, stdout,
stderr and files; a refusal changes no byte and no entry of the workspace; a write
creates nothing but datarim/snapshots/<valid ID>.snapshot.md (and its directories).

DATARIM_FUZZ_EXAMPLES sets the number of examples (make test: a few dozen; make fuzz: 2000).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from datarim_snapshot._rules import task_id_ok
from datarim_snapshot._snapshot_validator import check_snapshot_file
from fuzzkit import FUZZ, Writer, flag_values, through_both_writers, writer_workspace
from hypothesis import event, given
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
WRITER = Writer(REPO / "dev-tools" / "snapshot-writer-wrapper.sh", "write", "snapshot-writer",
                "snapshots")  # fmt: skip
OLD = b"an old snapshot: never touched by a refused write\n"

VALID = {
    "--root": [".", "../..", "../../sub"],
    "--task": ["TUNE-0254", "DEV-1438-FU-engage-generator-perf"],
    "--stage": ["plan", "do", "auto"],
    "--command": ["/dr-plan", "/dr-do TUNE-0254"],
    "--captured-by": ["agent", "operator"],
    "--recommended-next": ["/dr-verify", "/dr-do"],
    "--body-file": ["{IN}/body"],
    "--options-file": ["{IN}/options"],
    "--captured-at": ["2026-05-21T13:45:00Z", "2024-02-29T23:59:59Z"],
}
REQUIRED = ["--root", "--task", "--stage", "--command", "--captured-by", "--recommended-next",
            "--body-file"]  # fmt: skip
HOSTILE = [
    "", " ", "-", "--", "--root", "-x", ".", "..", "/", "../../..", "../../datarim",
    "../../datarim/snapshots", "nope", "{IN}/body", "{IN}", "{IN}/missing", "../../link",
    "TUNE-0254/../../x", "../TUNE-0254", "TUNE-0254\n", "TUNE-0254 ", "tune-0254", "TUNE-0254.",
    "TUNE-0254/", "TUNE-0254\x01", "TÜNE-0254", "TUNE-025", "A" * 130 + "-0254",
    "/dr-x: y", "/dr-x #y", "/dr\nx", "/dr\tx", "/dr-x:", "/dr-x ", "plan\n", "agent ",
    "PLAN", "2026-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2026-05-21 13:45:00Z",
    "\u2028", "\ufeff/dr", "/dr-\u0085", "x" * 300, "$(touch pwned)", "`touch pwned`",
    "*", "~", "$HOME",
]  # fmt: skip
TEXT = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=20
)
FILE_BYTES = st.one_of(
    st.binary(max_size=200),
    st.text(alphabet='ab :#"\\\n\r\tж🚀', max_size=300).map(str.encode),
    st.sampled_from([b"x" * 9000, "ж".encode() * 4200, b"a\x00b", b"\xff\xfe", b"/dr-do | go\n"]),
)


@st.composite
def writer_calls(draw: st.DrawFn) -> tuple[list[str], bytes, bytes]:
    flags = [f for f in VALID if f in REQUIRED or draw(st.booleans())]
    # Mostly valid values, so refusals come one rule at a time, deep in the checks.
    argv = flag_values(draw, flags, VALID, st.one_of(st.sampled_from(HOSTILE), TEXT))
    extra = draw(st.sampled_from([[], [], [], ["--bogus", "x"], ["--task"], ["stray"], ["--help"]]))
    argv += extra
    return argv, draw(FILE_BYTES), draw(FILE_BYTES)


def _sandbox(base: Path, body: bytes, options: bytes) -> Path:
    """fuzzkit.writer_workspace with an old snapshot; returns where the writer runs."""
    cwd = writer_workspace(base, "snapshots", {"body": body, "options": options})
    (base / "ws" / "datarim" / "snapshots" / "TUNE-0254.snapshot.md").write_bytes(OLD)
    return cwd


def _check_write(base: Path, out: bytes, err: bytes, written: dict[str, str]) -> None:
    assert out == b"" and err == b""
    for rel, task in written.items():
        assert task_id_ok(task)
        check_snapshot_file(str(base / rel), task)


@FUZZ
@given(call=writer_calls())
def test_fuzz_flag_values_through_both_writers(
    tmp_path: Path, call: tuple[list[str], bytes, bytes]
) -> None:
    argv, body, options = call
    sandbox = partial(_sandbox, body=body, options=options)
    code, _, err = through_both_writers(tmp_path / "sandbox", argv, WRITER, sandbox, _check_write)
    event(f"exit {code}: {err[:40]!r}")
