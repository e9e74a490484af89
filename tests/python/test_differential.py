"""Differential tests: random bodies and options through both writers give the same bytes and codes.

Also checks what neither implementation may get wrong on its own: the file is always valid
YAML frontmatter whose `options` round-trip, within the cap, and accepted by both validators.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml
from datarim_snapshot._rules import CAP, MARKER
from datarim_snapshot._snapshot_writer import render_snapshot
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
WRITER = REPO / "dev-tools" / "snapshot-writer-wrapper.sh"
CHECKER = REPO / "dev-tools" / "check-stage-snapshot-on-exit.sh"
EXAMPLES = int(os.environ.get("DATARIM_FUZZ_EXAMPLES", "60"))
STAMP = "2026-05-21T13:45:00Z"

# Characters of every UTF-8 width, plus the ones YAML and the options grammar care about.
TEXT_CHARS = st.sampled_from(
    list("aZ09 :#\"'\\|-{}[],&*!%@`\t") + ["я", "€", "ж", "🚀", "𝄞", "\u00a0"]
)
BODY_CHARS = st.one_of(TEXT_CHARS, st.sampled_from(["\n", "\r"]))


def _run_bash(root: Path, body: Path, options: Path | None) -> tuple[int, bytes, bytes]:
    args = [str(WRITER), "--root", str(root), "--task", "TUNE-0254", "--stage", "plan"]
    args += ["--command", "/dr-plan", "--captured-by", "agent", "--recommended-next", "/dr-do"]
    args += ["--body-file", str(body), "--captured-at", STAMP]
    if options is not None:
        args += ["--options-file", str(options)]
    proc = subprocess.run(args, capture_output=True, env={**os.environ, "LC_ALL": "C.UTF-8"})
    snapshot = root / "datarim" / "snapshots" / "TUNE-0254.snapshot.md"
    # The root is named by the notice of a new knowledge base; each writer has its own.
    stderr = proc.stderr.replace(str(root).encode(), b"{ROOT}")
    return proc.returncode, stderr, snapshot.read_bytes() if snapshot.exists() else b""


def _run_python(root: Path, body: Path, options: Path | None) -> tuple[int, bytes, bytes]:
    import io

    from datarim_snapshot import _cli as cli

    args = ["write", "--root", str(root), "--task", "TUNE-0254", "--stage", "plan"]
    args += ["--command", "/dr-plan", "--captured-by", "agent", "--recommended-next", "/dr-do"]
    args += ["--body-file", str(body), "--captured-at", STAMP]
    if options is not None:
        args += ["--options-file", str(options)]
    out, err = io.BytesIO(), io.BytesIO()
    code = cli.main(args, out, err)
    snapshot = root / "datarim" / "snapshots" / "TUNE-0254.snapshot.md"
    stderr = err.getvalue().replace(str(root).encode(), b"{ROOT}")
    return code, stderr, snapshot.read_bytes() if snapshot.exists() else b""


def _both(body: bytes, options: bytes | None) -> tuple[int, bytes, bytes]:
    """Runs both writers on the same inputs; asserts they agree; returns (code, stderr, file)."""
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        body_file = base / "body.md"
        body_file.write_bytes(body)
        options_file = None
        if options is not None:
            options_file = base / "options.txt"
            options_file.write_bytes(options)
        results = []
        for name, run in (("bash", _run_bash), ("python", _run_python)):
            root = base / name
            root.mkdir()
            results.append(run(root, body_file, options_file))
    assert results[0] == results[1], f"bash {results[0][:2]!r} != python {results[1][:2]!r}"
    return results[0]


def _check_written(data: bytes, options: list[str]) -> None:
    assert len(data) <= CAP
    head, _, _ = data[4:].partition(b"\n---\n\n")
    meta = yaml.safe_load(head.decode("utf-8"))
    assert meta["size_bytes"] == len(data)
    assert meta["options"] == options
    if meta["truncated"]:
        assert data.endswith(MARKER)


def _options_list(options: bytes) -> list[str]:
    # A BOM opening the file is no part of its first line (spec §2).
    options = options[3:] if options.startswith(b"\xef\xbb\xbf") else options
    lines = [line[:-1] if line.endswith(b"\r") else line for line in options.split(b"\n")]
    return [line.decode("utf-8") for line in lines if line]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    body=st.text(BODY_CHARS, max_size=300).map(lambda s: s.encode("utf-8")),
    repeat=st.integers(min_value=1, max_value=60),
    options=st.lists(st.text(TEXT_CHARS, min_size=1, max_size=40), max_size=5),
    crlf=st.booleans(),
)
def test_property_random_bodies_and_options_agree(
    body: bytes, repeat: int, options: list[str], crlf: bool
) -> None:
    end = "\r\n" if crlf else "\n"
    option_bytes = "".join(o + end for o in options).encode("utf-8")
    code, stderr, data = _both(body * repeat, option_bytes)
    assert code == 0, stderr
    _check_written(data, [o for o in options if o])


@settings(max_examples=EXAMPLES, deadline=None)
@given(raw=st.binary(max_size=200), body=st.binary(max_size=200))
@example(raw=b"\xef\xbb\xbf", body=b"")  # an options file of a BOM alone: no option
@example(raw=b"\xef\xbb\xbf/dr-qa\n", body=b"")
def test_property_arbitrary_bytes_agree(raw: bytes, body: bytes) -> None:
    code, stderr, data = _both(body, raw)
    assert code in (0, 1)
    if code == 0:
        _check_written(data, _options_list(raw))
    else:
        assert stderr.count(b"\n") == 1 and data == b""


def _room(options: bytes) -> int:
    """Largest body that fits untruncated, derived from the Python renderer's header size."""
    empty = render_snapshot("TUNE-0254", "plan", "/dr-plan", "agent", "/dr-do", STAMP, options, b"")
    fixed = len(empty) - len(str(len(empty)))  # everything but size_bytes' own digits
    return CAP - fixed - 4


