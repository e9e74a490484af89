"""Fuzzing the snapshot validators (docs/testing.md): random and mutated snapshot files
through both implementations. Only the documented exit codes, the same one-line reason
from both, nothing on stdout, no traceback, and nothing accepted that an independent
reading of the contract (PyYAML plus the rules of spec §3, with the reference's plain
forms of §8) would reject.

DATARIM_FUZZ_EXAMPLES sets the number of examples (make test: a few dozen; make fuzz: 2000).
"""

from __future__ import annotations

import io
import os
import re
import subprocess
from datetime import datetime
from pathlib import Path

import pytest
import yaml
from datarim_snapshot import _cli as cli
from datarim_snapshot._rules import CAP, MARKER, REFERENCE_MARKER, STAGES
from datarim_snapshot._snapshot_writer import render_snapshot
from fuzzkit import decoded, mutate_lines, quote_plain_forms
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
CHECKER = REPO / "dev-tools" / "check-stage-snapshot-on-exit.sh"
EXAMPLES = int(os.environ.get("DATARIM_FUZZ_EXAMPLES", "40"))
TASK = "TUNE-0254"
FIELDS = [
    "task_id", "artifact", "schema_version", "stage", "command", "captured_at",
    "captured_by", "recommended_next", "options", "size_bytes", "truncated",
]  # fmt: skip
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-0123456789", min_size=1, max_size=12)
TEXT = st.text(
    alphabet=st.sampled_from(list("aZ09 :#\"'\\|-{}[],&*!%@`\t") + ["я", "€", "🚀", "\u00a0"]),
    min_size=1,
    max_size=40,
)
INTERESTING = [
    b"\n", b"---\n", b"\x00", b"\xff", b"\xc3", b"\xe2\x80\xa8", b"\xc2\x85", b": ", b" #",
    b'"', b"\\", b"\r", b"\t", b"\xef\xbb\xbf", b"truncated: true\n", b"options: []\n",
    b'  - "x"\n', b"stage: plan\n", MARKER, b"size_bytes: 1\n", b"{", b"[", b"'", b"&a ", b"*a",
    b"!!str ", b"? ", b"- ",
]  # fmt: skip
VALUES = [
    b"", b"true", b"1", b"01", b"[]", b"null", b"~", b"/dr-x", b"'q'", b'"q"', b"plan",
    b"agent", b"2026-02-30T00:00:00Z", b"2026-05-21T13:45:00Z", b"-1", b"TUNE-0254",
    b"stage-snapshot", b"/dr-a b", b"/x: y", b"/x #y", b"/x ", b"&x /a", b"!!int 1",
]  # fmt: skip


@st.composite
def valid_snapshots(draw: st.DrawFn) -> bytes:
    options = draw(st.lists(TEXT, max_size=4))
    body_size = draw(st.sampled_from([0, 1, 50, 400, 9000]))
    unit = draw(st.text(alphabet="ab \nж🚀", min_size=1, max_size=20))
    body = (unit * (body_size // len(unit) + 1))[:body_size]
    return render_snapshot(
        TASK,
        draw(st.sampled_from(STAGES)),
        "/" + draw(WORD),
        draw(st.sampled_from(["agent", "operator"])),
        "/" + draw(WORD),
        "2026-05-21T13:45:00Z",
        "\n".join(options).encode() if options else None,
        body.encode(),
    )


def _fix_size(data: bytes) -> bytes:
    """Rewrites size_bytes to the file's real size, so mutations reach the deeper rules."""
    match = re.search(rb"\nsize_bytes: [0-9]+\n", data)
    if not match:
        return data
    head, tail = data[: match.start()], data[match.end() :]
    total = len(data)
    for _ in range(3):
        candidate = head + b"\nsize_bytes: " + str(total).encode() + b"\n" + tail
        if len(candidate) == total:
            return candidate
        total = len(candidate)
    return data


@st.composite
def mutated_snapshots(draw: st.DrawFn) -> bytes:
    data = draw(valid_snapshots())
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "delete", "insert", "line", "value"]))
        at = draw(st.integers(0, len(data)))
        if kind == "flip" and data:
            at = min(at, len(data) - 1)
            data = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1 :]
        elif kind == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 20)) :]
        elif kind == "insert":
            data = data[:at] + draw(st.sampled_from(INTERESTING)) + data[at:]
        else:
            lines = data.split(b"\n")
            i = draw(st.integers(0, min(len(lines) - 1, 16)))
            j = draw(st.integers(0, min(len(lines) - 1, 16)))
            op = draw(st.sampled_from(["dup", "del", "swap"])) if kind == "line" else "value"
            mutate_lines(lines, i, j, op, draw(st.sampled_from(VALUES)))
            data = b"\n".join(lines)
    return _fix_size(data) if draw(st.booleans()) else data


