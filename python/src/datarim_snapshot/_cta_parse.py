"""Bash twin: scripts/lib/cta-parse.awk.

The CTA block that ends a /dr-* stage's answer (spec §7).

The block starts at the last header line of the answer outside code fences
and ends at its closing "---" line (or the end of the answer); text after it
is ignored. Inside it, "N. ..." lines are options until a line starting
"Другие активные задачи" (bold or not) starts the list of other tasks, which
is no part of this task's options. A fenced block (``` or ~~~) quotes text:
nothing in it counts. Every token has an English twin, read alike and in any
mix: **Next step — {ID}**, **QA failed for / **Expectations BLOCKED for,
**recommended**, alternative, Other active tasks. Where the block has " — "
(U+2014), " – " (U+2013) and " - " are read alike: an answer that writes the
near miss still leaves its snapshot.
"""

from __future__ import annotations

from ._errors import RefusedError
from ._records import Record
from ._rules import BOM, CAP, slash_command_fault, task_id_ok, utf8_scan
from ._texts import cta_header_openings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

# The header openings, kept once in scripts/lib/text/cta-headers.txt (the Stop
# hook looks for them before it calls emit); each is followed by a space.
HEADERS = tuple(line + b" " for line in cta_header_openings())
OTHER_TASKS = ("Другие активные задачи".encode(), b"Other active tasks")
PRIMARY = "**рекомендуется**"
PRIMARY_EN = "**recommended**"
ALTERNATIVE = "альтернатива"
ALTERNATIVE_EN = "alternative"
SEP = " — "
MIDDOT = " · ".encode()
MAX_OPTIONS = 5

_SEP = SEP.encode()
# The near misses an answer writes instead of " — ", read alike (spec §7).
_SEPS = (_SEP, " – ".encode(), b" - ")
_PRIMARIES = (PRIMARY.encode(), PRIMARY_EN.encode())
_ALTERNATIVES = (ALTERNATIVE.encode(), ALTERNATIVE_EN.encode())
_ID_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")


class CtaBlock(Record):
    """What a snapshot takes from the block: its task, recommended_next and its options lines."""

    __slots__ = ("task_id", "recommended_next", "options")

    def __init__(self, task_id: str, recommended_next: str, options: list[str]) -> None:
        self.task_id = task_id
        self.recommended_next = recommended_next
        self.options = options  # "<command and args> | <purpose>" or plain text; primary first


class _Scan(Record):
    __slots__ = ("stage_id", "found", "header_id", "header_runs_on", "count", "options")

    def __init__(self) -> None:
        self.stage_id = b""
        self.found = False
        self.header_id = b""
        self.header_runs_on = False
        self.count = 0
        self.options: list[bytes] | None = None


class _Option(Record):
    __slots__ = ("text", "command", "primary", "mark", "item")

    def __init__(
        self, text: bytes, command: bytes | None, primary: bool, mark: bytes, item: bytes
    ) -> None:
        self.text = text
        self.command = command  # None: a plain-text option
        self.primary = primary
        self.mark = mark  # the marker word as written, b"" for none
        self.item = item  # its options line


def _raw_lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The lines of the bytes chunks hold, each with its line end."""
    parts: list[bytes] = []
    for chunk in chunks:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                if start < len(chunk):
                    parts.append(chunk[start:])
                break
            parts.append(chunk[start : end + 1])
            yield b"".join(parts)
            parts = []
            start = end + 1
    if parts:
        yield b"".join(parts)


def _lines(raw_lines: Iterable[bytes]) -> Iterator[bytes]:
    """The answer's lines: line end, a CR before it and trailing blanks removed."""
    for raw in raw_lines:
        line = raw[:-1] if raw.endswith(b"\n") else raw
        if line.endswith(b"\r"):
            line = line[:-1]
        yield line.rstrip(b" \t")


def _header_id(line: bytes) -> tuple[bytes, bool] | None:
    """The task ID a CTA header line names (b"" when none), and whether more
    than a space or "**" follows it; None for any other line."""
    for head in HEADERS:
        if line.startswith(head):
            end = start = len(head)
            while end < len(line) and line[end] in _ID_BYTES:  # [A-Za-z0-9-]*
                end += 1
            runs_on = end > start and end < len(line) and line[end] not in b" *"
            return line[start:end], runs_on
    return None


