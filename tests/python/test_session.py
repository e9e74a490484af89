"""Session handoff checks the data-driven corpus cannot express, each run on BOTH
implementations: the twin redactors and writers agree on random input, what the
writers save always validates, appends from bash and Python under load all land,
and --captured-at defaults to the clock."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from datarim_snapshot._errors import RefusedError
from datarim_snapshot._redaction import redact
from datarim_snapshot._session_format import HEADINGS, check_session_bytes
from datarim_snapshot._session_handoff_writer import render_session_block
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from loadrun import check_load, mixed_plan, run_load

REPO = Path(__file__).resolve().parents[2]
LIB = REPO / "scripts" / "lib"
BASH_WRITER = REPO / "dev-tools" / "session-handoff-writer-wrapper.sh"
EXAMPLES = int(os.environ.get("DATARIM_FUZZ_EXAMPLES", "40"))
SESSION = "SESSION-20260521-134500"
STAMP = "2026-05-21T13:45:00Z"
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Fragments that sit on the edges of the redaction rules, glued at random.
FRAGMENTS = [
    "AKIA",
    "ASIA",
    "IOSFODNN7EXAMPLE",
    "ghp_",
    "github_pat_",
    "sk-",
    "xoxb-",
    "xox",
    "client_secret_",
    "abcdefghij0123456789",
    "ABCDEFGHIJ",
    "_",
    "-",
    "=",
    ":",
    "==",
    ",",
    ";",
    "password",
    "TOKEN",
    "secret",
    "api_key",
    "Authorization",
    "[REDACTED]",
    "x",
    "skeleton",
    "/",
    "(",
    "]",
    "MIIE+/=",
    "550e8400-e29b-41d4-a716-446655440000",
    " ",
    "\t",
    "\r",
    '"',
    "'",
    "\n",
    "\n",
    "- ",
    "  ",
    "é",
    "authorization: ",
    "Bearer ",
    "bearer\t",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----",
    "-----END PRIVATE KEY-----",
    "Proc-Type: 4",
    "DEK-Info: AES-128-CBC,5E22",
    "Basic ",
    " = ",
    "\\",
    "> ",
    "// ",
    "# ",
]
texts = st.lists(st.sampled_from(FRAGMENTS), max_size=60).map("".join)


def awk_programs() -> list[list[str]]:
    """The awk on PATH, and BusyBox's when it is installed (a strict non-GNU awk)."""
    found = [["awk"]]
    if shutil.which("busybox"):
        found.append(["busybox", "awk"])
    return found


_SCRATCH = tempfile.mkdtemp(prefix="redact-")
atexit.register(shutil.rmtree, _SCRATCH, True)
_PROGRAM = Path(_SCRATCH) / "main.awk"
_PROGRAM.write_text(
    "BEGIN { redact_init()\n"
    '    printf "%s", redact_text(ENVIRON["T"]); printf "\\n%d", REDACT_COUNT }\n'
)


def awk_redact(awk: list[str], data: bytes) -> tuple[bytes, int]:
    """The awk redactor (datarim-redact.awk) on data, through a two-line driver."""
    env = {**os.environb, b"LC_ALL": b"C", b"T": data}
    rules, redactor = str(LIB / "datarim-rules.awk"), str(LIB / "datarim-redact.awk")
    out = subprocess.run(
        [*awk, "-f", rules, "-f", redactor, "-f", str(_PROGRAM)],
        env=env,
        capture_output=True,
        check=True,
    ).stdout
    text, _, count = out.rpartition(b"\n")
    return text, int(count)


@pytest.mark.parametrize("awk", awk_programs(), ids=" ".join)
@FUZZ
@given(text=texts)
def test_property_redactor_twins_agree(awk: list[str], text: str) -> None:
    data = text.encode()
    assert awk_redact(awk, data) == redact(data)


def test_redactor_leaves_no_secret_of_the_documented_kinds() -> None:
    secrets = [
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "sk-proj-abcdefghijklmnopqrstuvwx1234",
        "xoxb-1234567890-abcdefghijklmnop",
        "client_secret_6f1d2c3b4a5e6f7a8b9c",
    ]
    # Each header spelling with its own credential, and a PEM block behind a lead.
    headers = {
        "Authorization: Bearer abc.def": "abc.def",
        '{"Authorization": "Bearer json.1"}': "json.1",
        "{'authorization': 'bearer dict.2'}": "dict.2",
        'Authorization = "Bearer assign.3"': "assign.3",
        '\\"Authorization\\": \\"Bearer esc.4\\"': "esc.4",
        "Proxy-Authorization: Basic dXNlcjpw": "dXNlcjpw",
        "> -----BEGIN PRIVATE KEY-----\n> MIIquoted0\n>\n> -----END PRIVATE KEY-----": "MIIquoted0",
    }
    data = "\n".join([*(f"- see {s}." for s in secrets), *headers]).encode() + b"\n"
    for out, count in [redact(data), *(awk_redact(awk, data) for awk in awk_programs())]:
        assert count == len(secrets) + len(headers)
        assert not any(s.encode() in out for s in [*secrets, *headers.values()])


