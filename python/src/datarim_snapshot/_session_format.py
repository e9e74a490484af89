"""Bash twin: scripts/lib/session-format.awk.

The session-handoff artefact (spec §5): layer headings, claim provenance
and the whole-file check every block must pass; shared by the writer (which
checks a file before appending to it), the validator and the resume.
"""

from __future__ import annotations

from ._errors import MalformedError
from ._frontmatter import Fields, Lines, open_frontmatter, text
from ._records import Record
from ._rules import (
    is_captured_by,
    is_timestamp,
    occurrences,
    pattern,
    slash_command_fault,
    task_id_ok,
    yaml_quoted_ok,
    yaml_scalar,
    yaml_scalar_ok,
)

SESSION_CAP = 32768
SESSION_MARKER = b"<!-- session-truncated: Layer-3/4 content dropped to honour 32 KB cap -->"
NEXT_ACTION_MAX = 4096
LAYER_NAMES = ("Git State", "Active Tasks", "Related Files", "Open Questions", "Failed Approaches")
HEADINGS = tuple(
    f"## Layer {n} \u2014 {name}".encode() for n, name in enumerate(LAYER_NAMES, start=1)
)
CLAIM_WORDS = (b"pushed", b"merged", b"deployed", b"green", b"passing")
FIELDS = (
    "artifact",
    "schema_version",
    "session_id",
    "captured_at",
    "captured_by",
    "recommended_next",
    "next_action",
    "active_tasks",
)
_WORD_CHAR = rb"[A-Za-z0-9_]"


_HEADING_ENDS = (b" ", b"-", "\u2014".encode(), "\u2013".encode())


def layer(line: bytes) -> int:
    """The layer (1..5) whose heading line this is, or 0. A heading is "## Layer N"
    followed by the end of the line, a space or a dash (-, en or em dash), as the
    reference reads them (spec §8): "## Layer 5" alone is one, the long
    "## Layer 1 — Git State" too. A CR that ends the line (a CRLF body) is
    not part of the heading."""
    if line.endswith(b"\r"):
        line = line[:-1]
    if not line.startswith(b"## Layer ") or len(line) < 10 or line[9] not in b"12345":
        return 0
    rest = line[10:]
    return line[9] - 0x30 if not rest or rest.startswith(_HEADING_ENDS) else 0


def _word_char(data: bytes, at: int) -> bool:
    return 0 <= at < len(data) and pattern(_WORD_CHAR).match(data, at) is not None


def word(low: bytes, needle: bytes) -> int:
    """0-based position of the first whole-word occurrence of needle in low, or -1."""
    for at in occurrences(low, needle):
        if at > 0 and _word_char(low, at - 1):
            continue
        if _word_char(low, at + len(needle)):
            continue
        return at
    return -1


# Provenance tags: unverified: is what the replay shows for a failed probe, so
# a line carried over from a replay stays tagged.
TAGS = (b"verified:", b"assumed:", b"unverified:")
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def tagged(line: bytes) -> bool:
    """line holds a provenance tag (TAGS) as a whole word: nothing of
    [A-Za-z0-9_] just before it ("xverified:" is no tag)."""
    return any(
        at == 0 or line[at - 1] not in _WORD_BYTES
        for tag in TAGS
        if tag in line
        for at in occurrences(line, tag)
    )


def untagged_claim(line: bytes) -> bytes:
    """The claim word (as written) of a line that claims pushed, merged, deployed,
    green or passing (whole word, any case) without a provenance tag (tagged)."""
    if tagged(line):
        return b""
    low = line.lower()
    best, width = -1, 0
    for claim in CLAIM_WORDS:
        at = word(low, claim)
        if at >= 0 and (best < 0 or at < best):
            best, width = at, len(claim)
    return line[best : best + width] if best >= 0 else b""


