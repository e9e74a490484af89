"""Bash twin: scripts/lib/datarim-rules.awk (+ datarim-rules.sh).

Field and byte rules shared by the writers and validators.

The task-ID rule is the one of scripts/lib/datarim-rules.sh too; the
conformance corpus pins that both give the same verdict and message for the
same input.
"""

from __future__ import annotations

import os

from ._errors import InvalidTaskIdError, RefusedError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator

CAP = 8192
# A byte-order mark opening an input file is an encoding signature, not text:
# it is no part of the file's first line (nor of a body). Anywhere else U+FEFF
# is a format character, refused like a control character.
BOM = b"\xef\xbb\xbf"
MARKER = b"\n<!-- snapshot-truncated, full response in session jsonl -->\n"
# The marker the reference writer ends a cut body with: read, never written (spec §8).
REFERENCE_MARKER = "\n<!-- snapshot-truncated, full \u043e\u0442\u0432\u0435\u0442 \u0441\u043c. session jsonl -->\n".encode()  # noqa: E501
STAGES = [
    "init",
    "prd",
    "plan",
    "design",
    "do",
    "qa",
    "verify",
    "compliance",
    "archive",
    "edit",
    "publish",
    "write",
    "dream",
    "doctor",
    "optimize",
    "auto",
]
CAPTURED_BY = ("agent", "operator")

