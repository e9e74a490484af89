"""The code points refused like control characters: one set, the same in both languages.

rules.py lists them (C0 but tab, DEL, C1, U+2028/9, U+FFFE/F, and the format
characters of Unicode general category Cf, 15.1); datarim-rules.awk's
is_control must answer the same for every code point, and the Cf part must be
what unicodedata calls Cf on this Python (whose Unicode may be older: the few
code points Unicode 15 added to Cf are then unassigned here).
"""

from __future__ import annotations

import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
from datarim_snapshot import _rules as rules

REPO = Path(__file__).resolve().parents[2]
REFUSED = {ord(c) for c in rules._CONTROL_OR_TAB}
# Not Cf, refused all the same (they could add a line to the frontmatter).
LINE_BREAKERS = {*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, 0xFFFE, 0xFFFF}
# Cf since Unicode 15.0 (Egyptian hieroglyph format controls), unassigned before.
NEWER_CF = set(range(0x13439, 0x13440))
ALL_CODE_POINTS = range(0x110000)


def test_the_set_is_category_cf_and_the_line_breakers() -> None:
    cf = {cp for cp in ALL_CODE_POINTS if unicodedata.category(chr(cp)) == "Cf"}
    assert cf <= REFUSED
    extra = REFUSED - cf - LINE_BREAKERS
    assert extra <= NEWER_CF
    assert all(unicodedata.category(chr(cp)) == "Cn" for cp in extra)


@pytest.mark.parametrize(
    "char",
    ["\u202e", "\u2066", "\u2069", "\u200b", "\u200d", "\u2060", "\ufeff", "\u00ad", "\U000e0041"],
)
def test_the_characters_of_the_issue_are_refused(char: str) -> None:
    assert rules.utf8_scan(f"/dr-do{char}".encode(), ctl=True) == "control"
    assert rules.is_control(char)


def test_visible_text_still_passes() -> None:
    """Not every unprintable or unusual character is refused: only the set."""
    for text in ("\u00a0", "\u3000", "caf\u00e9", "\u0434\u0430", "\U0001f600", "\u2014"):
        assert rules.utf8_scan(text.encode(), ctl=True) == "", text


AWKS = [awk for awk in ("mawk", "gawk", "busybox", "original-awk") if shutil.which(awk)]


@pytest.mark.parametrize("awk", AWKS)
def test_awk_is_control_is_the_same_set(awk: str, tmp_path: Path) -> None:
    program = tmp_path / "all.awk"
    program.write_text("BEGIN { for (c = 0; c < 1114112; c++) if (is_control(c, 0)) print c }\n")
    command = [awk, "awk"] if awk == "busybox" else [awk]
    done = subprocess.run(
        [*command, "-f", str(REPO / "scripts/lib/datarim-rules.awk"), "-f", str(program)],
        capture_output=True,
        check=True,
        timeout=120,
    )
    assert {int(line) for line in done.stdout.split()} == REFUSED


def _with_neighbours(points: set[int]) -> list[int]:
    """The code points, and those just below and above each (surrogates aside)."""
    around = {p + d for p in points for d in (-1, 0, 1)}
    return sorted(p for p in around if 0 < p < 0x110000 and not 0xD800 <= p <= 0xDFFF)


def test_messages_show_every_control_character_as_a_question_mark() -> None:
    """dr_err's dr_shown_into and the Python console's shown_message: each code
    point of the set becomes '?', its neighbours outside the set stay (NUL aside:
    no shell argument holds one)."""
    points = _with_neighbours(REFUSED)
    text = " ".join(chr(p) for p in points)
    expected = " ".join("?" if p in REFUSED else chr(p) for p in points)
    assert rules.shown_message(text) == expected
    done = subprocess.run(
        ["bash", "-c", '. "$0"; dr_shown_into "$1" out; printf %s "$out"',
         str(REPO / "scripts/lib/datarim-common.sh"), text],
        capture_output=True, check=True, timeout=60,
    )  # fmt: skip
    assert done.stdout.decode("utf-8") == expected
