"""The rules that no longer use regular expressions (docs/performance.md) accept and reject
exactly what the expressions they replaced did: each is checked against that
expression (or the old code around it) on generated input aimed at its edges.
"""

from __future__ import annotations

import re
from datetime import datetime

from datarim_snapshot import _cta_parse as cta_parse
from datarim_snapshot import _git_anchor as git_anchor
from datarim_snapshot import _rules as rules
from datarim_snapshot import _session_probes as session_probes
from datarim_snapshot import _snapshot_lifecycle as snapshot_lifecycle
from hypothesis import given, settings
from hypothesis import strategies as st

MANY = settings(max_examples=200, deadline=None)


def near(alphabet: str, pieces: list[str], max_size: int = 24) -> st.SearchStrategy[str]:
    """Strings of single characters and whole pieces: most land next to a rule's edge."""
    parts = st.sampled_from(list(alphabet) + pieces)
    return st.lists(parts, max_size=max_size).map("".join)


def as_bytes(strings: st.SearchStrategy[str]) -> st.SearchStrategy[bytes]:
    return strings.map(lambda text: text.encode("utf-8"))


TASK_ID = re.compile(r"[A-Z][A-Z0-9-]+-[0-9]{4,5}(-[A-Za-z0-9]+)*\Z")


@MANY
@given(near("AZaz09-_. \n\u0661\u00c4", ["TUNE", "-0254", "-12345", "-123456", "-x", "--"]))
def test_task_id(value: str) -> None:
    assert rules.task_id_ok(value) == (len(value) <= 128 and TASK_ID.match(value) is not None)


SESSION_ID = re.compile(r"SESSION-[0-9]{8}-[0-9]{6}\Z")


@MANY
@given(near("0129-S\n\u0661", ["SESSION-", "20260101", "120000", "SESSION-20260101-120000"]))
def test_session_id(value: str) -> None:
    assert rules.session_id_ok(value) == (SESSION_ID.match(value) is not None)


TIMESTAMP = re.compile(rb"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\Z")


def _real_second(value: bytes) -> bool:
    try:
        datetime.strptime(value.decode(), "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return False
    return True


@MANY
@given(
    as_bytes(near("0123456789-T:Z \n", ["2026-", "02-29", "T23:59:59Z", "2026-02-28T00:00:00Z"]))
)
def test_timestamp(value: bytes) -> None:
    expected = TIMESTAMP.match(value) is not None and _real_second(value)
    assert rules.is_timestamp(value) == expected


# The format characters (Unicode Cf, 15.1) refused with the controls (docs/hardening.md).
FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f"
)
CONTROL = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ufffe\uffff{FORMAT}]")
CONTROL_OR_TAB = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029\ufffe\uffff{FORMAT}]")


def _old_utf8_scan(data: bytes, ctl: bool, tab_ok: bool) -> str:
    """rules.utf8_scan as it was, with the regular expressions."""
    bad = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = exc.start
        text = data[:bad].decode("utf-8")
    pattern = (CONTROL if tab_ok else CONTROL_OR_TAB) if ctl else None
    nul = text.find("\0")
    hit = pattern.search(text) if pattern else None
    first_control = hit.start() if hit else -1
    if nul >= 0 and (first_control < 0 or nul <= first_control):
        return "nul"
    if first_control >= 0:
        return "control"
    return "utf8" if bad is not None else ""


SCAN_PIECES = [
    b"\x00", b"\t", b"\n", b"\x1f", b"\x7f", b"\xc2\x85", b"\xc2\x9f", b"\xc2\xa0",
    b"\xe2\x80\xa8", b"\xe2\x80\xa9", b"\xef\xbf\xbe", b"\xef\xbf\xbf", b"\xef\xbf\xbd",
    b"\xe2\x80\x8d", b"\xff", b"\xc3", b"\xed\xa0\x80", "я🚀".encode(), b"a", b" ",
]  # fmt: skip


@MANY
@given(st.lists(st.sampled_from(SCAN_PIECES), max_size=12).map(b"".join), st.booleans())
def test_utf8_scan(data: bytes, tab_ok: bool) -> None:
    assert rules.utf8_scan(data, ctl=True, tab_ok=tab_ok) == _old_utf8_scan(data, True, tab_ok)
    assert rules.utf8_scan(data) == _old_utf8_scan(data, False, False)


def test_control_characters_are_the_code_points_they_were() -> None:
    everything = "".join(map(chr, range(0x110000)))
    for tab_ok, old in ((False, CONTROL_OR_TAB), (True, CONTROL)):
        expected = set(old.findall(everything))
        assert {char for char in everything if rules.is_control(char, tab_ok)} == expected
        # utf8_scan skips the search in text str.isprintable passes: no control may pass.
        assert not any(char.isprintable() for char in expected)


@MANY
@given(as_bytes(near('\\"a\n', ["\\\\", '\\"'])))
def test_yaml_unquote(content: bytes) -> None:
    expected = re.sub(rb"\\(.)", rb"\1", content, flags=re.DOTALL)
    assert rules.yaml_unquote(b'"' + content + b'"') == expected


@MANY
@given(near("a\x00\x01\t\n\x1f\x7f\x80\u2028 ?", []))
def test_shown(text: str) -> None:
    assert rules.shown(text) == re.sub("[\x00-\x1f\x7f]", "?", text)


@MANY
@given(as_bytes(near("a \t\n/", ["/dr-qa"])))
def test_first_word(text: bytes) -> None:
    assert rules.first_word(text) == re.split(rb"[ \t]", text, maxsplit=1)[0]


@MANY
@given(st.text(alphabet="0123456789abcdefABg", max_size=70).map(str.encode), st.integers(0, 3))
def test_commit_ids(value: bytes, pad: int) -> None:
    value = value[: [40, 64, 7, len(value)][pad]]
    assert git_anchor.sha_ok(value) == bool(re.match(rb"(?:[0-9a-f]{40}|[0-9a-f]{64})\Z", value))
    assert session_probes.sha_ok(value) == bool(re.match(rb"[0-9a-fA-F]{7,40}\Z", value))


@MANY
@given(as_bytes(near("a/\x00\x01\t\x1f\x7f\x80", [])))
def test_probe_paths(value: bytes) -> None:
    expected = 0 < len(value) <= 4096 and not re.search(rb"[\x01-\x1f\x7f]", value)
    assert session_probes.path_ok(value) == expected


@MANY
@given(near("aZ09._-/ \u00e9", [], max_size=8))
def test_archive_area(area: str) -> None:
    expected = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z", area) is not None
    assert snapshot_lifecycle._area_ok(area) == expected


@MANY
@given(as_bytes(near("0129. x\t", ["1. ", "12. "])))
def test_cta_option_lines(line: bytes) -> None:
    assert cta_parse._numbered(line) == (re.match(rb"[0-9]+\. ", line) is not None)


@MANY
@given(st.sampled_from(cta_parse.HEADERS), as_bytes(near("Az09-_ *.\u00e9", ["TUNE-0254"])))
def test_cta_header_ids(head: bytes, rest: bytes) -> None:
    header_id = re.compile(rb"([A-Za-z0-9-]+)(?=[ *]|\Z)|([A-Za-z0-9-]+)|")
    match = header_id.match(head + rest, len(head))
    assert match is not None
    found = cta_parse._header_id(head + rest)
    # (the ID, whether more than a space or ** follows it)
    assert found == (match.group(1) or match.group(2) or b"", match.group(2) is not None)