def contract_violations(data: bytes, task: str) -> list[str]:
    """Why the contract would reject data: an independent reading with PyYAML."""
    text, found = decoded(data, CAP)
    if text is None:
        return found
    if not text.startswith("---\n"):
        return found + ["no frontmatter"]
    # The frontmatter ends at the first line that starts with "---": that line
    # alone, then a blank line (spec §3), or glued to the body's first line, as
    # the releases of 2026-05-25 to 2026-06-19 wrote it (spec §3.1).
    start = 4
    while True:
        end = text.find("\n", start)
        if end < 0:
            return found + ["frontmatter not closed"]
        if text.startswith("---", start):
            break
        start = end + 1
    front = text[4:start]
    glued = end > start + 3
    if glued and any(line.startswith("git_") for line in front.split("\n")):
        found.append("a glued fence after git fields (no release wrote one)")
    if not glued and text[end + 1 : end + 2] != "\n":
        found.append("no blank line after the frontmatter")
    try:
        doc = yaml.load(quote_plain_forms(front, (), ("options",)), Loader=yaml.BaseLoader)
    except yaml.YAMLError:
        return found + ["frontmatter is not YAML"]
    if not isinstance(doc, dict):
        return found + ["frontmatter is not a mapping"]
    if doc.get("options") == "" and "\noptions:\n" in "\n" + front:
        doc["options"] = []  # "options:" straight followed by the next key (spec §8)
    keys = [line.split(":", 1)[0] for line in front.split("\n") if line and line[0] not in " \t"]
    if keys != FIELDS or list(doc) != FIELDS:
        return found + [f"fields {keys}"]
    raw = {
        k: line[len(k) + 2 :]
        for line in front.split("\n")
        for k in FIELDS
        if line.startswith(k + ": ")
    }
    plain = {k: doc[k] for k in FIELDS if k != "options"}
    for key, value in plain.items():
        if not isinstance(value, str) or value != raw.get(key):
            found.append(f"{key} is not a plain one-line scalar")
    if doc["task_id"] != task:
        found.append("task_id")
    if doc["artifact"] != "stage-snapshot" or doc["schema_version"] != "1":
        found.append("artifact or schema_version")
    if doc["stage"] not in STAGES or doc["captured_by"] not in ("agent", "operator"):
        found.append("stage or captured_by")
    for key in ("command", "recommended_next"):
        value = doc[key]
        if (
            not isinstance(value, str)
            or not value.startswith("/")
            or re.search(r"[\x00-\x1f\x7f]", value)
        ):
            found.append(key)
    try:
        datetime.strptime(str(doc["captured_at"]), "%Y-%m-%dT%H:%M:%SZ")
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", str(doc["captured_at"]))
    except (ValueError, AssertionError):
        found.append("captured_at")
    options = doc["options"]
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        found.append("options is not a list of strings")
    elif any(re.search(r"[\x00-\x08\x0a-\x1f\x7f]", o) or not o for o in options):
        found.append("an option is empty or holds a control character")
    # Those releases counted a frontmatter of "size_bytes: 8192" and "truncated:
    # true": one byte short with "false" and a four-digit size.
    one_short = (
        glued
        and doc["truncated"] == "false"
        and len(data) - 1 >= 1000
        and doc["size_bytes"] == str(len(data) - 1)
    )
    if doc["size_bytes"] != str(len(data)) and not one_short:
        found.append("size_bytes")
    if doc["truncated"] not in ("true", "false"):
        found.append("truncated")
    elif doc["truncated"] == "true" and not data.endswith((MARKER, REFERENCE_MARKER)):
        found.append("truncated without the marker")
    return found