@pytest.mark.parametrize("char", ["a", "я", "€", "🚀"])
def test_every_body_size_around_the_cap_agrees(char: str) -> None:
    options = b"/dr-do TUNE-0254 | go\n"
    room = _room(options)
    unit = char.encode("utf-8")
    for size in range(room - 6, room + 70):
        body = (unit * (size // len(unit) + 2))[:size]
        code, stderr, data = _both(body, options)
        if code == 0:
            _check_written(data, ["/dr-do TUNE-0254 | go"])
            truncated = b"truncated: true" in data
            assert truncated == (size > room)
            if truncated:
                kept = data[data.index(b"\n---\n\n") + 6 : -len(MARKER)]
                kept.decode("utf-8")  # the cut lands on a character boundary
                assert body.startswith(kept)
                assert len(data) + len(unit) > CAP  # the longest prefix that fits
        else:
            # Only an untruncated body that itself ends mid-character is refused.
            assert size <= room and size % len(unit) != 0, stderr


def test_both_validators_accept_every_differential_output() -> None:
    body = ("Итог: готово 🚀\r\n" * 700).encode("utf-8")
    code, _, data = _both(body, b'a: b\n# c\n"q" \\ \n')
    assert code == 0
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "datarim" / "snapshots"
        path.mkdir(parents=True)
        (path / "TUNE-0254.snapshot.md").write_bytes(data)
        proc = subprocess.run([str(CHECKER), "--task", "TUNE-0254", "--root", scratch])
        assert proc.returncode == 0
        from datarim_snapshot import validate_stage_snapshot

        validate_stage_snapshot("TUNE-0254", scratch)


# Secrets planted in random bodies: their distinctive cores may never reach the disk, whole
# or in part, wherever the cap or the 16 KiB window falls.
SECRET_CORES = (
    "Q7xK9mZ2pL4vN8rT1wY6bH3cJ5dF0gS2aE9u",
    "AKIAZX7Q4W2E9R1T5Y3U",
    "Vb82Hn4Jm6Kq1Lw3",
    "Hj3Kp9Lm2Nq5Rs8T",
)
# (Each stands apart from its neighbours, as the rules require: AKIA… glued to a letter
# is not a key.)
SECRET_PIECES = (
    " ghp_" + SECRET_CORES[0] + " ",
    " " + SECRET_CORES[1] + " ",
    " password=" + SECRET_CORES[2] + " ",
    "\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA"
    + SECRET_CORES[2]
    + "\n-----END RSA PRIVATE KEY-----\n",
    ' {"Authorization": "Bearer ' + SECRET_CORES[3] + '"} ',
    "\n> -----BEGIN PRIVATE KEY-----\n> MIIEowIBAAKCAQEA"
    + SECRET_CORES[2]
    + "\n>\n> -----END PRIVATE KEY-----\n",
)
PROSE_PIECES = (
    "word ", "a longer line of ordinary prose, with commas.\n", "\n", "ключ ", "🚀 ", "x" * 700,
)  # fmt: skip


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(st.sampled_from(SECRET_PIECES + PROSE_PIECES), min_size=1, max_size=40),
    repeat=st.integers(min_value=1, max_value=80),
)
def test_property_no_part_of_a_secret_reaches_the_disk(pieces: list[str], repeat: int) -> None:
    body = ("".join(pieces) * repeat).encode("utf-8")
    code, stderr, data = _both(body, None)
    assert code == 0, stderr
    _check_written(data, [])
    for core in SECRET_CORES:
        assert core[:6].encode() not in data