# The rules below use string methods, not regular expressions: importing re
# costs a command about 10 ms, a fifth of its budget (docs/performance.md).
_TASK_HEAD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
# Every digit read as 9, so a fixed layout of digits is one comparison.
_DIGITS_AS_NINE = bytes.maketrans(b"0123456789", b"9999999999")
_STR_DIGITS_AS_NINE = str.maketrans("0123456789", "9999999999")
# The code points refused wherever control characters are (every field, every
# options and active-tasks line), the same set as is_control in
# datarim-rules.awk (docs/hardening.md, "Invisible characters"):
# - those that could add a line to, or break, YAML frontmatter: C0 (tab
#   aside), DEL, C1 (NEL among them), LINE/PARAGRAPH SEPARATOR, U+FFFE/U+FFFF;
# - the format characters (general category Cf, Unicode 15.1), invisible or
#   reordering text: soft hyphen U+00AD, U+0600-0605, U+061C, U+06DD, U+070F,
#   U+0890-0891, U+08E2, U+180E, zero-width and direction marks U+200B-200F,
#   bidi embeddings and overrides U+202A-202E, U+2060-2064, bidi isolates and
#   deprecated format controls U+2066-206F, the BOM / ZWNBSP U+FEFF, U+FFF9-FFFB,
#   U+110BD, U+110CD, U+13430-1343F, U+1BCA0-1BCA3, U+1D173-1D17A, and the tag
#   characters U+E0001, U+E0020-E007F.
# A fixed list, not unicodedata: the same answer on every Python, and no import.
_FORMAT_RANGES = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD),
    (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
    (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)  # fmt: skip
_CONTROL_OR_TAB = frozenset(
    [chr(c) for c in range(0x20)]
    + [chr(c) for c in range(0x7F, 0xA0)]
    + ["\u2028", "\u2029", "\ufffe", "\uffff"]
    + [chr(c) for low, high in _FORMAT_RANGES for c in range(low, high + 1)]
)
_CONTROL = _CONTROL_OR_TAB - {"\t"}
# shown(): C0 and DEL become "?".
_SHOWN = {c: "?" for c in [*range(0x20), 0x7F]}
# shown_message(): every control character (the set above, tab included) becomes "?".
_SHOWN_MESSAGE = {ord(c): "?" for c in _CONTROL_OR_TAB}
# shown_text(): the same but for line feeds and tabs (and CR before LF, below).
_SHOWN_TEXT = {ord(c): "?" for c in _CONTROL_OR_TAB - {"\t", "\n"}}


def session_id_ok(value: str) -> bool:
    """The session-ID rule: SESSION-YYYYMMDD-HHMMSS (digits only, as written)
    naming a real UTC second, as --captured-at must (is_timestamp)."""
    return _session_form_ok(value) and is_timestamp(_session_timestamp(value))


def _session_form_ok(value: str) -> bool:
    return value.translate(_STR_DIGITS_AS_NINE) == "SESSION-99999999-999999"


def _session_timestamp(value: str) -> bytes:
    """SESSION-YYYYMMDD-HHMMSS as YYYY-MM-DDTHH:MM:SSZ."""
    d, t = value[8:16], value[17:23]
    return f"{d[:4]}-{d[4:6]}-{d[6:]}T{t[:2]}:{t[2:4]}:{t[4:]}Z".encode()


def bad_session(value: str) -> str:
    """The refusal of an --session value that breaks the session-ID rule; for one
    of the right form, the first part of its date and time that is not real."""
    if not _session_form_ok(value) or is_timestamp(_session_timestamp(value)):
        return "invalid --session (want SESSION-YYYYMMDD-HHMMSS)"
    year, month, day = value[8:12], value[12:14], value[14:16]
    days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    if int(year) < 1:
        part = f"year {year}"
    elif not 1 <= int(month) <= 12:
        part = f"month {month}"
    elif not 1 <= int(day) <= days[int(month) - 1] + (int(month) == 2 and _leap(int(year))):
        part = f"day {day} of {year}-{month}"
    elif int(value[17:19]) > 23:
        part = f"hour {value[17:19]}"
    elif int(value[19:21]) > 59:
        part = f"minute {value[19:21]}"
    else:
        part = f"second {value[21:23]}"
    return f"invalid --session: {value} names no real UTC time ({part})"


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


_TASK_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")


def bad_task(task: str) -> str:
    """Why task breaks the task-ID rule, in words, the value repeated (its first
    40 bytes and "..." when longer than the rule allows). Counts bytes, as the
    rule does (dr_task_id_fault in datarim-messages.sh)."""
    raw = os.fsencode(task)
    shown_value = raw if len(raw) <= 128 else raw[:40] + b"..."
    bad = next((byte for byte in raw if byte not in _TASK_CHARS), None)
    if len(raw) > 128:
        why = "longer than 128 characters"
    elif bad is not None:
        if bad == 0x20:
            name = "a space"
        elif bad < 0x20 or bad == 0x7F:
            name = "a control character"
        elif bad > 0x7F:
            name = "a non-ASCII character"
        else:
            name = f"'{chr(bad)}'"
        why = f"holds {name}; a task ID holds only letters, digits and dashes"
    else:
        why = (
            "want a capital letter, then capitals, digits or dashes up to a dash and a 4- or "
            "5-digit number, then optional -slug parts of letters and digits "
            "(e.g. TUNE-0254, DEV-1438-FU-slug)"
        )
    return f'invalid --task "{os.fsdecode(shown_value)}": {why}'


def check_task_flag(task: str) -> None:
    """Raises InvalidTaskIdError(bad_task(task)) unless task passes task_id_ok."""
    if not task_id_ok(task):
        raise InvalidTaskIdError(bad_task(task))


def task_id_ok(value: str) -> bool:
    """The task-ID rule: nothing with / . whitespace or a control character passes.

    At most 128 characters matching [A-Z][A-Z0-9-]+-[0-9]{4,5}(-[A-Za-z0-9]+)*:
    some "-" after the second character opens the 4-5 digit number, everything
    before it is [A-Z0-9-], and after the number come "-<letters and digits>" parts."""
    if len(value) > 128 or not value.isascii() or not "A" <= value[:1] <= "Z":
        return False
    for dash in range(2, len(value)):
        if value[dash - 1] not in _TASK_HEAD:
            return False
        if value[dash] == "-" and (
            _number_then_parts(value, dash + 1, 4) or _number_then_parts(value, dash + 1, 5)
        ):
            return True
    return False


def _number_then_parts(value: str, at: int, width: int) -> bool:
    """value[at:] is width ASCII digits, then zero or more "-<ASCII letters and digits>"."""
    number, rest = value[at : at + width], value[at + width :]
    if len(number) != width or not number.isdigit():
        return False
    if not rest:
        return True
    return rest[0] == "-" and all(part.isalnum() for part in rest[1:].split("-"))


def utf8_scan(data: bytes, ctl: bool = False, tab_ok: bool = False) -> str:
    """The first fault of data read as UTF-8: "nul", "utf8", "control" (when ctl), or ""."""
    bad: int | None = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = exc.start
        text = data[:bad].decode("utf-8")
    nul = text.find("\0")
    first_control = _first_control(text, tab_ok) if ctl else -1
    if nul >= 0 and (first_control < 0 or nul <= first_control):
        return "nul"
    if first_control >= 0:
        return "control"
    return "utf8" if bad is not None else ""


def is_control(char: str, tab_ok: bool = False) -> bool:
    """char is a control character (a tab too unless tab_ok): is_control of datarim-rules.awk."""
    return char in (_CONTROL if tab_ok else _CONTROL_OR_TAB)


def _first_control(text: str, tab_ok: bool) -> int:
    """Index of the first control character in text (a tab too unless tab_ok), or -1."""
    if text.isprintable():  # every refused character (Cc, Cf, Zl, Zp, Cn) is unprintable
        return -1
    controls = _CONTROL if tab_ok else _CONTROL_OR_TAB
    for index, char in enumerate(text):
        if char in controls:
            return index
    return -1


def slash_command_fault(value: bytes) -> str:
    """Why a --command / --recommended-next value is refused, or ""."""
    fault = utf8_scan(value, ctl=True, tab_ok=False)
    if fault in ("nul", "control"):
        return "holds a control character"
    if fault == "utf8":
        return "is not valid UTF-8"
    if not value.startswith(b"/"):
        return "must start with /"
    if b": " in value or b" #" in value or value.endswith((b":", b" ")):
        return "would break the YAML frontmatter (': ', ' #', or a trailing ':' or space)"
    return ""


def is_stage(value: bytes) -> bool:
    return value.decode("utf-8", "replace") in STAGES


def is_captured_by(value: bytes) -> bool:
    return value in (b"agent", b"operator")


def is_timestamp(value: bytes) -> bool:
    """YYYY-MM-DDTHH:MM:SSZ naming a real UTC second (no leap second)."""
    if value.translate(_DIGITS_AS_NINE) != b"9999-99-99T99:99:99Z":
        return False
    year, month, day = int(value[0:4]), int(value[5:7]), int(value[8:10])
    if year < 1 or not 1 <= month <= 12 or day < 1:
        return False
    days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    if month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
        days = 29
    if day > days:
        return False
    return int(value[11:13]) <= 23 and int(value[14:16]) <= 59 and int(value[17:19]) <= 59


def yaml_quote(value: bytes) -> bytes:
    """A double-quoted YAML string: only \\ and " are escaped, enough once controls are refused."""
    return b'"' + value.replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"'


def yaml_quoted_ok(value: bytes) -> bool:
    """value is one double-quoted YAML string as yaml_quote writes it: escapes \\\\ and \\"
    only, and valid UTF-8 without control characters (tab aside) inside."""
    if len(value) < 2 or not value.startswith(b'"') or not value.endswith(b'"'):
        return False
    content = value[1:-1]
    escaped = False
    for byte in content:
        if escaped:
            if byte not in (0x5C, 0x22):
                return False
            escaped = False
        elif byte == 0x5C:
            escaped = True
        elif byte == 0x22:
            return False
    return not escaped and not utf8_scan(content, ctl=True, tab_ok=True)


def yaml_unquote(value: bytes) -> bytes:
    """The value of a string that passed yaml_quoted_ok."""
    content = value[1:-1]
    pieces: list[bytes] = []
    start = 0
    while True:
        escape = content.find(b"\\", start)
        if escape < 0 or escape + 1 == len(content):
            pieces.append(content[start:])
            return b"".join(pieces)
        pieces += [content[start:escape], content[escape + 1 : escape + 2]]
        start = escape + 2


def yaml_scalar_ok(value: bytes) -> bool:
    """value is a frontmatter value as a reader takes it (spec §8): a double-quoted
    string (yaml_quoted_ok), or the plain form the reference writes, the rest of
    the line verbatim: not empty, not starting with ", valid UTF-8 without
    control characters (tab aside)."""
    if value.startswith(b'"'):
        return yaml_quoted_ok(value)
    return bool(value) and not utf8_scan(value, ctl=True, tab_ok=True)


def yaml_scalar(value: bytes) -> bytes:
    """The text of a value that passed yaml_scalar_ok."""
    return yaml_unquote(value) if value.startswith(b'"') else value


def first_word(text: bytes) -> bytes:
    """The text up to the first space or tab."""
    ends = [end for end in (text.find(b" "), text.find(b"\t")) if end >= 0]
    return text[: min(ends)] if ends else text


def fixed_total(fixed: int) -> int:
    """The file size when `fixed` bytes plus the size's own decimal digits make the file."""
    digits = 1
    while True:
        total = fixed + digits
        if len(str(total)) == digits:
            return total
        digits = len(str(total))


def shown(text: str) -> str:
    """Printable form for a one-line message: control characters become '?'."""
    return text.translate(_SHOWN)


def shown_message(text: str) -> str:
    """A message line as dr_err prints it: every control character of spec §2
    (C0, DEL, C1, U+2028/2029, U+FFFE/FFFF, the format characters) becomes '?'."""
    return text.translate(_SHOWN_MESSAGE)


def shown_text(text: str) -> str:
    """shown_message for text of many lines (dr_shown_text_into): line ends (LF,
    and CR LF) and tabs stay; a CR anywhere else and every other control
    character, ESC included, become '?'."""
    return "\r\n".join(part.translate(_SHOWN_TEXT) for part in text.split("\r\n"))


_compiled: dict[bytes, re.Pattern[bytes]] = {}


def pattern(source: bytes) -> re.Pattern[bytes]:
    """re.compile(source), cached; re loads on the first call."""
    found = _compiled.get(source)
    if found is None:
        import re

        found = _compiled[source] = re.compile(source)
    return found


def occurrences(data: bytes, literal: bytes) -> list[int]:
    """0-based positions of the non-overlapping occurrences of literal, left to right
    (occurrences in datarim-rules.awk)."""
    found = []
    at = data.find(literal)
    while at >= 0:
        found.append(at)
        at = data.find(literal, at + len(literal))
    return found


def span(data: bytes, at: int, cls: bytes) -> int:
    """Length of the run of characters of class cls (one bracket expression) that
    starts at index at (span in datarim-rules.awk)."""
    match = pattern(cls + b"*").match(data, at)
    return match.end() - at if match else 0


def checked_lines(data: bytes, flag: str) -> Iterator[tuple[int, bytes]]:
    """(number, line) of a one-item-per-line input file, empty lines included.

    A CR ending a line is a line end; a NUL ends the input and its line is
    refused; a BOM opening the input is no part of line 1. A line that is not
    UTF-8 or holds a control character (tab aside) raises RefusedError naming
    flag and line when the caller reaches it.
    """
    nul = data.find(b"\0")
    text = data if nul < 0 else data[:nul]
    if text.startswith(BOM):
        text = text[3:]
    segments = text.split(b"\n")
    for number, segment in enumerate(segments, start=1):
        last = number == len(segments)
        if (not last or nul < 0) and segment.endswith(b"\r"):
            segment = segment[:-1]
        fault = utf8_scan(segment, ctl=True, tab_ok=True)
        if not fault and last and nul >= 0:
            fault = "nul"
        if fault == "utf8":
            raise RefusedError(f"{flag} line {number} is not valid UTF-8")
        if fault:
            raise RefusedError(f"{flag} line {number} holds a control character")
        yield number, segment