def test_every_secret_kind_passes_the_redactors_quick_test_alone() -> None:
    # A text that fails may_hold_secret is returned unsearched (both twins): each
    # kind must pass it by itself, with nothing else in the text to let it through.
    from datarim_snapshot._redaction import _KEY_SUFFIXES, _TOKEN_RULES, may_hold_secret

    samples = [rule.literal + b"a-" + b"A1" * 20 for rule in _TOKEN_RULES] + [
        b"-----BEGIN RSA PRIVATE KEY-----",
        b"> -----BEGIN PRIVATE KEY-----",
        b"Authorization: Bearer abc",
        b'{"Authorization": "Bearer abc"}',
        b"Authorization = 'Basic dXNlcjpw'",
        *(b"x_" + suffix.upper() + b"=v" for suffix in _KEY_SUFFIXES),
    ]
    for sample in samples:
        assert may_hold_secret(sample), sample
    assert not may_hold_secret(b"plain prose: high throughput, right answers, tasks done")


# Random handoff bodies: the five layers, each of random lines, some long.
LINE_PARTS = [
    "- src/file.txt",
    "- `README.md` note",
    "repo: .  HEAD: 539b8f5",
    "verified: merged 680cc13",
    "assumed: green",
    "prose",
    " ",
    "token=abc123",
    "\u0434\u0430\u043d\u043d\u044b\u0435",
    "\t",
    "\r",
    "x" * 300,
    "-----BEGIN PRIVATE KEY-----",
    "MIIE",
    "-----END PRIVATE KEY-----",
    "greenfield",
]
lines = st.lists(st.sampled_from(LINE_PARTS), min_size=1, max_size=4).map("".join)
layer = st.lists(lines, max_size=40)
sized_layer = st.one_of(layer, st.builds(lambda ls, n: ls * n, layer, st.integers(1, 60)))


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    out = []
    for number, heading in enumerate(HEADINGS, start=1):
        if number in (2, 3, 4) and draw(st.booleans()) and draw(st.booleans()):
            continue  # optional layers, sometimes absent
        out.append(heading.decode())
        out.extend(draw(sized_layer if number in (2, 3, 4) else layer))
    return ("\n".join(out) + "\n").encode()


def writer_args(
    root: Path, tasks: Path, body: Path, next_action: str = "go on", at: str | None = None
) -> list[str]:
    """The session writer's flags; --captured-at only when at is given."""
    args = ["--root", str(root), "--session", SESSION, "--captured-by", "agent"]
    args += ["--recommended-next", "/dr-do", "--next-action", next_action]
    args += ["--active-tasks-file", str(tasks), "--body-file", str(body)]
    return args + (["--captured-at", at] if at else [])


BASH_CHECKER = REPO / "dev-tools" / "check-session-handoff.sh"


def bash_block(
    root: Path, body: bytes, tasks: bytes, next_action: str = "go on", check: bool = False
) -> tuple[int, bytes]:
    """What the bash writer saves (exit code, file bytes); with check, also asserts
    that the bash validator accepts what was saved."""
    (root / "body.md").write_bytes(body)
    (root / "tasks.txt").write_bytes(tasks)
    (root / "ws").mkdir(exist_ok=True)
    args = writer_args(root / "ws", root / "tasks.txt", root / "body.md", next_action, STAMP)
    proc = subprocess.run([str(BASH_WRITER), *args], capture_output=True, check=False)
    target = root / "ws" / "datarim" / "sessions" / f"{SESSION}.session.md"
    data = target.read_bytes() if target.exists() else b""
    if check and data:
        checked = subprocess.run(
            [str(BASH_CHECKER), "--session", SESSION, "--root", str(root / "ws")],
            capture_output=True,
            check=False,
        )
        assert checked.returncode == 0, checked.stderr
    shutil.rmtree(root / "ws")
    return proc.returncode, data


@FUZZ
@given(body=bodies())
def test_property_writers_agree_and_what_they_save_validates(body: bytes) -> None:
    tasks = b"TUNE-0254 | in_progress\n"
    try:
        block = render_session_block(SESSION, "agent", "/dr-do", "go on", STAMP, tasks, body).block
    except RefusedError:
        block = None
    with tempfile.TemporaryDirectory() as scratch:
        code, saved = bash_block(Path(scratch), body, tasks)
    if block is None:
        assert code == 1 and saved == b""
        return
    assert code == 0 and saved == block
    assert len(block) <= 32768
    check_session_bytes(block, SESSION)


