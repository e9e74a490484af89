"""Bash twin: scripts/lib/datarim-redact.awk.

The secret redactor (same rules, same order as its twin).

One interface for every writer (session handoff and stage snapshots):
``redact(data) -> (redacted, count)`` or ``redact_lines(lines) -> (lines, count)``.
Matching uses literal search, single-character classes and explicit loops only,
so that both implementations agree on every match; the rules are listed in
docs/redaction.md.
"""

from __future__ import annotations

from ._records import Record
from ._rules import occurrences, pattern, span

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

REDACTED = b"[REDACTED]"
# Regular expressions compile on first use (rules.pattern), not at import.
_VALUE = rb"[^\]\[ \t\r\"'`,;&<>(){}]"
# Assignments whose key ends in one of these (any case) have their value redacted.
_KEY_SUFFIXES = (
    b"password",
    b"passwd",
    b"secret",
    b"token",
    b"apikey",
    b"api_key",
    b"api-key",
    b"access_key",
    b"secret_key",
    b"private_key",
)


class _TokenRule(Record):
    """A literal prefix, the class of the characters after it, their minimum and
    maximum count (0: none), what must open them, and the class that may not
    touch the token on either side."""

    __slots__ = ("literal", "body", "minimum", "maximum", "head", "edge")

    def __init__(
        self, literal: bytes, body: bytes, minimum: int, maximum: int, head: bytes, edge: bytes
    ) -> None:
        self.literal = literal
        self.body = body
        self.minimum = minimum
        self.maximum = maximum
        self.head = head
        self.edge = edge


_TOKEN_RULES = (
    _TokenRule(b"AKIA", rb"[A-Z0-9]", 16, 16, b"", rb"[A-Za-z0-9]"),
    _TokenRule(b"ASIA", rb"[A-Z0-9]", 16, 16, b"", rb"[A-Za-z0-9]"),
    _TokenRule(b"ghp_", rb"[A-Za-z0-9_]", 20, 0, b"", rb"[A-Za-z0-9_]"),
    _TokenRule(b"gho_", rb"[A-Za-z0-9_]", 20, 0, b"", rb"[A-Za-z0-9_]"),
    _TokenRule(b"ghs_", rb"[A-Za-z0-9_]", 20, 0, b"", rb"[A-Za-z0-9_]"),
    _TokenRule(b"ghu_", rb"[A-Za-z0-9_]", 20, 0, b"", rb"[A-Za-z0-9_]"),
    _TokenRule(b"ghr_", rb"[A-Za-z0-9_]", 20, 0, b"", rb"[A-Za-z0-9_]"),
    _TokenRule(b"github_pat_", rb"[A-Za-z0-9_]", 20, 0, b"", rb"[A-Za-z0-9_]"),
    _TokenRule(b"sk-", rb"[A-Za-z0-9_-]", 20, 0, b"", rb"[A-Za-z0-9_-]"),
    _TokenRule(b"xox", rb"[A-Za-z0-9-]", 10, 0, rb"[a-z]-", rb"[A-Za-z0-9_-]"),
    _TokenRule(b"client_secret_", rb"[A-Za-z0-9_-]", 8, 0, b"", rb"[A-Za-z0-9_-]"),
)


def _is(data: bytes, at: int, cls: bytes) -> bool:
    """The character at index at exists and belongs to class cls."""
    return 0 <= at < len(data) and pattern(cls).match(data, at) is not None


