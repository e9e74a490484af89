"""Property tests: the awk programs behind the bash resume give the bytes of the Python port.

Each example runs the real awk program (scripts/lib/*.awk, as the shell entry
points run it) and the Python function it mirrors on the same random input:
legacy documents of arbitrary bytes (invalid UTF-8, controls, quotes) in the
text, JSON and hook formats with random budgets, and hook payloads that are
random JSON, mutated JSON or junk. `make fuzz` raises the number of examples.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from datarim_snapshot import _snapshot_resume as snapshot_resume
from datarim_snapshot._session_start_hook import parse_payload
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
LIB = REPO / "scripts" / "lib"
EXAMPLES = int(os.environ.get("DATARIM_FUZZ_EXAMPLES", "60"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def run_awk(program: str, env: dict[str, str], stdin: bytes = b"") -> tuple[int, bytes]:
    proc = subprocess.run(
        ["awk", "-f", str(LIB / "datarim-rules.awk"), "-f", str(LIB / program)],
        input=stdin,
        env={"LC_ALL": "C", "PATH": os.environ["PATH"], **env},
        capture_output=True,
        check=False,
    )
    return proc.returncode, proc.stdout


def frames(documents: list[snapshot_resume.LegacyDocument]) -> bytes:
    """The framing snapshot-resume.sh feeds resume-render.awk."""
    return b"".join(
        d.path.encode() + b"\n" + str(len(d.data)).encode() + b"\n" + d.data + b"\n"
        for d in documents
    )


# Bytes a document may hold once cut at its first NUL: any but NUL, with the
# interesting ones (quotes, backslash, controls, UTF-8 pieces) made likely.
document_bytes = st.lists(
    st.one_of(
        st.binary(min_size=1, max_size=1).filter(lambda b: b != b"\0"),
        st.sampled_from([b'"', b"\\", b"\n", b"\r", b"\t", b"\x1b", b"\x7f", b"\xc3\xa9"]),
        st.sampled_from(
            [b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xe2\x82", b"\xf0\x9f", b"\xed\xa0\x80"]
        ),
        st.text(max_size=8).map(lambda s: s.replace("\0", "").encode("utf-8", "surrogatepass")),
    ),
    max_size=60,
).map(b"".join)

PATHS = [pattern.format(task="TUNE-0254") for pattern in snapshot_resume.LEGACY_DOCUMENTS]
documents_strategy = st.lists(document_bytes, min_size=1, max_size=3).map(
    lambda texts: [snapshot_resume.LegacyDocument(PATHS[i], data) for i, data in enumerate(texts)]
)


@SETTINGS
@given(documents=documents_strategy, budget=st.integers(min_value=0, max_value=400))
def test_property_legacy_output_is_the_same_in_awk_and_python(
    documents: list[snapshot_resume.LegacyDocument], budget: int
) -> None:
    env = {"DR_SOURCE": "legacy", "DR_TASK": "TUNE-0254", "DR_BUDGET": str(budget)}
    text = snapshot_resume.legacy_text("TUNE-0254", documents)
    expected = {
        "text": text.encode(),
        "json": snapshot_resume.legacy_json("TUNE-0254", documents),
        "hook": snapshot_resume.hook_text(text, budget),
    }
    for fmt, want in expected.items():
        code, out = run_awk("resume-render.awk", {**env, "DR_FORMAT": fmt}, frames(documents))
        if want is None:
            assert code == 1 and out == b"", fmt
        else:
            assert code == 0 and out == want + b".", fmt


@SETTINGS
@given(text=st.text(max_size=300), budget=st.integers(min_value=0, max_value=400))
def test_property_hook_cut_fits_and_keeps_whole_characters(text: str, budget: int) -> None:
    cut = snapshot_resume.cut_to_budget(text, budget)
    if snapshot_resume.units(text) <= budget:
        assert cut == text
        return
    marker = snapshot_resume.cut_marker(budget)
    if len(marker) > budget:
        assert cut is None  # not even the marker fits: the hook prints nothing
        return
    assert cut is not None and cut.endswith(marker)
    kept = cut[: -len(marker)]
    assert text.startswith(kept)  # a prefix, so no character is split or changed
    assert snapshot_resume.units(cut) <= budget
    following = text[len(kept)]
    units = snapshot_resume.units
    assert units(kept) + units(following) + len(marker) > budget  # the longest


# Hook payloads: valid JSON built from random values, the same with one random
# splice, and raw junk built from JSON-ish pieces.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
PIECES = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    '"',
    "\\",
    "\\u",
    "d83d",
    "dc00",
    "0041",
    "e",
    "-",
    ".",
    "01",
    "true",
    "NaN",
    " ",
    "\n",
    "\ufeff",
    "\x01",
    '"source"',
    '"cwd"',
    '"clear"',
    '"/tmp"',
]


@st.composite
def payloads(draw: Any) -> bytes:
    kind = draw(st.integers(min_value=0, max_value=2))
    if kind == 2:
        return "".join(draw(st.lists(st.sampled_from(PIECES), max_size=14))).encode()
    members = draw(st.dictionaries(st.text(max_size=4), json_values, max_size=3))
    members["source"] = draw(st.sampled_from(["clear", "startup", "a\x00b", "\ud800", 1]))
    members["cwd"] = draw(
        st.sampled_from(["/tmp", "/caf\u00e9", "rel", "/a\nb", "/\U0001f600", None])
    )
    text = json.dumps(members, ensure_ascii=draw(st.booleans()))
    if kind == 1:
        at = draw(st.integers(min_value=0, max_value=len(text)))
        text = text[:at] + draw(st.sampled_from(PIECES)) + text[at:]
    return text.encode("utf-8", "surrogatepass")


@SETTINGS
@given(data=payloads())
def test_property_hook_payload_verdicts_are_the_same_in_awk_and_python(data: bytes) -> None:
    nul = data.find(b"\0")
    env = {"DR_PAYLOAD": os.fsdecode(data if nul < 0 else data[:nul]), "DR_PAYLOAD_NUL": str(nul)}
    code, out = run_awk("hook-payload.awk", env)
    awk = None if code else tuple(os.fsdecode(out).split("\n", 2))
    assert awk == parse_payload(data)