def _judge(tmp_path: Path, data: bytes, task: str = TASK) -> int:
    root = tmp_path / "ws"
    snapshots = root / "datarim" / "snapshots"
    snapshots.mkdir(parents=True, exist_ok=True)
    (snapshots / f"{task}.snapshot.md").write_bytes(data)
    args = ["--task", task, "--root", str(root)]
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    bash = subprocess.run([str(CHECKER), *args], capture_output=True, env=env, timeout=60)
    out, err = io.BytesIO(), io.BytesIO()
    code = cli.main(["check", *args], out, err)
    assert (code, out.getvalue(), err.getvalue()) == (
        bash.returncode,
        bash.stdout,
        bash.stderr,
    )
    assert code in (0, 1, 2) and bash.stdout == b""
    if code:
        assert bash.stderr.startswith(b"check-stage-snapshot: datarim/snapshots/")
        assert bash.stderr.count(b"\n") == 1 and bash.stderr.endswith(b"\n")
        assert b"Traceback" not in bash.stderr
    else:
        assert bash.stderr == b""
        assert contract_violations(data, task) == [], data
    return code


@FUZZ
@given(data=mutated_snapshots())
def test_fuzz_mutated_snapshots_through_both_validators(tmp_path: Path, data: bytes) -> None:
    _judge(tmp_path, data)


@FUZZ
@given(
    data=st.one_of(
        st.binary(max_size=400),
        st.builds(lambda a, b: a + b, valid_snapshots(), st.binary(max_size=40)),
    )
)
def test_fuzz_random_bytes_through_both_validators(tmp_path: Path, data: bytes) -> None:
    _judge(tmp_path, data)


@FUZZ
@given(data=valid_snapshots())
def test_fuzz_every_writer_rendering_is_accepted_by_both(tmp_path: Path, data: bytes) -> None:
    assert contract_violations(data, TASK) == []
    _judge(tmp_path, data)


LEGACY = sorted((REPO / "tests/conformance/fixtures/legacy/snapshots").glob("*/*.snapshot.md"))


@pytest.mark.parametrize("path", LEGACY, ids=[path.parent.name for path in LEGACY])
def test_the_reference_writers_snapshots_pass_the_reading_and_both_validators(
    tmp_path: Path, path: Path
) -> None:
    """Spec §8: every snapshot the reference wrote is valid to the independent reading
    (which takes its plain options, a bare options: and its marker) and to both validators."""
    task = path.name[: -len(".snapshot.md")]
    data = path.read_bytes()
    assert contract_violations(data, task) == []
    assert _judge(tmp_path, data, task) == 0


HISTORY = sorted((REPO / "tests/conformance/fixtures/history").glob("*/*/*.snapshot.md"))
REPLAY = REPO / "dev-tools" / "render-replay-prompt.sh"


@pytest.mark.parametrize("path", HISTORY, ids=["/".join(p.parts[-3:-1]) for p in HISTORY])
def test_every_reference_releases_snapshots_validate_and_replay_alike(
    tmp_path: Path, path: Path
) -> None:
    """Spec §8: what each reference release wrote, the glued terminator and the
    one-byte-short size of 2026-05-25..2026-06-19 included, is valid to the
    independent reading and to both validators, and replays to the same bytes."""
    data = path.read_bytes()
    assert contract_violations(data, TASK) == []
    assert _judge(tmp_path, data) == 0
    args = ["--task", TASK, "--root", str(tmp_path / "ws")]
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    bash = subprocess.run([str(REPLAY), *args], capture_output=True, env=env, timeout=60)
    out, err = io.BytesIO(), io.BytesIO()
    assert cli.main(["replay", *args], out, err) == bash.returncode == 0
    assert out.getvalue() == bash.stdout and err.getvalue() == bash.stderr == b""
    if b"\n---\n\n" not in data[: data.index(b"\ntruncated: ") + 30]:
        # The glued text is the body's first line: the replay's "done before:" opens with it.
        first = data.split(b"\ntruncated: ", 1)[1].split(b"\n", 2)[1][3:]
        assert first and b"\ndone before:\n" + first + b"\n" in bash.stdout


