"""Fuzzing the session handoff (docs/testing.md), both implementations:

- random and mutated session files through both validators: only the documented exit
  codes, the same one-line reason from both, nothing on stdout, no traceback, and nothing
  accepted that an independent reading of spec §5 and the reference's forms of §8
  (PyYAML plus regular expressions) would reject;
- random and hostile flag values, flag sets and input files through both session writers:
  the same code, output and files from both; a refusal changes no byte and no entry of the
  workspace; a write touches nothing but datarim/sessions/<valid ID>.session.md, keeps
  every earlier byte of it (append-only), and what it saved passes both readings.

DATARIM_FUZZ_EXAMPLES sets the number of examples (make test: a few dozen; make fuzz: 2000).
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import partial
from pathlib import Path

import pytest
import yaml
from datarim_snapshot._errors import RefusedError
from datarim_snapshot._session_format import SESSION_MARKER
from datarim_snapshot._session_handoff_validator import check_session_file
from datarim_snapshot._session_handoff_writer import render_session_block
from fuzzkit import (
    FUZZ,
    Writer,
    decoded,
    flag_values,
    mutate_lines,
    quote_plain_forms,
    run_bash,
    run_python,
    through_both_writers,
    writer_workspace,
)
from hypothesis import event, given
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
CHECKER = REPO / "dev-tools" / "check-session-handoff.sh"
WRITER = Writer(REPO / "dev-tools" / "session-handoff-writer-wrapper.sh", "session-write",
                "session-handoff-writer", "sessions")  # fmt: skip
SESSION = "SESSION-20260521-134500"
STAMP = "2026-05-21T13:45:00Z"
CAP = 32768

# --- An independent reading of spec §5 -------------------------------------------------

FIELDS = [
    "artifact", "schema_version", "session_id", "captured_at", "captured_by",
    "recommended_next", "next_action", "active_tasks",
]  # fmt: skip
HEADING = {
    f"## Layer {n} \u2014 {name}": n
    for n, name in enumerate(
        ["Git State", "Active Tasks", "Related Files", "Open Questions", "Failed Approaches"], 1
    )
}
# Spec §8: "## Layer N" followed by the end of the line, a space or a dash (a CR that ends
# the line aside).
LAYER_HEADING = re.compile("## Layer ([1-5])(?:[ \\-\u2013\u2014].*)?\r?", re.S)
TASK_ID = re.compile(r"[A-Z][A-Z0-9-]+-[0-9]{4,5}(-[A-Za-z0-9]+)*")
CLAIM = re.compile(r"(?<![A-Za-z0-9_])(pushed|merged|deployed|green|passing)(?![A-Za-z0-9_])", re.I)
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# A provenance tag is a whole word (nothing of [A-Za-z0-9_] before it);
# unverified: is what the replay shows for a failed probe.
TAG = re.compile(r"(?<![A-Za-z0-9_])(verified|assumed|unverified):")


def _block_violations(block: str, session: str) -> list[str]:
    if not block.startswith("---\n"):
        return ["no frontmatter"]
    end = block.find("\n---\n", 3)
    if end < 0:
        return ["frontmatter not closed"]
    front, rest = block[4 : end + 1], block[end + 5 :]
    found = [] if rest.startswith("\n") else ["no blank line after the frontmatter"]
    try:
        doc = yaml.load(quote_plain_forms(front, ("next_action",), ()), Loader=yaml.BaseLoader)
    except yaml.YAMLError:
        return found + ["frontmatter is not YAML"]
    lines = front.split("\n")
    keys = [line.split(":", 1)[0] for line in lines if line and line[0] not in " \t"]
    if not isinstance(doc, dict) or keys != FIELDS or list(doc) != FIELDS:
        return found + [f"fields {keys}"]
    raw = {k: line[len(k) + 2 :] for line in lines for k in FIELDS if line.startswith(k + ": ")}
    for key in FIELDS[:6]:
        if not isinstance(doc[key], str) or doc[key] != raw.get(key):
            found.append(f"{key} is not a plain one-line scalar")
    plain = {k: str(doc[k]) for k in FIELDS[:6]}
    if (plain["artifact"], plain["schema_version"]) != ("session-handoff", "1"):
        found.append("artifact or schema_version")
    if plain["session_id"] != session:
        found.append("session_id is not the file's")
    try:
        datetime.strptime(plain["captured_at"], "%Y-%m-%dT%H:%M:%SZ")
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", plain["captured_at"])
    except (ValueError, AssertionError):
        found.append("captured_at")
    if plain["captured_by"] not in ("agent", "operator"):
        found.append("captured_by")
    command = plain["recommended_next"]
    if not command.startswith("/") or CONTROL.search(command):
        found.append("recommended_next")
    action = doc["next_action"]
    saved = raw.get("next_action", "")
    if (
        not isinstance(action, str)
        or not action
        or len(action.encode()) > 4096
        or (saved[:1] == '"' and not (len(saved) >= 2 and saved[-1] == '"'))
        or re.search(r"[\x00-\x08\x0a-\x1f\x7f]", action)
    ):
        found.append("next_action is not a one-line text, double-quoted or plain")
    tasks = doc["active_tasks"]
    if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks):
        found.append("active_tasks is not a list")
    elif len(set(tasks)) != len(tasks) or not all(
        len(t) <= 128 and TASK_ID.fullmatch(t) for t in tasks
    ):
        found.append("active_tasks holds a bad or repeated task ID")
    body = rest[1:].split("\n")
    order = [int(m.group(1)) for m in map(LAYER_HEADING.fullmatch, body) if m]
    if order != sorted(set(order)) or 1 not in order or 5 not in order:
        found.append(f"layer headings {order}")
    for line in body:
        if CLAIM.search(line) and not TAG.search(line):
            found.append(f"untagged claim {line!r}")
    return found


def session_violations(data: bytes, session: str) -> list[str]:
    """Why the contract would reject data as the handoff of session: every block."""
    text, found = decoded(data, CAP)
    if text is None:
        return found
    if not text.endswith("\n"):
        found.append("no newline at the end")
    # A blank line, then "---" and a line opening with "artifact:", starts the next block.
    for number, block in enumerate(re.split(r"(?<=\n)\n(?=---\nartifact:)", text), 1):
        found += [f"block {number}: {why}" for why in _block_violations(block, session)]
    return found


# --- Session files: valid ones as the writer renders them, then mutated ---------------------

LINE_PARTS = [
    "repo: .  HEAD: 539b8f5", "- src/file.txt", "- `README.md` note", "prose", "",
    "verified: merged 680cc13", "assumed: green", "greenfield", "passingly", "\t", "\r",
    "\u0434\u0430\u043d\u043d\u044b\u0435 \U0001f680", "x" * 300, "---", "# not a heading",
    "token=abc123", "## Layer 9 \u2014 Other",
]  # fmt: skip
LINES = st.lists(st.sampled_from(LINE_PARTS), min_size=1, max_size=3).map(" ".join)
LAYER = st.one_of(
    st.lists(LINES, max_size=8),
    st.builds(lambda ls, n: ls * n, st.lists(LINES, min_size=1, max_size=4), st.integers(20, 90)),
)
NEXT_ACTION = st.text(
    alphabet=st.sampled_from(list('aZ09 :#"\\\t-{}[]&*!%@`') + ["\u044f", "\u20ac"]),
    min_size=1,
    max_size=40,
).filter(str.strip)
TASK_SETS = st.lists(
    st.sampled_from(["TUNE-0254", "DEV-1438-FU-engage", "AB-12345", "OPS-0001-x-2"]),
    unique=True,
    max_size=3,
)


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    out = []
    for heading, number in HEADING.items():
        if number in (2, 3, 4) and draw(st.booleans()):
            continue  # layers 2 to 4 are optional
        out.append(heading)
        out.extend(draw(LAYER) if number in (2, 3, 4) else draw(st.lists(LINES, max_size=4)))
    return ("\n".join(out) + "\n").encode()


@st.composite
def valid_sessions(draw: st.DrawFn) -> bytes:
    """One to three blocks, each rendered by the writer onto the ones before it."""
    data: bytes | None = None
    for _ in range(draw(st.integers(1, 3))):
        tasks = "".join(f"{task} | in_progress\n" for task in draw(TASK_SETS)).encode()
        try:
            block = render_session_block(
                SESSION,
                draw(st.sampled_from(["agent", "operator"])),
                draw(st.sampled_from(["/dr-do", "/dr-continue SESSION-20260521-134500", "/x"])),
                draw(NEXT_ACTION),
                STAMP,
                tasks,
                draw(bodies()),
                old=data,
            ).block
        except RefusedError:  # no room left under the cap, or a body the writer refuses
            break
        data = block if data is None else data + b"\n" + block
    if data is None:
        heads = list(HEADING)
        body = f"{heads[0]}\n{heads[4]}\nnone\n".encode()
        data = render_session_block(SESSION, "agent", "/dr-do", "go", STAMP, b"", body).block
    return data


INTERESTING = [
    b"\n", b"---\n", b"\n---\nartifact: session-handoff\n", b"\xff", b"\xc3",
    b"\xe2\x80\xa8", b"\xc2\x85", b": ", b" #", b'"', b"\\", b"\r", b"\t", b"\xef\xbb\xbf",
    b"pushed", b" merged ", b"GREEN", b"verified: ", b"assumed: ", b"  - TUNE-0254\n",
    b"  - bad id\n", b"active_tasks: []\n", b"next_action: \"x\"\n", SESSION_MARKER,
    b"{", b"[", b"'", b"&a ", b"*a", b"!!str ", b"? ", b"- ",
] + [heading.encode() + b"\n" for heading in HEADING]  # fmt: skip
VALUES = [
    b"", b"[]", b'""', b'"go"', b"go", b'"a\\tb"', b'"a\\\\"', b'"a\\"', b'"a" # c', b"/dr-x",
    b"/x: y", b"/x #y", b"/x ", b"agent", b"operator", b"2026-02-30T00:00:00Z", STAMP.encode(),
    SESSION.encode(), b"SESSION-20260521-134501", b"session-handoff", b"1", b"01", b"true",
    b"null", b"~", b"&x /a", b"!!int 1", b"- TUNE-0254",
]  # fmt: skip


# The session's own rules (claims, headings) twice as often as the generic byte and line edits.
MUTATIONS = ["flip", "delete", "insert", "line", "value", "block"] + ["claim", "heading"] * 2


@st.composite
def mutated_sessions(draw: st.DrawFn) -> bytes:
    data = draw(valid_sessions())
    # Places drawn evenly (a seeded Random: hypothesis's own draws favour 0, the opening
    # "---" line, which hides every other rule once broken), that line only now and then.
    place = draw(st.randoms(use_true_random=True))
    for _ in range(draw(st.integers(1, 3))):
        kind = place.choice(MUTATIONS)
        first = 0 if place.random() < 0.1 else 1
        at = place.randint(4 * first, len(data))
        if kind == "flip" and data:
            at = min(at, len(data) - 1)
            # printable first: hypothesis favours 0, and a NUL hides every later rule
            byte = draw(st.one_of(st.integers(32, 255), st.integers(0, 31)))
            data = data[:at] + bytes([byte]) + data[at + 1 :]
        elif kind == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 20)) :]
        elif kind == "insert":
            data = data[:at] + draw(st.sampled_from(INTERESTING)) + data[at:]
        elif kind == "claim":  # a claim word put in, or a tag taken out (the provenance rule)
            tags = [m.start() for m in re.finditer(rb"verified:|assumed:", data)]
            if tags and place.random() < 0.5:
                at = place.choice(tags)
                data = data[:at] + data[at : at + 12].replace(b":", b"", 1) + data[at + 12 :]
            else:
                word = place.choice([b" pushed", b" Merged", b" GREEN.", b" deployed", b" passing"])
                end = data.find(b"\n", at)
                end = len(data) if end < 0 else end
                data = data[:end] + word + data[end:]
        elif kind == "heading":  # a layer heading dropped, repeated or moved (their order)
            lines = data.split(b"\n")
            heads = [
                n for n, line in enumerate(lines) if line.decode("utf-8", "replace") in HEADING
            ]
            if heads:
                n, m = place.choice(heads), place.choice(heads)
                op = place.choice(["drop", "repeat", "swap"])
                if op == "drop":
                    del lines[n]
                elif op == "repeat":
                    lines.insert(m, lines[n])
                else:
                    lines[n], lines[m] = lines[m], lines[n]
                data = b"\n".join(lines)
        elif kind == "block":  # a whole block again, with or without the blank line
            data = data + draw(st.sampled_from([b"\n", b""])) + draw(valid_sessions())
        else:
            lines = data.split(b"\n")
            # mostly the frontmatter (first 16 lines), sometimes the body
            i, j = (
                place.randint(first, min(len(lines) - 1, place.choice([16, 400]))) for _ in "ij"
            )
            op = draw(st.sampled_from(["dup", "del", "swap"])) if kind == "line" else "value"
            mutate_lines(lines, i, j, op, draw(st.sampled_from(VALUES)))
            data = b"\n".join(lines)
    return data


def _judge(
    tmp_path: Path, data: bytes, extra: list[str], session: str = SESSION
) -> tuple[int, bytes]:
    """Runs both validators on data; returns the exit code and the reason."""
    root = tmp_path / "ws"
    sessions = root / "datarim" / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    (sessions / f"{session}.session.md").write_bytes(data)
    args = ["--session", session, "--root", str(root), *extra]
    bash = run_bash(CHECKER, args, tmp_path)
    python = run_python("session-check", args, tmp_path)
    assert python == bash
    code, out, err = bash
    assert code in (0, 2) and out == b""
    assert b"Traceback" not in err
    if code:
        assert err.startswith(f"check-session-handoff: datarim/sessions/{session}".encode())
        assert err.count(b"\n") == 1 and err.endswith(b"\n")
    else:
        assert err == b""
        assert session_violations(data, session) == [], data
    return code, err.split(b".session.md ", 1)[-1]


VALIDATOR_FLAGS = st.sampled_from([[], [], ["--validate-frontmatter"]])


@FUZZ
@given(data=mutated_sessions(), extra=VALIDATOR_FLAGS)
def test_fuzz_mutated_sessions_through_both_validators(
    tmp_path: Path, data: bytes, extra: list[str]
) -> None:
    code, reason = _judge(tmp_path, data, extra)
    event(f"exit {code}: {reason[:40]!r}")


@FUZZ
@given(
    data=st.one_of(
        st.binary(max_size=400),
        st.builds(lambda a, b: a + b, valid_sessions(), st.binary(max_size=40)),
        st.builds(lambda a, b: a + b"\n" + b, valid_sessions(), st.binary(max_size=200)),
    ),
    extra=VALIDATOR_FLAGS,
)
def test_fuzz_random_bytes_through_both_session_validators(
    tmp_path: Path, data: bytes, extra: list[str]
) -> None:
    code, reason = _judge(tmp_path, data, extra)
    event(f"exit {code}: {reason[:40]!r}")


def _known_session() -> bytes:
    heads = list(HEADING)
    body = "\n".join(
        [heads[0], "repo: .  HEAD: 539b8f5", heads[1], "- TUNE-0254", heads[2], "- src/a.c",
         heads[3], "verified: merged 680cc13", heads[4], "none", ""]
    ).encode()  # fmt: skip
    tasks = b"TUNE-0254 | in_progress\nDEV-1438-FU-x | done\n"
    return render_session_block(SESSION, "agent", "/dr-do", "go on", STAMP, tasks, body).block


KNOWN = _known_session()
L = [heading.encode() + b"\n" for heading in HEADING]
BROKEN_ID = KNOWN.replace(SESSION.encode(), b"SESSION-20260521-134501")
# One file per rule of spec §5, each broken once in a valid file.
BROKEN = {
    "no Layer 1": KNOWN.replace(L[0], b""),
    "no Layer 5": KNOWN.replace(L[4], b""),
    "layers out of order": KNOWN.replace(L[1], b"@").replace(L[2], L[1]).replace(b"@", L[2]),
    "a layer twice": KNOWN.replace(L[3], L[3] + L[3]),
    "an untagged claim": KNOWN.replace(b"verified: merged", b"merged"),
    "an untagged claim, another case": KNOWN.replace(b"- src/a.c", b"- src/a.c is Pushed"),
    "a claim whose tag is no whole word": KNOWN.replace(b"verified: merged", b"xverified: merged"),
    "a task twice": KNOWN.replace(b"  - DEV-1438-FU-x\n", b"  - TUNE-0254\n"),
    "a bad task ID": KNOWN.replace(b"  - TUNE-0254\n", b"  - tune-0254\n"),
    "active_tasks not a list": KNOWN.replace(
        b"active_tasks:\n  - TUNE-0254\n  - DEV-1438-FU-x\n", b"active_tasks: TUNE-0254\n"
    ),
    "another session's ID": BROKEN_ID,
    "no such day": KNOWN.replace(STAMP.encode(), b"2026-02-30T13:45:00Z"),
    "captured_by": KNOWN.replace(b"captured_by: agent", b"captured_by: robot"),
    "recommended_next without /": KNOWN.replace(b": /dr-do", b": dr-do"),
    "next_action opening a quote it never closes": KNOWN.replace(
        b'next_action: "go on"', b'next_action: "go on'
    ),
    "next_action plain with a control character": KNOWN.replace(
        b'next_action: "go on"', b"next_action: go\x1bon"
    ),
    "a heading glued to a word": KNOWN.replace(L[0], L[0][:10] + b"x" + L[0][10:]),
    "next_action empty": KNOWN.replace(b'next_action: "go on"', b'next_action: ""'),
    "next_action too long": KNOWN.replace(b'"go on"', b'"' + b"g" * 4097 + b'"'),
    "artifact": KNOWN.replace(b"artifact: session-handoff", b"artifact: stage-snapshot"),
    "schema_version": KNOWN.replace(b"schema_version: 1", b"schema_version: 2"),
    "a field missing": KNOWN.replace(b"captured_by: agent\n", b""),
    "fields out of order": KNOWN.replace(b"captured_by: agent\n", b"").replace(
        b"session_id:", b"captured_by: agent\nsession_id:"
    ),
    "no blank line after the frontmatter": KNOWN.replace(b"---\n\n", b"---\n"),
    "no newline at the end": KNOWN[:-1],
    "second block without Layer 5": KNOWN + b"\n" + KNOWN.replace(L[4], b""),
    "second block of another session": KNOWN + b"\n" + BROKEN_ID,
    "over the cap": KNOWN.replace(b"- src/a.c\n", b"- src/a.c\n" * 3300),
    "a NUL": KNOWN.replace(b"none", b"no\0ne"),
    "not UTF-8": KNOWN.replace(b"none", b"no\xffne"),
}  # fmt: skip


@pytest.mark.parametrize("name", BROKEN)
def test_the_independent_reading_and_both_validators_see_each_rule(
    tmp_path: Path, name: str
) -> None:
    """The fuzzers' oracle is only as good as the rules it reads: each one, broken
    once, is a violation to it and a refusal (exit 2, same line) to both validators."""
    assert session_violations(KNOWN, SESSION) == []
    data = BROKEN[name]
    assert data != KNOWN
    assert session_violations(data, SESSION) != [], name
    assert _judge(tmp_path, data, [])[0] == 2


LEGACY = sorted((REPO / "tests/conformance/fixtures/legacy/sessions").glob("*/*.session.md"))


@pytest.mark.parametrize("path", LEGACY, ids=[path.parent.name for path in LEGACY])
def test_the_reference_writers_sessions_pass_the_reading_and_both_validators(
    tmp_path: Path, path: Path
) -> None:
    """Spec §8: every handoff the reference wrote is valid to the independent reading
    (which takes its plain next_action and short headings) and to both validators."""
    session = path.name[: -len(".session.md")]
    data = path.read_bytes()
    assert session_violations(data, session) == []
    assert _judge(tmp_path, data, [], session)[0] == 0


@FUZZ
@given(data=valid_sessions())
def test_fuzz_every_session_writer_rendering_is_accepted_by_both(
    tmp_path: Path, data: bytes
) -> None:
    assert session_violations(data, SESSION) == []
    _judge(tmp_path, data, [])


# --- Flags and input files through both session writers --------------------------------------

OTHER = "SESSION-20260520-090000"
VALID = {
    "--root": [".", "../..", "../../sub"],
    "--session": [SESSION, "SESSION-20260522-090000"],
    "--captured-by": ["agent", "operator"],
    "--recommended-next": ["/dr-do", "/dr-continue SESSION-20260521-134500"],
    "--next-action": [
        "go on",
        'say "hi" \\ then: verified: merged 1a2b',
        "\u0434\u0430\u043b\u044c\u0448\u0435",
    ],
    "--active-tasks-file": ["{IN}/tasks"],
    "--body-file": ["{IN}/body"],
    "--captured-at": [STAMP, "2024-02-29T23:59:59Z"],
}
REQUIRED = [flag for flag in VALID if flag != "--captured-at"]
HOSTILE = [
    "", " ", "-", "--", "--root", "-x", ".", "..", "/", "../../..", "../../datarim",
    "../../datarim/sessions", "nope", "{IN}/body", "{IN}/tasks", "{IN}", "{IN}/missing",
    "../../link", "SESSION-20260521-13450", "SESSION-20260521-1345000", "session-20260521-134500",
    "SESSION-20260521-134500/../x", "../SESSION-20260521-134500", "SESSION-20260521-134500\n",
    "SESSION-20260521-134500 ", "SESSION-2026052a-134500", f"{SESSION}.session.md", OTHER,
    "/dr-x: y", "/dr-x #y", "/dr\nx", "/dr-x:", "/dr-x ", "agent ", "AGENT", "a\nb", "a\tb",
    "\x7f", "\u2028", "\ufeffgo", "x" * 4097, "\u0434" * 2049, "pushed", "2026-13-01T00:00:00Z",
    "2023-02-29T00:00:00Z", "$(touch pwned)", "`touch pwned`", "*", "~", "$HOME",
]  # fmt: skip
TEXT = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=20
)
GOOD_TASKS = [b"TUNE-0254 | in_progress\n", b"", b"\n\n", b"DEV-1438-FU-x | done\nTUNE-0254 | todo"]
BAD_TASKS = [
    b"TUNE-0254 | a\nTUNE-0254 | b\n", b"tune-0254 | x\n", b"TUNE-0254\n", b"TUNE-0254 | \xff\n",
    b"TUNE-0254 | a\x00\n", b"TUNE-0254 | a\r\n", b"A-0001 | x\n" * 700,
]  # fmt: skip
# Mostly a good file, so that most calls reach the deeper rules and many writes land.
TASK_FILES = st.one_of(
    st.sampled_from(GOOD_TASKS), st.sampled_from(GOOD_TASKS + BAD_TASKS), st.binary(max_size=60)
)
SECRETS = [
    "AKIAIOSFODNN7EXAMPLE", "Authorization: Bearer abcdefghijklmnop1234",
    "sk-abcdefghijklmnopqrstuvwx", "ghp_" + "a" * 36,
]  # fmt: skip
HOSTILE_LINES = [
    "pushed to main", "tests are GREEN", "---", "artifact: session-handoff", "\x01", "\ud7ff",
    "## Layer 1 \u2014 Git State", "## Layer 3 \u2014 Related Files", "x" * 9000,
] + SECRETS  # fmt: skip


@st.composite
def body_files(draw: st.DrawFn) -> bytes:
    """Mostly a valid body, sometimes with a hostile line in it, or raw bytes."""
    kind = draw(st.sampled_from(["valid", "valid", "line", "line", "tail", "bytes"]))
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    body = draw(bodies())
    if kind == "line":
        lines = body.split(b"\n")
        at = draw(st.integers(0, len(lines) - 1))
        bad = draw(st.one_of(st.sampled_from(HOSTILE_LINES), TEXT))
        lines.insert(at, bad.encode("utf-8", "surrogatepass"))
        body = b"\n".join(lines)
    if kind == "tail":
        body += draw(st.sampled_from([b"\x00", b"\xff", b"\xc3", b"a" * 40000, b"no newline"]))
    return body


@st.composite
def writer_calls(draw: st.DrawFn) -> tuple[list[str], bytes, bytes]:
    flags = [f for f in VALID if f in REQUIRED or draw(st.booleans())]
    argv = flag_values(draw, flags, VALID, st.one_of(st.sampled_from(HOSTILE), TEXT))
    if draw(st.integers(0, 4)) == 4:  # one call in five: a stray, unknown or bare flag
        argv += draw(st.sampled_from([["--bogus", "x"], ["--session"], ["stray"], ["--help"]]))
    return argv, draw(TASK_FILES), draw(body_files())


def _old_files(old: bytes) -> dict[str, bytes]:
    """The session files below base before a write: SESSION's, which already has a
    block, and another session's beside it."""
    sessions = "ws/datarim/sessions/"
    other = old.replace(SESSION.encode(), OTHER.encode())
    return {f"{sessions}{SESSION}.session.md": old, f"{sessions}{OTHER}.session.md": other}