# Next actions on the edges of the 4096-byte limit: characters that escaping
# doubles, secrets that redaction lengthens, long plain runs.
NEXT_ACTION_PARTS = [
    '"',
    "\\",
    '\\"',
    "x",
    " ",
    "é",
    "password=a ",
    "token=b;",
    "ghp_" + "A1" * 10,
    "AKIAIOSFODNN7EXAMPLE ",
    "Authorization: Bearer t ",
    '"' * 700,
    "\\" * 700,
    "password=a " * 60,
    "y" * 1000,
]
next_actions = st.lists(st.sampled_from(NEXT_ACTION_PARTS), min_size=1, max_size=12).map("".join)


@FUZZ
@given(next_action=next_actions)
def test_property_a_saved_next_action_always_validates(next_action: str) -> None:
    """Whatever next action the writers accept, both validators accept what they
    saved; both writers agree on every verdict and byte."""
    body = "\n".join([HEADINGS[0].decode(), HEADINGS[4].decode()]).encode() + b"\n"
    tasks = b"TUNE-0254 | in_progress\n"
    try:
        block = render_session_block(SESSION, "agent", "/dr-do", next_action, STAMP, tasks, body)
        saved: bytes | None = block.block
    except RefusedError:
        saved = None
    with tempfile.TemporaryDirectory() as scratch:
        code, data = bash_block(Path(scratch), body, tasks, next_action, check=True)
    if saved is None:
        assert code == 1 and data == b""
        return
    assert code == 0 and data == saved
    check_session_bytes(saved, SESSION)


def _writer_command(impl: str) -> list[str]:
    if impl == "bash":
        return [str(BASH_WRITER)]
    return [sys.executable, "-m", "datarim_snapshot", "session-write"]


def test_load_session_and_snapshot_writers_at_once_all_land(tmp_path: Path) -> None:
    """32 writers of both implementations at once: 24 snapshots over 4 tasks and 8
    appends to one session file (loadrun's plan, kinds and checks)."""
    root = tmp_path / "ws"
    (root / "datarim").mkdir(parents=True)
    (root / "datarim" / "tasks.md").write_text("# Tasks\n")  # no new-knowledge-base notice
    plan = mixed_plan()
    assert sorted({kind.name for kind, _ in plan}) == [
        "session-bash", "session-python", "snapshot-bash", "snapshot-python"
    ]  # fmt: skip
    assert sum(kind.family == "session" for kind, _ in plan) == 8
    writes, _ = run_load(root, plan, 60, tmp_path)
    check_load(root, writes, 60)
    assert [w.code for w in writes] == [0] * 32


@pytest.mark.parametrize("impl", ["bash", "python"])
def test_captured_at_defaults_to_now(tmp_path: Path, impl: str) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "tasks.txt").write_bytes(b"")
    body = "\n".join([HEADINGS[0].decode(), HEADINGS[4].decode()]) + "\n"
    (tmp_path / "body.md").write_text(body)
    before = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    args = writer_args(tmp_path / "ws", tmp_path / "tasks.txt", tmp_path / "body.md")
    subprocess.run([*_writer_command(impl), *args], check=True, stdout=subprocess.DEVNULL)
    after = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    data = (tmp_path / "ws" / "datarim" / "sessions" / f"{SESSION}.session.md").read_text()
    stamp = re.search(r"^captured_at: (\S+)$", data, flags=re.MULTILINE)
    assert stamp is not None and before <= stamp.group(1) <= after


def test_no_git_on_path_is_said_as_such(tmp_path: Path) -> None:
    """Issue 19: with no git to ask, the claim probes say so, not that the
    repository is no git work tree; the same bytes and exit code in both."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "sh", "cat", "awk", "sed", "grep", "env", "dirname"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    env = {"PATH": str(bin_dir), "LC_ALL": "C", "PYTHONPATH": str(REPO / "python" / "src")}
    reverify = str(REPO / "dev-tools" / "reverify-session-claims.sh")
    for args, banner in (
        (
            ["--sha-presence", "--sha", "abc1234"],
            "SHA abc1234 cannot be checked: git is not on PATH.",
        ),
        (["--stale", "--saved-sha", "abc1234"], f"{repo} cannot be checked: git is not on PATH"),
    ):
        runs = [
            subprocess.run(
                [*program, *args, "--repo", str(repo)], env=env, capture_output=True, check=False
            )
            for program in (
                [reverify],
                [sys.executable, "-m", "datarim_snapshot", "session-reverify"],
            )
        ]
        bash, python = runs
        assert (bash.returncode, bash.stdout, bash.stderr) == (
            python.returncode,
            python.stdout,
            python.stderr,
        )
        assert bash.returncode == 3 and banner in bash.stdout.decode(), bash