def _fence_run(line: bytes) -> tuple[bytes, bool]:
    """The fence a line opens or closes: its run of three or more ` or ~ after
    at most three spaces (b"" for any other line), and whether nothing follows it.
    A ` run with a ` after it is no fence (CommonMark: ```x``` is inline code)."""
    text = line[3:] if line.startswith(b"   ") else line.lstrip(b" ")
    if not text[:1] or text[:1] not in b"`~":
        return b"", False
    n = len(text) - len(text.lstrip(text[:1]))
    if n < 3 or (text[:1] == b"`" and b"`" in text[n:]):
        return b"", False
    return text[:n], n == len(text)


def _other_tasks_heading(line: bytes) -> bool:
    """ "Другие активные задачи" (or "Other active tasks") after any "#", "*" or
    blanks starts the other tasks."""
    return line.lstrip(b"#* \t").startswith(OTHER_TASKS)


def _stage_header_id(line: bytes) -> bytes:
    if not line.startswith(b"**"):
        return b""
    end = line.find(MIDDOT)
    return line[2:end] if end >= 0 else b""


def _numbered(line: bytes) -> bool:
    """line starts with digits, a dot and a space ("12. ...")."""
    dot = line.find(b". ")
    return dot > 0 and line[:dot].isdigit()


def _scan(raw_lines: Iterable[bytes]) -> _Scan:
    scan = _Scan()
    state = ""
    fence = b""
    for number, line in enumerate(_lines(raw_lines), start=1):
        if number == 1:
            if line.startswith(BOM):
                line = line[3:]
            scan.stage_id = _stage_header_id(line)
        run, alone = _fence_run(line)
        if fence:
            # Closed by a run of the same character at least as long, alone on its line.
            if alone and run.startswith(fence):
                fence = b""
            continue
        if run:
            fence = run
            continue
        header = _header_id(line)
        if header is not None:
            scan.found, scan.count, scan.options = True, 0, []
            scan.header_id, scan.header_runs_on = header
            state = "options"
        elif state == "options":
            if line == b"---":
                state = "closed"
            elif _other_tasks_heading(line):
                state = "other-tasks"
            elif _numbered(line) and scan.options is not None:
                scan.count += 1
                if scan.count <= MAX_OPTIONS:
                    scan.options.append(line[line.index(b". ") + 2 :].lstrip(b" \t"))
        elif state == "other-tasks" and line == b"---":
            state = "closed"
    return scan


def _option(text: bytes, number: int) -> _Option:
    fault = utf8_scan(text, ctl=True, tab_ok=True)
    if fault == "utf8":
        raise RefusedError(f"CTA option {number} is not valid UTF-8")
    if fault:
        raise RefusedError(f"CTA option {number} holds a control character")
    command: bytes | None = None
    # A line ending in " — " lost its last blank with the trailing blanks.
    parsed = text + b" " if any(text.endswith(sep[:-1]) for sep in _SEPS) else text
    if parsed.startswith(b"`"):
        tick = parsed.find(b"`", 1)
        if tick < 0:
            raise RefusedError(f"CTA option {number}: the command's closing backtick is missing")
        command = parsed[1:tick]
        if not command.startswith(b"/"):
            raise RefusedError(
                f"CTA option {number}: the command `{command.decode()}` does not start with /"
            )
        rest = parsed[tick + 1 :]
        width = _separator_at(rest, 0)
        if rest and not width:
            raise RefusedError(
                f"CTA option {number}: want '{SEP}' between the command and its purpose"
            )
        rest = rest[width:]
    else:
        # The first separator of any kind.
        rest = b""
        for at in range(len(parsed)):
            width = _separator_at(parsed, at)
            if width:
                rest = parsed[at + width :]
                break
    mark = next((word for word in _PRIMARIES + _ALTERNATIVES if _marked(rest, word)), b"")
    primary = mark in _PRIMARIES
    if mark:
        rest = rest[len(mark) + _separator_at(rest, len(mark)) :]
    # A plain-text option keeps its text; a command drops its marker word.
    item = text if command is None else command + b" | " + rest if rest else command
    return _Option(text, command, primary, mark, item)