class _Redactor:
    def __init__(self) -> None:
        self.count = 0

    def pem_marker(self, data: bytes, word: bytes) -> tuple[int, int]:
        """(start, end) of the first "-----<word> <label>PRIVATE KEY-----" marker, or (-1, -1)."""
        for at in occurrences(data, b"-----" + word + b" "):
            q = at + len(word) + 6
            run = span(data, q, rb"[A-Z0-9 ]")
            label_ok = run >= 11 and data[q + run - 11 : q + run] == b"PRIVATE KEY"
            if label_ok and data[q + run : q + run + 5] == b"-----":
                return at, q + run + 5
        return -1, -1

    @staticmethod
    def key_line(line: bytes, lead: bytes, end: int) -> int:
        """What a line inside a PEM block is once the lead is off its start: 3 a
        legacy header, 2 one run of base64, 1 blank, 0 neither; with end >= 0,
        only line[:end] (datarim-redact.awk, redact_key_line)."""
        if end >= 0:
            line = line[:end]
        at = len(lead) if lead and line.startswith(lead) else 0
        at += span(line, at, rb"[ \t]")
        head = 0
        if end < 0 and line.startswith(b"Proc-Type:", at):
            head = 10
        elif end < 0 and line.startswith(b"DEK-Info:", at):
            head = 9
        if head:
            at += head
            at += span(line, at, rb"[ \t]")
            run = span(line, at, rb"[A-Za-z0-9,-]")
            if not run:
                return 0
        else:
            run = span(line, at, rb"[A-Za-z0-9+/=]")
        at += run
        at += span(line, at, rb"[ \t\r]")
        if at < len(line):
            return 0
        if head:
            return 3
        return 2 if run else 1

    def pem(self, lines: list[bytes]) -> list[bytes]:
        """PEM private-key blocks, whole, the lead kept once (datarim-redact.awk, redact_pem)."""
        lines = list(lines)
        out: list[bytes] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            begin, begin_end = self.pem_marker(line, b"BEGIN")
            if begin < 0:
                out.append(line)
                i += 1
                continue
            pre = line[:begin]
            t = len(pre)
            while t > 0 and pre[t - 1 : t] in (b" ", b"\t"):
                t -= 1
            lead = pre[:t]
            rest = line[begin_end:]
            self.count += 1
            end, end_end = self.pem_marker(rest, b"END")
            if end >= 0:
                lines[i] = pre + REDACTED + rest[end_end:]
                continue
            found = False
            last = i
            gap = False
            after = 2
            j = i + 1
            while j < len(lines):
                end, end_end = self.pem_marker(lines[j], b"END")
                if end >= 0 and self.key_line(lines[j], lead, end):
                    found = True
                    break
                kind = self.key_line(lines[j], lead, -1)
                if not kind:
                    break
                if kind == 1:
                    if after != 3:
                        gap = True
                else:
                    after = kind
                    if not gap:
                        last = j
                j += 1
            if found:
                lines[j] = pre + REDACTED + lines[j][end_end:]
                i = j
                continue
            out.append(pre + REDACTED)
            i = last + 1
        return out

    @staticmethod
    def quote(data: bytes, at: int) -> int:
        """Width of an optional quote at index at: 1 for " or ', 2 for \\" or \\', else 0."""
        c = data[at : at + 1]
        if c in (b'"', b"'"):
            return 1
        if c != b"\\":
            return 0
        return 2 if data[at + 1 : at + 2] in (b'"', b"'") else 0

    def replaced(
        self, data: bytes, starts: Iterable[int], find: Callable[[int], tuple[int, int] | None]
    ) -> bytes:
        """data with each secret replaced by REDACTED, left to right: find(at) is the
        [start, end) of the secret a candidate at (from starts) opens, or None; a
        candidate inside a secret already replaced is passed over."""
        pieces: list[bytes] = []
        last = 0
        for at in starts:
            if at < last:
                continue
            found = find(at)
            if found is None:
                continue
            start, end = found
            pieces += [data[last:start], REDACTED]
            self.count += 1
            last = end
        return b"".join(pieces) + data[last:] if pieces else data

    def authorization(self, data: bytes) -> bytes:
        """The credential of an Authorization header, Bearer or Basic, in header,
        JSON, dict or assignment spelling (datarim-redact.awk, redact_authorization)."""
        low = data.lower()

        def credential(at: int) -> tuple[int, int] | None:
            j = at + 13
            j += self.quote(data, j)
            j += span(data, j, rb"[ \t]")
            if data[j : j + 1] not in (b":", b"="):
                return None
            j += 1
            j += span(data, j, rb"[ \t]")
            j += self.quote(data, j)
            if low.startswith(b"bearer", j):
                j += 6
            elif low.startswith(b"basic", j):
                j += 5
            else:
                return None
            blank = span(data, j, rb"[ \t]")
            if not blank:
                return None
            j += blank
            run = span(data, j, rb"[A-Za-z0-9._~+/=-]")
            return (j, j + run) if run else None

        return self.replaced(data, occurrences(low, b"authorization"), credential)

    def tokens(self, data: bytes, rule: _TokenRule) -> bytes:
        """Tokens recognised by their prefix."""

        def token(at: int) -> tuple[int, int] | None:
            if at > 0 and _is(data, at - 1, rule.edge):
                return None
            q = at + len(rule.literal)
            if rule.head and not pattern(rule.head).match(data, q):
                return None
            run = span(data, q, rule.body)
            if run < rule.minimum or (rule.maximum and run > rule.maximum):
                return None
            if _is(data, q + run, rule.edge):
                return None
            return at, q + run

        return self.replaced(data, occurrences(data, rule.literal), token)

    def assignments(self, data: bytes) -> bytes:
        """key=value anywhere, "key": value (quoted key), and key: value at the
        start of a line (YAML), where the key ends in one of _KEY_SUFFIXES (any case)."""
        lead = span(data, 0, rb"[ \t-]")

        def value(i: int) -> tuple[int, int] | None:
            if data[i + 1 : i + 2] in (b"=", b":", b"/"):
                return None
            j = i - 1
            while j >= 0 and data[j : j + 1] in (b" ", b"\t"):
                j -= 1
            quoted = data[j : j + 1] in (b'"', b"'") if j >= 0 else False
            if quoted:
                j -= 1
            key_end = j
            while j >= 0 and _is(data, j, rb"[A-Za-z0-9_.-]"):
                j -= 1
            key_start = j + 1
            if key_start > key_end:
                return None
            # Only the key's last 16 characters matter: every suffix is shorter.
            key = data[max(key_start, key_end - 15) : key_end + 1].lower()
            if not key.endswith(_KEY_SUFFIXES):
                return None
            yaml = data[i : i + 1] == b":" and not quoted
            if yaml and key_start > lead:
                return None
            v = i + 1
            v += span(data, v, rb"[ \t]")
            quote = data[v : v + 1]
            # A quoted value runs to its closing quote; a bare YAML one to the end
            # of the line; any other bare one to a stop character.
            if quote in (b'"', b"'"):
                v += 1
                run = span(data, v, rb"[^']" if quote == b"'" else rb'[^"]')
            else:
                run = span(data, v, rb"[^\r]" if yaml else _VALUE)
            if not run or data[v : v + len(REDACTED)] == REDACTED:
                return None
            return v, v + run

        separators = (match.start() for match in pattern(rb"[=:]").finditer(data))
        return self.replaced(data, separators, value)

    def line(self, data: bytes) -> bytes:
        data = self.authorization(data)
        for rule in _TOKEN_RULES:
            data = self.tokens(data, rule)
        return self.assignments(data)


def redact_lines(lines: list[bytes]) -> tuple[list[bytes], int]:
    """The lines with every secret replaced by [REDACTED] (a PEM block spanning
    lines becomes one line), and the number of secrets replaced."""
    redactor = _Redactor()
    out = [redactor.line(line) for line in redactor.pem(lines)]
    return out, redactor.count


# Every rule needs one of these words (any case) in the text: each key suffix
# holds a stem, a PEM label "PRIVATE KEY", the header "authorization", and a
# token its literal prefix.
_KEY_STEMS = (b"key", b"pass", b"secret", b"token")
_TRIGGERS = (*_KEY_STEMS, b"authorization", *(rule.literal.lower() for rule in _TOKEN_RULES))


def may_hold_secret(data: bytes) -> bool:
    """False when no rule can match anywhere in data (the text is then not searched)."""
    low = data.lower()
    return any(word in low for word in _TRIGGERS)


def redact(data: bytes) -> tuple[bytes, int]:
    """data with every secret replaced by [REDACTED], and the number replaced."""
    if not may_hold_secret(data):
        return data, 0
    lines, count = redact_lines(data.split(b"\n"))
    return b"\n".join(lines), count