def _glued_declaring(declared: int, total: int) -> bytes:
    """A snapshot in the form of the 2026-06 releases of total bytes that declares
    size_bytes: declared."""
    head = (
        _glued(b"", 0).split(b"size_bytes: ")[0]
        + b"size_bytes: %d\ntruncated: false\n---" % declared
    )
    return head + b"x" * (total - len(head) - 1) + b"\n"


def _glued(body: bytes, short_by: int) -> bytes:
    """A snapshot in the form of the 2026-06 releases, its size_bytes short_by short."""
    head = (
        b"---\ntask_id: TUNE-0254\nartifact: stage-snapshot\nschema_version: 1\nstage: plan\n"
        b"command: /dr-plan\ncaptured_at: 2026-06-01T10:00:00Z\ncaptured_by: agent\n"
        b"recommended_next: /dr-do\noptions: []\nsize_bytes: %d\ntruncated: false\n---"
    )
    size = len(head % 1000) + len(body)
    for _ in range(3):  # the size's own digits count
        size = len(head % size) + len(body)
    return head % (size - short_by) + body


@pytest.mark.parametrize(
    "name, data, valid",
    [
        ("glued, exact size", _glued(b"First line\n\nrest\n", 0), True),
        ("glued, one short, body of 1000 bytes", _glued(b"x" * 999 + b"\n", 1), True),
        (
            "glued, one short, body of 800 bytes, file of 1023",
            _glued(b"x" * 799 + b"\n", 1),
            True,
        ),
        (
            "glued, one short, file of 1000 (size 999)",
            _glued_declaring(999, 1000),
            False,
        ),
        (
            "glued, one short, file of 1001 (size 1000)",
            _glued_declaring(1000, 1001),
            True,
        ),
        ("glued, one short, size under 1000", _glued(b"x" * 99 + b"\n", 1), False),
        ("glued, two short", _glued(b"x" * 1999 + b"\n", 2), False),
        ("glued, one over", _glued(b"x" * 1999 + b"\n", -1), False),
        ("fenced, one short", _glued(b"\n\n" + b"x" * 1999 + b"\n", 1), False),
    ],
)
def test_only_the_old_releases_defects_are_let_through(
    tmp_path: Path, name: str, data: bytes, valid: bool
) -> None:
    """Spec §8: the glued terminator and, with it and truncated false, a size of
    four digits one byte short (the old writer counted "truncated: true" and
    "size_bytes: 8192"); any other wrong size is still refused."""
    assert (contract_violations(data, TASK) == []) is valid, name
    assert _judge(tmp_path, data) == (0 if valid else 2), name


@pytest.mark.parametrize(
    "name, data",
    [
        ("plain item holding a control character", b"  - /dr-do \x1b x\n"),
        ("empty plain item", b"  - \n"),
        ("item opening a quote it never closes", b'  - "/dr-do x\n'),
    ],
)
def test_the_reading_and_both_validators_refuse_a_broken_plain_item(
    tmp_path: Path, name: str, data: bytes
) -> None:
    """The oracle sees each rule of the plain form, and both validators refuse it."""
    good = (LEGACY[0].parent.parent / "plain-cta" / "TUNE-0032.snapshot.md").read_bytes()
    broken = _fix_size(good.replace(b"  - /dr-status | backlog overview\n", data))
    assert broken != good
    assert contract_violations(broken, "TUNE-0032") != [], name
    assert _judge(tmp_path, broken, "TUNE-0032") == 2