def _separator_at(text: bytes, at: int) -> int:
    """The length of the separator at text[at:] (" — ", " – " or " - "); 0 when none."""
    return next((len(sep) for sep in _SEPS if text.startswith(sep, at)), 0)


def _marked(rest: bytes, word: bytes) -> bool:
    """The purpose text starts with the marker word (alone, or before a separator)."""
    return rest == word or (rest.startswith(word) and _separator_at(rest, len(word)) > 0)


def read_cta(path: str, task: str | None) -> CtaBlock:
    """The CTA block ending the answer at path, for task (None: the task its header
    names, which must pass the task-ID rule); RefusedError names what is wrong."""
    with open(path, "rb") as handle:
        return read_cta_chunks(handle, task)


def read_cta_chunks(chunks: Iterable[bytes], task: str | None) -> CtaBlock:
    """read_cta of the answer the chunks (bytes, read in order) hold."""
    scan = _scan(_raw_lines(chunks))
    stage_id = scan.stage_id.decode("latin-1")
    from_header = task is None
    if task is not None:
        _check_stage_header(stage_id, task)
    if not scan.found or scan.options is None:
        raise RefusedError(
            "--response-file has no CTA block (a line starting **Следующий шаг — <ID>,"
            " **QA failed для <ID> or **Expectations BLOCKED для <ID>, or in English"
            " **Next step — <ID>, **QA failed for <ID> or **Expectations BLOCKED for <ID>)"
        )
    header_id = scan.header_id.decode("ascii")
    if not header_id:
        raise RefusedError("the CTA header names no task ID")
    if scan.header_runs_on:
        raise RefusedError(
            f"the CTA header's task ID {header_id} runs on into other text"
            " (want a space or ** after it)"
        )
    if task is None:
        if not task_id_ok(header_id):
            raise RefusedError(f"the CTA header's task ID {header_id} is not a valid task ID")
        task = header_id
    if header_id != task:
        raise RefusedError(f"the CTA block is for {header_id}, not --task {task}")
    if scan.count == 0:
        raise RefusedError("the CTA block has no numbered options")
    if scan.count > MAX_OPTIONS:
        raise RefusedError(f"the CTA block has {scan.count} options (at most {MAX_OPTIONS})")

    options = [_option(text, number) for number, text in enumerate(scan.options, start=1)]
    primaries = [number for number, option in enumerate(options, start=1) if option.primary]
    if not primaries:
        raise RefusedError(f"no CTA option is marked {PRIMARY} or {PRIMARY_EN}")
    if len(primaries) > 1:
        first, second = (options[n - 1].mark.decode() for n in primaries[:2])
        if first == second:
            raise RefusedError(
                f"CTA options {primaries[0]} and {primaries[1]} are both marked {first}"
                " (want exactly one)"
            )
        raise RefusedError(
            f"CTA options {primaries[0]} ({first}) and {primaries[1]} ({second}) are both"
            " marked as the recommended one (want exactly one)"
        )
    number = primaries[0]
    primary = options[number - 1]
    if primary.command is None:
        raise RefusedError(f"the {primary.mark.decode()} CTA option {number} has no command")
    recommended = primary.command.split(b" ", 1)[0]
    fault = slash_command_fault(recommended)
    if fault:
        raise RefusedError(f"CTA option {number}: recommended_next {fault}")

    # The primary goes first: a replay shows the first option whose command
    # matches recommended_next, and that must be this one.
    items = [primary.item] + [o.item for o in options if o is not primary]
    size = sum(len(item) + 1 for item in items)
    if size > CAP:
        raise RefusedError(f"the CTA options take {size} bytes, more than the {CAP}-byte cap")
    if from_header:  # only now is the task known
        _check_stage_header(stage_id, task)
    return CtaBlock(task, recommended.decode(), [item.decode() for item in items])


def _check_stage_header(stage_id: str, task: str) -> None:
    """A stage header on line 1 (**{ID} · {title}**) may name only this task."""
    if stage_id and task_id_ok(stage_id) and stage_id != task:
        raise RefusedError(f"the answer's stage header names {stage_id}, not --task {task}")