def near_miss(line: bytes) -> tuple[int, str]:
    """(k, how it differs) for a line that is no layer heading but looks like
    layer k's heading; (0, "") for any other line. Looks like one: blanks,
    "#"s or "**" (bold), blanks, "layer" in any case, at most six other bytes
    (blanks, dashes), a digit 1..5 not followed by a digit."""
    if line.endswith(b"\r"):
        line = line[:-1]
    if layer(line):
        return 0, ""
    rest = line.lstrip(b" \t")
    lead = len(line) - len(rest)
    hashes, bold = 0, False
    if rest[:2] in (b"**", b"__"):
        bold, rest = True, rest[2:]
    elif rest.startswith(b"#"):
        hashes = len(rest) - len(rest.lstrip(b"#"))
        rest = rest[hashes:]
    else:
        return 0, ""
    gap = rest[: len(rest) - len(rest.lstrip(b" \t"))]
    rest = rest[len(gap) :]
    word = rest[:5]
    if word.lower() != b"layer":
        return 0, ""
    rest = rest[5:]
    at = 0
    while at < len(rest) and at < 7 and not rest[at : at + 1].isalnum():
        at += 1
    digit = rest[at : at + 1]
    if at >= 7 or digit not in (b"1", b"2", b"3", b"4", b"5"):
        return 0, ""
    sep, number, after = rest[:at], int(digit), rest[at + 1 : at + 2]
    if after.isdigit():
        return 0, ""
    if lead:
        why = "starts with blanks"
    elif bold:
        why = "is bold text, not a ## heading"
    elif hashes != 2:
        why = f"is a level-{hashes} heading, not level 2 (##)"
    elif gap != b" ":
        why = "has no space after ##" if not gap else "wants one space after ##"
    elif word != b"Layer":
        why = f'spells "{word.decode("latin-1")}" where "Layer" goes'
    elif sep != b" ":
        why = f"wants one space between Layer and {number}"
    else:  # "## Layer N" as it should be: what follows N is what layer() refused
        why = f"wants a space, a dash or the end of the line after Layer {number}"
    return number, why


def cut_line(line: bytes) -> str:
    """A line as a message shows it: at most 80 bytes (cut at a character
    boundary, then "..."); control characters become "?" when it is printed."""
    if len(line) > 80:
        n = 77
        while n > 0 and 0x80 <= line[n] <= 0xBF:
            n -= 1
        line = line[:n] + b"..."
    return line.decode("utf-8", "surrogateescape")


class HeadingOrder:
    """Heading order, one body line at a time."""

    def __init__(self) -> None:
        self.last = 0
        self.seen: set[int] = set()
        self.near: dict[int, str] = {}  # layer -> " (line N "text" how it differs)"
        self.missing_note = ""  # set by missing(): the near miss of the heading it names

    def fault(self, line: bytes, number_in_body: int = 0) -> str:
        """Why this heading line is out of place, or the empty string."""
        number = layer(line)
        if not number:
            near, why = near_miss(line)
            if near and near not in self.near:
                shown_line = line[:-1] if line.endswith(b"\r") else line
                self.near[near] = f' (line {number_in_body} "{cut_line(shown_line)}" {why})'
            return ""
        if number <= self.last:
            return f'"{HEADINGS[number - 1].decode()}" repeats or is out of order'
        self.last = number
        self.seen.add(number)
        return ""

    def missing(self) -> str:
        self.missing_note = ""
        for number in (1, 5):
            if number not in self.seen:
                self.missing_note = self.near.get(number, "")
                return HEADINGS[number - 1].decode()
        return ""


def repo_line(line: bytes) -> bool:
    """A Layer 1 line the resume reads as a repository's (session_replay): "repo:"
    after an optional "- " or "* ", in any case, then blanks and "HEAD:" after it."""
    if line.startswith((b"- ", b"* ")):
        line = line[2:]
    low = line.lower()
    return low.startswith(b"repo:") and pattern(rb"[ \t]+head:").search(low) is not None


def next_action_ok(value: bytes) -> bool:
    """The next_action value as saved: double-quoted (what the writer writes; it
    refuses what this refuses), not empty, its escaped text at most NEXT_ACTION_MAX
    bytes; or plain as the reference writes it (spec §8), the rest of the line
    verbatim, at most NEXT_ACTION_MAX bytes."""
    if not value.startswith(b'"'):
        return len(value) <= NEXT_ACTION_MAX and yaml_scalar_ok(value)
    return value != b'""' and len(value) <= NEXT_ACTION_MAX + 2 and yaml_quoted_ok(value)


