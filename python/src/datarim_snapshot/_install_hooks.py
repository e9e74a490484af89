"""Bash twin: scripts/lib/install-hooks.sh (+ hooks-splice.awk).

`install-hooks`: this project's hooks into a Claude Code settings.json or a Codex
hooks.json.

The splice (the rules are spelled out at the head of hooks-splice.awk, and the
two follow them step for step) adds what is missing and changes no byte that is
not ours: a file that is not one strict JSON object, or whose "hooks" or events
have another shape, is refused and left as it is; a second run changes nothing;
the file is replaced atomically (a temp file renamed over it) and keeps its mode.
The Python port installs the `datarim-snapshot <hook>` commands by default, the
bash suite its `dev-tools/<hook>.sh` scripts; --hook-command chooses.
"""

from __future__ import annotations

import os
import sys

from ._errors import RefusedError, UsageError
from ._flags import parse_flags
from ._records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._console import Console

PROGRAM = "install-hooks"
FILE_LIMIT = 1048576
# (event, matcher, hook, timeout): what each event runs (Claude Code, Codex and
# Qwen Code: regex matchers, timeouts in seconds).
EVENTS = (
    ("SessionStart", "clear|compact|resume|fork", "session-start-hook", 10),
    ("UserPromptSubmit", "", "prompt-hook", 10),
    ("Stop", "", "stop-hook", 30),
)
RUNTIMES = ("claude", "codex", "gemini", "qwen", "copilot", "opencode")
OPENCODE_PLUGIN = "opencode/plugin/datarim-snapshots.js"
# GitHub Copilot CLI's SessionStart and Stop hooks run with this before them:
# session-start-hook answers in Copilot's form, stop-hook reads the answer from
# Copilot's OpenTelemetry file (docs/agent-runtimes.md).
COPILOT_PREFIX = "DATARIM_HOOK_RUNTIME=copilot "
# Copilot follows a compaction with no SessionStart: its PreCompact runs
# session-start-hook, which keeps the resume for the next prompt's hook.
COPILOT_EVENTS = EVENTS + (("PreCompact", "", "session-start-hook", 10),)
# Gemini CLI: its matchers are exact strings, so SessionStart has none (the hook
# itself passes over startup); its timeouts are milliseconds.
GEMINI_EVENTS = (
    ("SessionStart", "", "session-start-hook", 10000),
    ("BeforeAgent", "", "prompt-hook", 10000),
    ("AfterAgent", "", "stop-hook", 30000),
)
BAD_TEMPLATE = "--hook-command must hold {hook} and no control character"
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./_-")


class _Node(Record):
    """A JSON value's place in the text: [start, end) and, for a container, its
    members (name or None, node) and where its first member starts."""

    __slots__ = ("kind", "start", "end", "members", "first", "value")

    def __init__(self, kind: str, start: int) -> None:
        self.kind = kind  # "object", "array", "string" or "other"
        self.start = start
        self.end = start
        self.members: list[tuple[str | None, _Node]] = []
        self.first = -1
        self.value: object = None

    def member(self, name: str) -> _Node | None:
        """The last member of that name (as json.loads keeps it)."""
        found = None
        for key, node in self.members:
            if key == name:
                found = node
        return found