def _sandbox(base: Path, tasks: bytes, body: bytes, old: bytes) -> Path:
    """fuzzkit.writer_workspace with _old_files(old); returns where the writer runs."""
    cwd = writer_workspace(base, "sessions", {"tasks": tasks, "body": body})
    for rel, data in _old_files(old).items():
        (base / rel).write_bytes(data)
    return cwd


def _check_write(
    base: Path, out: bytes, err: bytes, written: dict[str, str], old_files: dict[str, bytes]
) -> None:
    assert out.startswith(b"Session saved \xe2\x86\x92 datarim/sessions/SESSION-"), out
    assert err == b"" or re.fullmatch(
        rb"session-handoff-writer: redacted [0-9]+ secret\(s\) before saving\n", err
    ), err
    assert written, "exit 0, but nothing was written"
    for rel, session in written.items():
        assert re.fullmatch(r"SESSION-[0-9]{8}-[0-9]{6}", session)
        data = (base / rel).read_bytes()
        check_session_file(str(base / rel), session)
        assert session_violations(data, session) == [], data
        if rel in old_files:  # append-only: every earlier byte stays, a blank line, a block
            assert data.startswith(old_files[rel] + b"\n---\nartifact: session-handoff\n")


@FUZZ
@given(call=writer_calls(), old=valid_sessions())
def test_fuzz_flag_values_through_both_session_writers(
    tmp_path: Path, call: tuple[list[str], bytes, bytes], old: bytes
) -> None:
    argv, tasks, body = call
    sandbox = partial(_sandbox, tasks=tasks, body=body, old=old)
    check = partial(_check_write, old_files=_old_files(old))
    code, _, err = through_both_writers(tmp_path / "sandbox", argv, WRITER, sandbox, check)
    event(f"exit {code}: {err[:50]!r}")