def opens_block(line: bytes, next_line: bytes) -> bool:
    """A "---" line followed by one starting "artifact:" opens a block."""
    return line == b"---" and next_line.startswith(b"artifact:")


class Block(Record):
    """What the resume needs of the newest block: fields and body (data[body_from:body_to])."""

    __slots__ = ("recommended_next", "next_action", "tasks", "body_from", "body_to", "body_line")

    def __init__(
        self,
        recommended_next: bytes = b"",
        next_action: bytes = b"",
        tasks: list[str] | None = None,
        body_from: int = 0,
        body_to: int = 0,
        body_line: int = 0,
    ) -> None:
        self.recommended_next = recommended_next
        self.next_action = next_action  # its text, the quoting undone
        self.tasks: list[str] = [] if tasks is None else tasks
        self.body_from = body_from
        self.body_to = body_to
        self.body_line = body_line


def _check_frontmatter(lines: Lines, session_id: str, block: Block) -> None:
    reader = Fields(lines, FIELDS, lists=("active_tasks",))
    if reader.field("artifact") != b"session-handoff":
        raise MalformedError("artifact is not session-handoff")
    if reader.field("schema_version") != b"1":
        raise MalformedError("schema_version is not 1")
    value = reader.field("session_id")
    if value != session_id.encode():
        raise MalformedError(f"session_id {text(value)} does not match the file name")
    if not is_timestamp(reader.field("captured_at")):
        raise MalformedError("bad captured_at")
    if not is_captured_by(reader.field("captured_by")):
        raise MalformedError("bad captured_by")
    block.recommended_next = reader.field("recommended_next")
    fault = slash_command_fault(block.recommended_next)
    if fault:
        raise MalformedError(f"bad recommended_next: {fault}")
    block.next_action = reader.field("next_action")
    if not next_action_ok(block.next_action):
        raise MalformedError("bad next_action")
    block.next_action = yaml_scalar(block.next_action)
    line = reader.field("active_tasks")
    block.tasks = []
    if line == b"active_tasks:":
        for item in lines.items():
            number = len(block.tasks) + 1
            task = item[4:].decode("utf-8", "replace")
            if not item.startswith(b"  - ") or not task_id_ok(task):
                raise MalformedError(f"bad active_tasks item {number}")
            if task in block.tasks:
                raise MalformedError(f"active_tasks item {number} repeats {task}")
            block.tasks.append(task)
        if not block.tasks:
            raise MalformedError("active_tasks is not a list")
    elif line != b"active_tasks: []":
        raise MalformedError("active_tasks is not a list")
    reader.close()
    if lines.next() != b"":
        raise MalformedError("no blank line after the frontmatter")


def check_session_bytes(data: bytes, session_id: str) -> Block:
    """Raises MalformedError naming the first broken rule of any block; else
    returns the newest block. data is at most SESSION_CAP+1 bytes."""
    lines = open_frontmatter(data, SESSION_CAP)
    if not data.endswith(b"\n"):
        raise MalformedError("does not end with a newline")
    number = 1  # file line last read
    count = 0
    while True:
        count += 1
        block = Block()
        mark = lines.pos
        try:
            _check_frontmatter(lines, session_id, block)
        except MalformedError as exc:
            raise MalformedError(f"block {count}: {exc.message}") from None
        number += data.count(b"\n", mark, lines.pos)
        block.body_from, block.body_line = lines.pos, number + 1
        order = HeadingOrder()
        while True:
            mark = lines.pos
            line = lines.next()
            if line is None:
                block.body_to = len(data)
                break
            number += 1
            if line == b"":
                ahead = Lines(data, lines.pos)
                first, second = ahead.next(), ahead.next()
                if first is not None and second is not None and opens_block(first, second):
                    lines.pos = ahead.pos - len(second) - 1
                    number += 1
                    block.body_to = mark
                    break
                continue
            fault = order.fault(line, number)
            if fault:
                raise MalformedError(f"line {number} {fault}")
            claim = untagged_claim(line)
            if claim:
                raise MalformedError(
                    f'line {number} claims "{text(claim)}" without a verified: or assumed: tag'
                )
        missing = order.missing()
        if missing:
            raise MalformedError(f'block {count}: no "{missing}" heading{order.missing_note}')
        if line is None:
            return block