def _walk(text: str, at: int) -> _Node:
    """The node of the (valid) JSON value at text[at:], whitespace before it skipped."""
    import json

    # parse_int=float: no digit-count limit (Python 3.11 refuses ints of 4300+ digits).
    decode = json.JSONDecoder(parse_int=float).raw_decode
    at = _skip(text, at)
    char = text[at]
    if char == "{" or char == "[":
        node = _Node("object" if char == "{" else "array", at)
        close = "}" if char == "{" else "]"
        at = _skip(text, at + 1)
        while text[at] != close:
            if node.first < 0:
                node.first = at
            key = None
            if close == "}":
                key, at = decode(text, at)
                at = _skip(text, at) + 1  # the colon
            child = _walk(text, at)
            node.members.append((key, child))
            at = _skip(text, child.end)
            if text[at] == ",":
                at = _skip(text, at + 1)
        node.end = at + 1
        return node
    node = _Node("string" if char == '"' else "other", at)
    node.value, node.end = decode(text, at)
    return node


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def _load(data: bytes) -> str:
    """The file's text once it is one strict JSON object with no repeated name;
    raises RefusedError (exit 1) naming what is wrong."""
    if len(data) > FILE_LIMIT:
        raise RefusedError("--file is over 1 MiB; left unchanged")
    from ._hook_payload import load_payload, repeats_a_name

    if load_payload(data) is None:
        raise RefusedError("--file is not one strict JSON object; left unchanged")
    if repeats_a_name(data):
        raise RefusedError("--file repeats a name in an object; left unchanged")
    return data.decode("utf-8")


class _Splice:
    """The splice of hooks-splice.awk over one file's text."""

    def __init__(
        self,
        text: str,
        commands: list[str],
        events: tuple[tuple[str, str, str, int], ...],
        copilot: bool = False,
    ) -> None:
        self.events = events
        self.text = text
        self.commands = commands
        # GitHub Copilot CLI: an event holds its hooks themselves, not groups.
        self.copilot = copilot
        self.inline = False
        self.step = ""
        self.inserts: list[tuple[int, int, str]] = []
        root = _walk(text, 0)
        self.root = root
        self.unit = self._step_of(root) if root.members else ""
        if not self.unit:
            self.unit = "  "
        # A file whose first line ends in CR LF gets CR LF in what is added.
        first = text.find("\n")
        self.nl = "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"

    def _line_indent(self, pos: int) -> str:
        start = self.text.rfind("\n", 0, pos) + 1
        end = start
        while end < pos and self.text[end] in " \t":
            end += 1
        return self.text[start:end]

    def _step_of(self, node: _Node) -> str:
        lead = self.text[node.start + 1 : node.first]
        if "\n" not in lead:
            return ""
        lead = lead[lead.rindex("\n") + 1 :]
        base = self._line_indent(node.start)
        if len(lead) <= len(base) or not lead.startswith(base):
            return ""
        return lead[len(base) :]

    def _wrap(self, brackets: str, items: list[str], ind: str) -> str:
        if self.inline:
            return brackets[0] + ", ".join(items) + brackets[1]
        inner = ",".join(f"{self.nl}{ind}{self.step}{item}" for item in items)
        return f"{brackets[0]}{inner}{self.nl}{ind}{brackets[1]}"

    def _handler(self, e: int, ind: str) -> str:
        """A command hook: Copilot names its command "bash" and its timeout "timeoutSec"."""
        command, timeout = ("bash", "timeoutSec") if self.copilot else ("command", "timeout")
        items = [
            '"type": "command"',
            f'"{command}": ' + _json_string(self.commands[e]),
            f'"{timeout}": {self.events[e][3]}',
        ]
        return self._wrap("{}", items, ind)

    def _group(self, e: int, ind: str) -> str:
        if self.copilot:
            return self._handler(e, ind)
        items = [f'"matcher": {_json_string(self.events[e][1])}'] if self.events[e][1] else []
        handler = self._handler(e, ind + self.step + self.step)
        items.append('"hooks": ' + self._wrap("[]", [handler], ind + self.step))
        return self._wrap("{}", items, ind)

    def _event_member(self, e: int, ind: str) -> str:
        return f'"{self.events[e][0]}": ' + self._wrap("[]", [self._group(e, ind + self.step)], ind)

    def _hooks_member(self, wanted: list[int], ind: str) -> str:
        members = [self._event_member(e, ind + self.step) for e in wanted]
        return '"hooks": ' + self._wrap("{}", members, ind)

    def _place(self, node: _Node) -> tuple[int, int, str, str, str, str]:
        """(position, bytes replaced, items' indent, before, between, after)."""
        if not node.members:
            self.inline = False
            self.step = self.unit
            base = self._line_indent(node.start)
            ind = base + self.step
            nl = self.nl
            return (
                node.start + 1,
                node.end - node.start - 2,
                ind,
                nl + ind,
                "," + nl + ind,
                nl + base,
            )
        lead = self.text[node.start + 1 : node.first]
        self.inline = "\n" not in lead
        self.step = self._step_of(node) or self.unit
        ind = lead[lead.rindex("\n") + 1 :] if "\n" in lead else lead
        return node.members[-1][1].end, 0, ind, "," + lead, "," + lead, ""

    def run(self) -> list[str]:
        """The events added, in order; self.inserts says where and what."""
        hooks = self.root.member("hooks")
        if hooks is None:
            pos, length, ind, before, _, after = self._place(self.root)
            self.inserts.append(
                (
                    pos,
                    length,
                    before + self._hooks_member(list(range(len(self.events))), ind) + after,
                )
            )
            return [event for event, _, _, _ in self.events]
        if hooks.kind != "object":
            raise RefusedError('--file: "hooks" is not an object; left unchanged')
        added, missing = set(), []
        for e, (event, _, _, _) in enumerate(self.events):
            node = hooks.member(event)
            if node is None:
                missing.append(e)
                continue
            if node.kind != "array":
                raise RefusedError(f'--file: "hooks"."{event}" is not an array; left unchanged')
            if self._ours_present(e, node):
                continue
            pos, length, ind, before, _, after = self._place(node)
            self.inserts.append((pos, length, before + self._group(e, ind) + after))
            added.add(e)
        if missing:
            pos, length, ind, before, between, after = self._place(hooks)
            members = between.join(self._event_member(e, ind) for e in missing)
            self.inserts.append((pos, length, before + members + after))
            added.update(missing)
        return [self.events[e][0] for e in sorted(added)]

    def _ours_present(self, e: int, node: _Node) -> bool:
        for _, group in node.members:
            if self.copilot:
                bash = group.member("bash") if group.kind == "object" else None
                if bash is not None and bash.kind == "string" and bash.value == self.commands[e]:
                    return True
                continue
            handlers = group.member("hooks") if group.kind == "object" else None
            if handlers is None or handlers.kind != "array":
                continue
            for _, handler in handlers.members:
                command = handler.member("command") if handler.kind == "object" else None
                if (
                    command is not None
                    and command.kind == "string"
                    and command.value == self.commands[e]
                ):
                    return True
        return False

    def result(self) -> str:
        out, at = [], 0
        for pos, length, text in sorted(self.inserts):
            out.append(self.text[at:pos] + text)
            at = pos + length
        return "".join(out) + self.text[at:]


def _json_string(value: str) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def splice(
    data: bytes | None,
    commands: list[str],
    events: tuple[tuple[str, str, str, int], ...] = EVENTS,
    copilot: bool = False,
) -> tuple[list[str], bytes]:
    """(events added, the new file) for a file's bytes (None: no file yet).
    Raises UsageError for a command with a control character, RefusedError for
    a file that is not what the splice needs."""
    _check_commands(commands)
    text = _load(b"{}\n" if data is None else data)
    work = _Splice(text, commands, events, copilot)
    added = work.run()
    return added, work.result().encode("utf-8")


def shell_quote(word: str) -> str:
    """word as one shell word (as shlex.quote quotes it)."""
    if word and all(c in _SAFE for c in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def default_template() -> str:
    """The Python port's hook commands: the datarim-snapshot beside this Python."""
    entry = os.path.join(os.path.dirname(sys.executable), "datarim-snapshot")
    if os.path.isfile(entry) and os.access(entry, os.X_OK):
        return shell_quote(entry) + " {hook}"
    return "datarim-snapshot {hook}"


def _simple_command(template: str) -> bool:
    """No ; & | ( ) or backquote outside quotes: one simple command (redirections
    allowed), which an assignment put before it (Copilot's DATARIM_HOOK_RUNTIME=copilot) reaches; a
    list, a pipeline or a compound command would not get it, or not parse."""
    quote = ""
    escaped = False
    for char in template:
        if escaped:
            escaped = False
        elif quote == "'":
            quote = "" if char == "'" else quote
        elif quote == '"':
            if char == "\\":
                escaped = True
            elif char == '"':
                quote = ""
        elif char == "\\":
            escaped = True
        elif char in "'\"":
            quote = char
        elif char in ";&|()`":
            return False
    return True


# The runtimes whose own variable names their folder: (that variable, the file
# in it, the file under HOME when it is not set).
_OWN_HOMES = {
    "codex": ("CODEX_HOME", "hooks.json", ".codex/hooks.json"),
    "opencode": ("XDG_CONFIG_HOME", OPENCODE_PLUGIN, ".config/" + OPENCODE_PLUGIN),
    "copilot": ("COPILOT_HOME", "settings.json", ".copilot/settings.json"),
}


def default_file(runtime: str) -> str:
    home = os.environ.get("HOME", "")
    if runtime in _OWN_HOMES:
        variable, name, under_home = _OWN_HOMES[runtime]
        own = os.environ.get(variable, "")
        if own.startswith("/"):
            return own + "/" + name
        if home.startswith("/"):
            return home + "/" + under_home
        raise UsageError(f"no --file given, and neither {variable} nor HOME is an absolute path")
    if home.startswith("/"):
        folder = {"claude": ".claude", "gemini": ".gemini", "qwen": ".qwen"}[runtime]
        return f"{home}/{folder}/settings.json"
    raise UsageError("no --file given, and HOME is not an absolute path")


def install_hooks(
    runtime: str, file: str | None = None, template: str | None = None
) -> tuple[str, list[str]]:
    """Merges the three hooks into file (default: the runtime's own); returns the
    file and the events added (none: they were all there, nothing changed). Raises
    UsageError (2) or RefusedError (1, the file left as it was). The read, merge
    and replace run under a lock beside the file (.<name>.lock, waited for
    DR_SNAPSHOT_LOCK_TIMEOUT seconds, 10 by default), so that two installers at
    once never lose each other's entries; a first read before it means a
    refusal or "already there" takes no lock and creates nothing."""
    from ._flags import seconds_env

    if runtime not in RUNTIMES:
        raise UsageError("--runtime must be claude, codex, gemini, qwen, copilot or opencode")
    events = {"gemini": GEMINI_EVENTS, "copilot": COPILOT_EVENTS}.get(runtime, EVENTS)
    path = file or default_file(runtime)
    template = template or default_template()
    if "{hook}" not in template:
        raise UsageError(BAD_TEMPLATE)
    copilot = runtime == "copilot"
    if copilot and not _simple_command(template):
        raise UsageError(
            "--hook-command must be one simple command for copilot"
            " (DATARIM_HOOK_RUNTIME=copilot goes before it)"
        )
    commands = [template.replace("{hook}", hook) for _, _, hook, _ in events]
    if copilot:
        for e in (0, 2, 3):
            commands[e] = COPILOT_PREFIX + commands[e]
    timeout = seconds_env("DR_SNAPSHOT_LOCK_TIMEOUT", 10)

    def merge() -> tuple[list[str], bytes, bool]:
        if runtime == "opencode":
            return _plugin(path, commands)
        return _merge(path, commands, events, copilot)

    added, _, _ = merge()
    if not added:
        return path, added
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        try:
            os.makedirs(directory)
        except OSError:
            raise RefusedError("cannot create the directory of --file") from None
    from ._errors import LockBusyError
    from ._lock import held_lock

    try:
        with held_lock(os.path.join(directory, f".{os.path.basename(path)}.lock"), timeout):
            # As the file is now: another installer may have changed it since.
            added, content, exists = merge()
            if added:
                _replace(path, content, exists)
    except LockBusyError as exc:
        raise RefusedError(exc.message) from None
    return path, added


def _check_commands(commands: list[str]) -> None:
    """UsageError for a hook command that holds a control character or is no UTF-8."""
    from ._rules import utf8_scan

    for command in commands:
        try:
            raw = command.encode("utf-8")
        except UnicodeEncodeError:
            raw = b"\x00"
        if utf8_scan(raw, ctl=True, tab_ok=False):
            raise UsageError(BAD_TEMPLATE)


def render_opencode_plugin(commands: list[str]) -> bytes:
    """The opencode plugin for the three commands: text/opencode-plugin.js with
    each "@<HOOK>@" placeholder (quotes included) replaced by its command as a
    JSON string (which JavaScript reads as the same string)."""
    from ._texts import text_bytes

    _check_commands(commands)
    try:
        text = text_bytes("opencode-plugin.js").decode("utf-8")
    except OSError:
        raise RefusedError("cannot read the plugin's template") from None
    for token, command in zip(("SESSION_START_HOOK", "PROMPT_HOOK", "STOP_HOOK"), commands):
        text = text.replace(f'"@{token}@"', _json_string(command))
    return text.encode("utf-8")


def _target_exists(path: str) -> bool:
    """Whether path exists; refused when it is a symlink or no regular file."""
    if os.path.islink(path):
        raise RefusedError("--file is a symlink; pass the file it points to")
    exists = os.path.lexists(path)
    if exists and not os.path.isfile(path):
        raise RefusedError("--file is not a regular file")
    return exists


def _plugin(path: str, commands: list[str]) -> tuple[list[str], bytes, bool]:
    """As _merge, for the opencode plugin: nothing added when path holds it
    already; a file holding anything but a plugin of ours is refused."""
    exists = _target_exists(path)
    content = render_opencode_plugin(commands)
    if exists:
        try:
            with open(path, "rb") as handle:
                old = handle.read()
        except OSError:
            raise RefusedError("--file cannot be read") from None
        if old == content:
            return [], content, exists
        if old.split(b"\n", 1)[0] != content.split(b"\n", 1)[0]:
            raise RefusedError("--file is not this project's opencode plugin; left unchanged")
    return [event for event, _, _, _ in EVENTS], content, exists


def _merge(
    path: str,
    commands: list[str],
    events: tuple[tuple[str, str, str, int], ...],
    copilot: bool = False,
) -> tuple[list[str], bytes, bool]:
    """The events missing from path, the merged file, and whether path exists."""
    exists = _target_exists(path)
    data = None
    if exists:
        try:
            with open(path, "rb") as handle:
                data = handle.read(FILE_LIMIT + 1)
        except OSError:
            raise RefusedError("--file cannot be read") from None
    added, content = splice(data, commands, events, copilot)
    return added, content, exists


def _replace(path: str, content: bytes, exists: bool) -> None:
    """content over path: a temp file beside it, fsynced, given path's mode (600
    for a new file), renamed over it."""
    from ._lock import random15

    directory, name = os.path.split(path)
    tmp = os.path.join(directory, f".{name}.tmp.{os.getpid()}.{random15()}")
    try:
        mode = os.stat(path).st_mode & 0o7777 if exists else 0o600
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, content)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise RefusedError("cannot replace --file; left unchanged") from None


def _listing(events: list[str]) -> str:
    if len(events) == 1:
        return f"the {events[0]} hook"
    return "the " + ", ".join(events[:-1]) + f" and {events[-1]} hooks"


def install_hooks_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/install-hooks.sh."""
    flags = parse_flags("--runtime= --file= --hook-command=", "--runtime", argv)
    path, added = install_hooks(
        flags["runtime"], flags.get("file"), flags.get("hook_command") or None
    )
    if added:
        console.write(
            f"{PROGRAM}: added {_listing(added)} to {path}\n".encode("utf-8", "surrogateescape")
        )
    else:
        console.write(
            f"{PROGRAM}: the hooks are already in {path}; nothing changed\n".encode(
                "utf-8", "surrogateescape"
            )
        )
    return 0
