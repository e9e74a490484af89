"""Bash twin: scripts/lib/doctor.sh (+ doctor-*.awk).

`datarim-snapshot doctor`: why something resumed or did not.

For the workspace: the root the readers resolve and why (spec §8), whether it
holds a knowledge base, its active tasks (so what the SessionStart hook does),
every snapshot and session file with the validators' verdict, this project's
hooks installed for Claude Code and Codex, and the last lines of the hooks'
log (docs/doctor.md). Every verdict comes from the validators and readers
themselves; nothing here is a second copy of a rule.
"""

from __future__ import annotations

import os
import stat

from . import _jsonout as jsonout
from ._errors import DatarimError, UsageError
from ._flags import parse_flags
from ._rules import shown_message, task_id_ok

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from ._console import Console

PROGRAM = "doctor"
# Our hooks, each with the event it belongs to (docs/agent-runtimes.md).
HOOK_EVENTS = {
    "session-start-hook": "SessionStart",
    "prompt-hook": "UserPromptSubmit",
    "stop-hook": "Stop",
}
OPENCODE_PLUGIN = "opencode/plugin/datarim-snapshots.js"
# Gemini CLI runs the prompt and Stop hooks on BeforeAgent and AfterAgent.
GEMINI_HOOK_EVENTS = {
    "session-start-hook": "SessionStart",
    "prompt-hook": "BeforeAgent",
    "stop-hook": "AfterAgent",
}
PLUGIN = "datarim-snapshots@"  # enabledPlugins key of the plugin, any marketplace
EXTENSION = "datarim-snapshots"  # the Gemini CLI and Qwen Code extension's name
COPILOT_UNSET = (
    "without DATARIM_HOOK_RUNTIME=copilot it would read Copilot's payload as Claude Code's"
)
FILE_LIMIT = 1048576  # as install-hooks: a settings file over 1 MiB is not read
LOG_TAIL = 65536  # the log is read from its last 64 KiB
LOG_LINES = 5
LINE_MAX = 240  # bytes of a log line shown
REASONS = {
    "given": "given by --root",
    "git-top-level": "the git top level, whose datarim/ is a knowledge base",
    "nearest-knowledge-base": "the nearest directory upwards whose datarim/ is a knowledge base",
    "current-directory": "no knowledge base at the git top level or upwards: the current directory",
}


def text(raw: bytes) -> str:
    """Bytes as the report shows them: invalid UTF-8 as U+FFFD, controls as "?"."""
    return shown_message(raw.decode("utf-8", "replace"))


def _path_text(path: str) -> str:
    return text(os.fsencode(path))


class Report:
    """What the doctor found, in the order it prints it."""

    def __init__(self) -> None:
        self.facts: dict[str, Any] = {}
        self.problems: list[str] = []
        # The newest valid snapshot's captured_at: the last sign a hook worked.
        self.newest = ""
        # (runtime, hook, file or "plugin <key>") of each hook of ours that would run.
        self.installed: list[tuple[str, str, str]] = []

    def problem(self, message: str) -> None:
        self.problems.append(message)


def _root(root_flag: str | None) -> tuple[str, str]:
    from ._roots import FOREIGN_DATARIM, discover_root, foreign_datarim

    if root_flag is None:
        choice = discover_root()
        if foreign_datarim(choice.path):
            raise UsageError(f"{FOREIGN_DATARIM}; pass --root to examine it")
        return os.path.realpath(choice.path), choice.reason
    if not os.path.isdir(root_flag):
        raise UsageError("--root is not a directory")
    return os.path.realpath(root_flag), "given"


def _active(root: str, report: Report) -> dict[str, Any]:
    """The active tasks and what the SessionStart hook makes of them."""
    from ._snapshot_resume import active_context_unreadable, active_tasks

    tasks = active_tasks(root)
    if len(tasks) == 1:
        resume = _resume_of(root, tasks[0])
    elif tasks:
        resume = (
            f"the SessionStart hook lists the {len(tasks)} active tasks with their snapshots"
            " and asks which to resume (resume-task needs --task <ID>)"
        )
    elif active_context_unreadable(root):
        resume = "the SessionStart hook stays silent: datarim/activeContext.md cannot be read"
        report.problem("datarim/activeContext.md cannot be read")
    elif os.path.isfile(os.path.join(root, "datarim", "activeContext.md")):
        resume = (
            "the SessionStart hook stays silent: datarim/activeContext.md lists no task"
            ' under "## Active Tasks"'
        )
    else:
        resume = "the SessionStart hook stays silent: there is no datarim/activeContext.md"
    return {"tasks": tasks, "resume": resume}


def _resume_of(root: str, task: str) -> str:
    """What the SessionStart hook hands the agent for the one active task: the
    replay of its snapshot when that is valid, else its legacy context (which
    always holds datarim/activeContext.md, where the task is listed)."""
    from ._errors import MalformedError
    from ._snapshot_validator import read_snapshot

    after = "after /clear, a compaction, a resume or a fork"
    try:
        read_snapshot(root, task)
    except MalformedError:
        state = "invalid"
    except DatarimError:
        state = "missing"
    else:
        return f"the SessionStart hook resumes it from its snapshot {after}"
    return (
        f"the SessionStart hook resumes it from its legacy context {after}"
        f" (its snapshot is {state})"
    )


def _artefacts(root: str, kind: str, report: Report) -> dict[str, Any]:
    """Every <name>.<kind>.md file of datarim/<kind>s/, by name, with the validator's verdict."""
    from ._errors import MalformedError, MissingError
    from ._rules import session_id_ok
    from ._session_handoff_validator import check_session_file
    from ._snapshot_validator import checked_file

    folder = f"datarim/{kind}s"
    directory = os.path.join(root, folder)
    if os.path.islink(directory):
        report.problem(f"{folder} is a symlink: every reader refuses it")
        return {"state": "symlink", "files": []}
    if not os.path.exists(directory):
        return {"state": "absent", "files": []}
    try:
        if not (os.path.isdir(directory) and os.access(directory, os.R_OK | os.X_OK)):
            raise OSError
        names = sorted(os.listdir(os.fsencode(directory)))
    except OSError:
        report.problem(f"{folder} cannot be read")
        return {"state": "unreadable", "files": []}
    suffix = f".{kind}.md".encode()
    files = []
    for raw in names:
        if raw.startswith(b".") or not raw.endswith(suffix):
            continue
        name = os.fsdecode(raw[: -len(suffix)])
        entry: dict[str, Any] = {"name": text(raw)}
        good_name = task_id_ok(name) if kind == "snapshot" else session_id_ok(name)
        if not good_name:
            what = "a task ID" if kind == "snapshot" else "a session ID"
            entry.update(verdict="ignored", detail=f"its name is not {what}: no reader looks at it")
            files.append(entry)
            continue
        path = os.path.join(directory, os.fsdecode(raw))
        try:
            if kind == "snapshot":
                snapshot = checked_file(path, name)
                detail: str | None = f"{snapshot.stage.decode()}, {snapshot.captured_at.decode()}"
                report.newest = max(report.newest, snapshot.captured_at.decode())
            else:
                check_session_file(path, name)
                detail = None
        except (MalformedError, MissingError) as exc:
            if not os.path.lexists(path):
                continue  # gone since the folder was listed: as bash, left out
            # Shown as every reader shows a reason: a snapshot's bytes may
            # hold characters that hide or reorder what a terminal shows.
            reason = shown_message(exc.message)
            entry.update(verdict="invalid", detail=reason)
            report.problem(f"{folder}/{text(raw)} {reason}")
        else:
            entry.update(verdict="valid", detail=detail)
        files.append(entry)
    return {"state": "read", "files": files}


def _words(command: str, count: int) -> list[str]:
    """The first count words of a shell command: split at blanks outside quotes;
    '...' quotes literally, "..." keeps \\" \\\\ \\$ \\` escapes, a backslash
    outside quotes escapes the next character; $VAR is kept as written."""
    words: list[str] = []
    at, end = 0, len(command)
    while len(words) < count:
        while at < end and command[at] in " \t":
            at += 1
        if at >= end:
            break
        word: list[str] = []
        while at < end and command[at] not in " \t":
            char = command[at]
            if char == "'":
                close = command.find("'", at + 1)
                close = end if close < 0 else close
                word.append(command[at + 1 : close])
                at = close + 1
            elif char == '"':
                at += 1
                while at < end and command[at] != '"':
                    if command[at] == "\\" and at + 1 < end and command[at + 1] in '"\\$`':
                        at += 1
                    word.append(command[at])
                    at += 1
                at += 1
            elif char == "\\" and at + 1 < end:
                word.append(command[at + 1])
                at += 2
            else:
                word.append(char)
                at += 1
        words.append("".join(word))
    return words


def _ours(command: str) -> tuple[str, str, bool] | None:
    """(hook, program, copilot) when command runs one of our hooks: a program
    named <hook>.sh (the bash suite, wherever it is installed) or datarim-snapshot
    followed by <hook> (the Python port); None for any other command. copilot:
    the last DATARIM_HOOK_RUNTIME assignment before the program sets copilot."""
    words = _words(command, 8)
    # Leading NAME=value words (the shell's assignments, as install-hooks puts
    # DATARIM_HOOK_RUNTIME=copilot before Copilot's commands) are not the program.
    copilot = False
    while words and _is_assignment(words[0]):
        if words[0].startswith("DATARIM_HOOK_RUNTIME="):
            copilot = words[0] == "DATARIM_HOOK_RUNTIME=copilot"
        words = words[1:]
    if not words:
        return None
    program = words[0]
    base = program.rsplit("/", 1)[-1]
    if base.endswith(".sh") and base[:-3] in HOOK_EVENTS:
        return base[:-3], program, copilot
    if base == "datarim-snapshot" and len(words) > 1 and words[1] in HOOK_EVENTS:
        return words[1], program, copilot
    return None


def _is_assignment(word: str) -> bool:
    """NAME=value, NAME a shell name (ASCII letters, digits, _; no digit first)."""
    name, sep, _ = word.partition("=")
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
    return bool(
        sep and name and name[0] in letters and all(char in letters + "0123456789" for char in name)
    )


def _program_fault(program: str) -> str | None:
    """Why the program of a hook command would not run, or None (also when that
    cannot be told here: a variable in its path, a path relative to the
    runtime's working directory)."""
    if "$" in program:
        return None
    if program.startswith("~/"):
        home = os.environ.get("HOME", "")
        if not home.startswith("/"):
            return None
        program = home + program[1:]
    if "/" not in program:
        for entry in os.environ.get("PATH", "").split(":"):
            candidate = os.path.join(entry or ".", program)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return None
        return f"{program} is not on PATH"
    if not program.startswith("/"):
        return None
    if not os.path.isfile(program):
        return f"{program} is missing"
    if not os.access(program, os.X_OK):
        return f"{program} is not executable"
    return None


def _settings(path: str) -> tuple[str, str | None, Any]:
    """(state, why, value) of a settings file: "absent", "unreadable" (why says
    why) or "read" with its JSON object, as install-hooks reads one: one strict
    JSON object with no repeated name, at most 1 MiB."""
    if not os.path.lexists(path):
        return "absent", None, None
    if not os.path.isfile(path):
        return "unreadable", "not a regular file", None
    try:
        with open(path, "rb") as handle:
            data = handle.read(FILE_LIMIT + 1)
    except OSError:
        return "unreadable", "cannot be read", None
    if len(data) > FILE_LIMIT:
        return "unreadable", "over 1 MiB, not read", None
    from ._hook_payload import load_payload, repeats_a_name

    value = load_payload(data)
    if value is None:
        return "unreadable", "not one strict JSON object", None
    if repeats_a_name(data):
        return "unreadable", "repeats a name in an object", None
    return "read", None, value


def _hook_file(runtime: str, path: str, report: Report) -> dict[str, Any]:
    """Our hooks in one settings file, in the order the file holds them."""
    state, why, value = _settings(path)
    entry: dict[str, Any] = {
        "runtime": runtime,
        "file": _path_text(path),
        "state": state,
        "detail": why,
    }
    found: list[dict[str, Any]] = []
    plugins: list[dict[str, Any]] = []
    if why is not None:
        report.problem(f"{_path_text(path)}: {why}")
    from ._hook_payload import usable

    hooks = value.get("hooks") if isinstance(value, dict) else None
    for event, groups in hooks.items() if isinstance(hooks, dict) else []:
        if not usable(event):  # a name no path can hold (NUL, a lone surrogate, a control)
            continue
        for group in groups if isinstance(groups, list) else []:
            if runtime == "copilot":  # GitHub Copilot CLI: hooks.<event>[i].bash
                inner: Any = [group]
                key = "bash"
            else:
                inner, key = (group.get("hooks") if isinstance(group, dict) else None), "command"
            for hook in inner if isinstance(inner, list) else []:
                command = hook.get(key) if isinstance(hook, dict) else None
                ours = _ours(command) if isinstance(command, str) and usable(command) else None
                if ours is None:
                    continue
                name, program, prefixed = ours
                fault = _program_fault(program)
                want = (GEMINI_HOOK_EVENTS if runtime == "gemini" else HOOK_EVENTS)[name]
                # Copilot's PreCompact runs it too: it keeps the resume for the next prompt.
                precompact = runtime == "copilot" and event == "PreCompact"
                if precompact and name == "session-start-hook":
                    want = event
                if fault is None and want != event:
                    fault = f"it runs on {event}; {name} belongs to {want}"
                # Under Copilot these two read its payloads only when told so.
                told = prefixed or runtime != "copilot" or name == "prompt-hook"
                if fault is None and not told:
                    fault = COPILOT_UNSET
                found.append({"event": event, "hook": name, "command": command, "problem": fault})
                if fault is not None:
                    report.problem(f"{_path_text(path)}: {event} {name}: {fault}")
                elif not precompact:
                    report.installed.append((runtime, name, _path_text(path)))
    claude = runtime == "claude" and isinstance(value, dict)
    enabled = value.get("enabledPlugins") if claude else None
    for key, flag in enabled.items() if isinstance(enabled, dict) else []:
        if key.startswith(PLUGIN) and usable(key) and isinstance(flag, bool):
            plugins.append({"plugin": key, "enabled": flag})
            if flag:
                where = f"plugin {text(key.encode())}"
                report.installed += [(runtime, hook, where) for hook in HOOK_EVENTS]
    entry.update(found=found, plugins=plugins)
    return entry


def _hooks(root: str, report: Report) -> list[dict[str, Any]]:
    home = os.environ.get("HOME", "")
    codex = os.environ.get("CODEX_HOME", "") or (home + "/.codex" if home.startswith("/") else "")
    files: list[tuple[str, str]] = []
    if home.startswith("/"):
        files.append(("claude", home + "/.claude/settings.json"))
    files += [
        ("claude", root + "/.claude/settings.json"),
        ("claude", root + "/.claude/settings.local.json"),
    ]
    if codex:
        files.append(("codex", codex + "/hooks.json"))
    files.append(("codex", root + "/.codex/hooks.json"))
    entries = [_hook_file(runtime, path, report) for runtime, path in files]
    for runtime in ("gemini", "qwen"):
        if home.startswith("/"):
            entries.append(_hook_file(runtime, f"{home}/.{runtime}/settings.json", report))
        entries.append(_hook_file(runtime, f"{root}/.{runtime}/settings.json", report))
        if home.startswith("/"):
            folder = f"{home}/.{runtime}/extensions/datarim-snapshots"
            entries.append(_extension_dir(runtime, folder, root, report))
    copilot = os.environ.get("COPILOT_HOME", "")
    if not copilot.startswith("/"):
        copilot = home + "/.copilot" if home.startswith("/") else ""
    if copilot:
        entries.append(_hook_file("copilot", copilot + "/settings.json", report))
    config = os.environ.get("XDG_CONFIG_HOME", "")
    if not config.startswith("/"):
        config = home + "/.config" if home.startswith("/") else ""
    plugins = [config + "/" + OPENCODE_PLUGIN] if config else []
    plugins.append(root + "/.opencode/plugin/datarim-snapshots.js")
    return entries + [_plugin_file(path, report) for path in plugins]


def _absent_entry(runtime: str, path: str) -> dict[str, Any]:
    """The report's entry of a hooks file or folder, as long as it is absent."""
    return {
        "runtime": runtime,
        "file": _path_text(path),
        "state": "absent",
        "detail": None,
        "found": [],
        "plugins": [],
    }


def _extension_dir(runtime: str, path: str, root: str, report: Report) -> dict[str, Any]:
    """The folder `gemini extensions install` or `qwen extensions install` leaves
    for our extension (~/.<runtime>/extensions/datarim-snapshots): ours when it
    holds the CLI's manifest, <runtime>-extension.json; then all three hooks,
    unless the CLI's extension-enablement.json beside it disables it for root, as
    `<runtime> extensions disable` does."""
    entry = _absent_entry(runtime, path)
    if not os.path.lexists(path):
        return entry
    manifest = os.path.join(path, f"{runtime}-extension.json")
    if not (os.path.isdir(path) and os.path.isfile(manifest) and os.access(manifest, os.R_OK)):
        detail = f"no {runtime}-extension.json in it"
        entry.update(state="unreadable", detail=detail)
        report.problem(f"{_path_text(path)}: {detail}")
        return entry
    enablement = os.path.join(os.path.dirname(path), "extension-enablement.json")
    why, enabled = _enablement(enablement, root)
    if why is not None:
        entry.update(state="unreadable", detail=f"extension-enablement.json: {why}")
        report.problem(f"{_path_text(enablement)}: {why}")
        return entry
    entry.update(state="read", plugins=[{"plugin": "datarim-snapshots", "enabled": enabled}])
    if enabled:
        report.installed += [(runtime, hook, _path_text(path)) for hook in HOOK_EVENTS]
    return entry


def _enablement(path: str, root: str) -> tuple[str | None, bool]:
    """(why not read, enabled): what an extension-enablement.json of Gemini CLI or
    Qwen Code makes of our extension in root. The CLIs' rule: "!" first disables,
    a last "*" takes in the folders below, and the last rule matching the root
    (with a "/" put at its end) wins; enabled when none does. A rule with a *
    before its last character (a glob) is not read. Twin of enablement_main in
    scripts/lib/doctor-hooks.awk."""
    state, why, value = _settings(path)
    if state == "absent":
        return None, True
    if why is not None:
        return why, False
    if EXTENSION not in value:
        return None, True
    entry = value[EXTENSION]
    rules = entry.get("overrides") if isinstance(entry, dict) else None
    if not isinstance(rules, list) or not all(isinstance(rule, str) for rule in rules):
        return f'its {EXTENSION} entry is not {{"overrides": [strings]}}', False
    # As the CLIs see the root: decoded from UTF-8, backslashes as "/", "/" at both ends.
    seen = os.fsencode(root).decode("utf-8", "replace").replace("\\", "/")
    seen = ("" if seen.startswith("/") else "/") + seen
    seen += "" if seen.endswith("/") else "/"
    enabled = True
    for rule in rules:
        if "\0" in rule or not _encodable(rule):
            continue  # U+0000 or a lone surrogate, which no path holds: it matches none
        off = rule.startswith("!")
        rule = rule[1:] if off else rule
        below = rule.endswith("*")
        rule = rule[:-1] if below else rule
        if "*" in rule:
            return f"a {EXTENSION} rule has a * before its end, which doctor does not read", False
        if _rule_matches(seen, rule, below):
            enabled = not off
    return None, enabled


def _encodable(rule: str) -> bool:
    """rule holds no lone surrogate."""
    try:
        rule.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _rule_matches(root: str, rule: str, below: bool) -> bool:
    """The CLIs turn a rule into a regular expression: <rule> alone, or with a
    last "*" <rule> then any text (when the rule ends in "/": nothing, or "/"
    then any text), where any text is one without a line end (LF, CR, U+2028,
    U+2029)."""
    if not below:
        return root == rule
    if rule.endswith("/") and root == rule[:-1]:
        return True
    rest = root[len(rule) :]
    return root.startswith(rule) and not any(char in rest for char in "\n\r\u2028\u2029")


def _plugin_file(path: str, report: Report) -> dict[str, Any]:
    """The opencode plugin install-hooks writes: ours when its first line is the
    template's (then it runs all three hooks)."""
    entry = _absent_entry("opencode", path)
    if not os.path.lexists(path):
        return entry
    from ._texts import text_bytes

    want = text_bytes("opencode-plugin.js").split(b"\n", 1)[0]
    try:
        if not os.path.isfile(path):
            raise OSError
        with open(path, "rb") as handle:
            # NUL bytes dropped, as bash's read drops them.
            head = handle.readline().rstrip(b"\n").replace(b"\0", b"")
    except OSError:
        entry.update(state="unreadable", detail="cannot be read")
        report.problem(f"{_path_text(path)}: cannot be read")
        return entry
    entry["state"] = "read"
    if head == want:
        entry["plugins"] = [{"plugin": "datarim-snapshots", "enabled": True}]
        report.installed += [("opencode", hook, _path_text(path)) for hook in HOOK_EVENTS]
    return entry


# The MCP server (docs/mcp.md): a server entry is ours when its command's
# program is named datarim-snapshot and its first argument (the command's
# second word, else args[0]) is mcp.
MCP_PROGRAM = "datarim-snapshot"
# A Codex config.toml is read line by line (_toml_servers, doctor-mcp.awk): a
# [mcp_servers.<name>] table's command = "..." and args = [ "first", ...; a
# string here holds no backslash and no control character.
_TOML_NAME = rb"[A-Za-z0-9_-]+|\"[^\"\\\x00-\x1f\x7f]*\""
_TOML_TABLE = rb"\[[ \t]*mcp_servers\.(" + _TOML_NAME + rb")[ \t]*\]\Z"
_TOML_VALUE = rb"(?:\"([^\"\\\x00-\x1f\x7f]*)\"|'([^'\x00-\x1f\x7f]*)')"
_TOML_COMMAND = rb"command[ \t]*=[ \t]*" + _TOML_VALUE
_TOML_ARGS = rb"args[ \t]*=[ \t]*\[[ \t]*" + _TOML_VALUE


def _mcp_entry(name: str, server: Any, scope: str | None) -> dict[str, Any] | None:
    """A server entry of a JSON file ({"command": ..., "args": [...]}) when it is ours."""
    from ._hook_payload import usable

    if not isinstance(server, dict) or not usable(name):
        return None
    command, args = server.get("command"), server.get("args")
    first = args[0] if isinstance(args, list) and args else None
    return _mcp_ours(name, command, first if isinstance(first, str) else None, scope)


def _mcp_ours(
    name: str, command: Any, first_arg: str | None, scope: str | None
) -> dict[str, Any] | None:
    from ._hook_payload import usable

    if not isinstance(command, str) or not usable(command):
        return None
    words = _words(command, 2)
    if not words or words[0].rsplit("/", 1)[-1] != MCP_PROGRAM:
        return None
    if (words[1] if len(words) > 1 else first_arg) != "mcp":
        return None
    return {"name": name, "scope": scope, "command": command, "problem": _program_fault(words[0])}


def _toml_servers(data: bytes) -> list[dict[str, Any]]:
    """The [mcp_servers.<name>] tables of a Codex config.toml that run ours, line
    by line: a table's command and the first item of its args (on the line args
    opens); other tables, and dotted keys, are not read."""
    from ._rules import pattern

    tables: list[tuple[bytes, dict[str, bytes]]] = []
    current: dict[str, bytes] | None = None
    for raw in data.split(b"\n"):
        line = raw.strip(b" \t\r")
        if line.startswith(b"["):
            match = pattern(_TOML_TABLE).match(line)
            current = None
            if match:
                current = {}
                tables.append((match.group(1).strip(b'"'), current))
            continue
        if current is None:
            continue
        for key, source in (("command", _TOML_COMMAND), ("args", _TOML_ARGS)):
            match = pattern(source).match(line)
            if match and key not in current:
                current[key] = match.group(1) if match.group(1) is not None else match.group(2)
    found = []
    for name, table in tables:
        command = table.get("command")
        first = table.get("args")
        entry = _mcp_ours(
            text(name),
            None if command is None else text(command),
            None if first is None else text(first),
            None,
        )
        if entry is not None:
            found.append(entry)
    return found


def _mcp_file(client: str, path: str, root: str, report: Report) -> dict[str, Any]:
    """Our MCP server in one client's configuration file, in the file's order
    (Claude Code's ~/.claude.json: the user's servers, then this project's)."""
    entry: dict[str, Any] = {"client": client, "file": _path_text(path)}
    if path.endswith(".toml"):
        state, why, data = _raw_file(path)
        servers = _toml_servers(data) if state == "read" else []
    else:
        state, why, value = _settings(path)
        servers = []
        for scope, holder in [(None, value), ("local", _project_of(value, root))]:
            table = holder.get("mcpServers") if isinstance(holder, dict) else None
            for name, server in table.items() if isinstance(table, dict) else []:
                found = _mcp_entry(name, server, scope)
                if found is not None:
                    servers.append(found)
            if client != "claude" or not path.endswith("/.claude.json"):
                break
    for server in servers:
        if server["problem"] is not None:
            report.problem(f"{_path_text(path)}: MCP server {server['name']}: {server['problem']}")
    entry.update(state=state, detail=why, servers=servers)
    return entry


def _project_of(value: Any, root: str) -> Any:
    """~/.claude.json's entry of this project (claude mcp add's local scope)."""
    projects = value.get("projects") if isinstance(value, dict) else None
    return projects.get(root) if isinstance(projects, dict) else None


def _raw_file(path: str) -> tuple[str, str | None, bytes]:
    """(state, why, bytes) of a file read whole, at most FILE_LIMIT bytes."""
    if not os.path.lexists(path):
        return "absent", None, b""
    if not os.path.isfile(path):
        return "unreadable", "not a regular file", b""
    try:
        with open(path, "rb") as handle:
            data = handle.read(FILE_LIMIT + 1)
    except OSError:
        return "unreadable", "cannot be read", b""
    if len(data) > FILE_LIMIT:
        return "unreadable", "over 1 MiB, not read", b""
    return "read", None, data


def _mcp(root: str, report: Report) -> list[dict[str, Any]]:
    """The files where the MCP clients keep their servers (docs/mcp.md)."""
    home = os.environ.get("HOME", "")
    home = home if home.startswith("/") else ""
    codex = os.environ.get("CODEX_HOME", "") or (home + "/.codex" if home else "")
    files: list[tuple[str, str]] = []
    if home:
        files.append(("claude", home + "/.claude.json"))
    files.append(("claude", root + "/.mcp.json"))
    if codex:
        files.append(("codex", codex + "/config.toml"))
    files.append(("codex", root + "/.codex/config.toml"))
    for client, name in (("gemini", ".gemini/settings.json"), ("cursor", ".cursor/mcp.json")):
        if home:
            files.append((client, f"{home}/{name}"))
        files.append((client, f"{root}/{name}"))
    return [_mcp_file(client, path, root, report) for client, path in files]


def _twice(report: Report) -> None:
    """A hook of ours that a runtime runs more than once: the entries that would
    run (on their own event, their program there) in its settings files, and an
    enabled plugin (once, for all three hooks). Each one runs, so the resume text
    arrives as many times."""
    for runtime in ("claude", "codex", "gemini", "qwen", "copilot", "opencode"):
        for hook in HOOK_EVENTS:
            count, places = 0, []
            for where in (w for r, h, w in report.installed if (r, h) == (runtime, hook)):
                if where in places and where.startswith("plugin "):
                    continue  # a plugin enabled in two files is one plugin
                count += 1
                if where not in places:
                    places.append(where)
            if count > 1:
                listed = ", ".join(places)
                report.problem(f"{runtime} runs {hook} {count} times ({listed}); keep one")


def _stamp(line: bytes) -> str | None:
    """The YYYY-MM-DDTHH:MM:SSZ a hooks.log line opens with, or None."""
    head = line[:21].decode("ascii", "replace")
    shape = "".join("9" if c.isdigit() else c for c in head)
    return head[:20] if shape == "9999-99-99T99:99:99Z " else None


def _log(report: Report) -> dict[str, Any]:
    """The last lines of the hooks' log (docs/agent-runtimes.md), from its last 64 KiB.
    The log holds failures only: those logged after the newest valid snapshot (the
    last sign that a hook worked; none: every one) are something to fix."""
    from ._hook_state import state_dir
    from ._inputs import read_tail

    state = state_dir()
    if state is None:
        return {"file": None, "state": "no-state-dir", "last": []}
    path = state + "/hooks.log"
    shown_path = _path_text(path)
    try:
        info = os.stat(path)
    except OSError:
        return {"file": shown_path, "state": "absent", "last": []}
    if not stat.S_ISREG(info.st_mode) or not os.access(path, os.R_OK):
        return {"file": shown_path, "state": "unreadable", "last": []}
    try:
        data, size = read_tail(path, LOG_TAIL)
    except OSError:
        return {"file": shown_path, "state": "unreadable", "last": []}
    if size > LOG_TAIL:
        data = data[data.find(b"\n") + 1 :] if b"\n" in data else b""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    last = [_cut(line) for line in lines[-LOG_LINES:]]
    failures = sum(1 for line in lines if (_stamp(line) or "") > report.newest)
    if failures:
        counted = "1 failure" if failures == 1 else f"{failures} failures"
        if report.newest:
            report.problem(
                f"{shown_path} holds {counted} logged after the newest snapshot here"
                f" ({report.newest})"
            )
        else:
            report.problem(f"{shown_path} holds {counted}, and no valid snapshot here")
    return {"file": shown_path, "state": "read" if last else "empty", "last": last}


def _cut(line: bytes) -> str:
    """A log line as shown: at most LINE_MAX bytes, cut at a character boundary."""
    if len(line) > LINE_MAX:
        end = LINE_MAX - 3
        while end > 0 and 0x80 <= line[end] <= 0xBF:
            end -= 1
        line = line[:end] + b"..."
    return text(line)


def examine(root_flag: str | None) -> dict[str, Any]:
    """Everything the doctor reports, as its --json object (key order fixed)."""
    from ._roots import is_knowledge_base

    report = Report()
    root, reason = _root(root_flag)
    datarim = os.path.join(root, "datarim")
    present = is_knowledge_base(datarim)
    facts: dict[str, Any] = {
        "root": {"path": _path_text(root), "reason": reason},
        "knowledge_base": {"path": _path_text(datarim), "present": present},
    }
    if not present:
        report.problem(f"no knowledge base in {_path_text(datarim)}: nothing here resumes")
    facts["active_tasks"] = _active(root, report)
    facts["snapshots"] = _artefacts(root, "snapshot", report)
    facts["sessions"] = _artefacts(root, "session", report)
    facts["hooks"] = _hooks(root, report)
    _twice(report)
    facts["mcp"] = _mcp(root, report)
    facts["hooks_log"] = _log(report)
    facts["problems"] = report.problems
    facts["healthy"] = not report.problems
    return facts


def _file_state(entry: dict[str, Any], items: list[str]) -> str:
    """What the text report says of a settings or MCP file that exists."""
    if entry["state"] == "unreadable":
        return f"cannot be read: {entry['detail']}"
    return ", ".join(items) if items else "none of ours"


def render(facts: dict[str, Any]) -> str:
    """The report an operator reads top to bottom."""
    out = [f"root: {facts['root']['path']} ({REASONS[facts['root']['reason']]})"]
    kb = facts["knowledge_base"]
    if kb["present"]:
        out.append(f"knowledge base: {kb['path']}")
    else:
        out.append(
            f"knowledge base: none ({kb['path']} holds no tasks.md, backlog.md,"
            " activeContext.md, tasks/, snapshots/ or sessions/)"
        )
    active = facts["active_tasks"]
    listed = " ".join(active["tasks"]) if active["tasks"] else "none"
    out.append(f"active tasks: {listed}; {active['resume']}")
    for kind in ("snapshots", "sessions"):
        part = facts[kind]
        if part["state"] == "symlink":
            out.append(f"{kind}: datarim/{kind} is a symlink: every reader refuses it")
        elif part["state"] == "unreadable":
            out.append(f"{kind}: datarim/{kind} cannot be read")
        elif part["state"] != "read":
            out.append(f"{kind}: none (no datarim/{kind})")
        elif not part["files"]:
            out.append(f"{kind}: none in datarim/{kind}")
        else:
            out.append(f"{kind}: {len(part['files'])} in datarim/{kind}")
            for entry in part["files"]:
                if entry["verdict"] != "valid":
                    detail = f": {entry['detail']}"
                else:
                    detail = f" ({entry['detail']})" if entry["detail"] else ""
                out.append(f"  {entry['name']}: {entry['verdict']}{detail}")
    out.append("hooks:")
    any_ours = False
    for entry in facts["hooks"]:
        items = []
        for hook in entry["found"]:
            item = f"{hook['event']} {hook['hook']}"
            if hook["problem"]:
                item += f" ({hook['problem']})"
            items.append(item)
        for plugin in entry["plugins"]:
            state = "enabled" if plugin["enabled"] else "disabled"
            items.append(f"plugin {plugin['plugin']} {state}")
        any_ours = any_ours or bool(entry["found"]) or any(p["enabled"] for p in entry["plugins"])
        state = "absent" if entry["state"] == "absent" else _file_state(entry, items)
        out.append(f"  {entry['runtime']} {entry['file']}: {state}")
    if not any_ours:
        out.append(
            "  (no hook of this project is installed: dev-tools/install-hooks.sh --runtime"
            " claude|codex|gemini|qwen|copilot|opencode, or the Claude Code plugin;"
            " see docs/agent-runtimes.md)"
        )
    out.append(f"mcp server ({MCP_PROGRAM} mcp):")
    registered = False
    for entry in facts["mcp"]:
        if entry["state"] == "absent":
            continue
        items = []
        for server in entry["servers"]:
            scope = "this project" if server["scope"] else None
            notes = [note for note in (scope, server["problem"]) if note]
            items.append(server["name"] + (f" ({'; '.join(notes)})" if notes else ""))
        registered = registered or bool(items)
        out.append(f"  {entry['client']} {entry['file']}: {_file_state(entry, items)}")
    if not registered:
        out.append(
            "  (registered with no MCP client: Claude Code, Codex, Gemini CLI and Cursor;"
            " see docs/mcp.md)"
        )
    log = facts["hooks_log"]
    if log["state"] == "no-state-dir":
        out.append(
            "hooks log: none (no state directory: DATARIM_STATE_DIR, XDG_STATE_HOME or HOME"
            " must be an absolute path)"
        )
    elif log["state"] == "absent":
        out.append(f"hooks log: {log['file']}: absent (no hook has logged a failure)")
    elif log["state"] == "unreadable":
        out.append(f"hooks log: {log['file']}: cannot be read")
    elif log["state"] == "empty":
        out.append(f"hooks log: {log['file']}: empty")
    else:
        count = len(log["last"])
        lines = "line" if count == 1 else f"{count} lines"
        out.append(f"hooks log: {log['file']}, its last {lines}:")
        out += [f"  {line}" for line in log["last"]]
    problems = facts["problems"]
    if not problems:
        out.append("result: healthy")
    else:
        out.append(f"result: {len(problems)} {'thing' if len(problems) == 1 else 'things'} to fix")
        out += [f"  - {problem}" for problem in problems]
    return "".join(line + "\n" for line in out)


def doctor_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/doctor.sh."""
    flags = parse_flags("--root= --json", "", argv)
    facts = examine(flags.get("root"))
    if flags.get("json"):
        console.write(jsonout.dumps(facts))
    else:
        console.write(render(facts).encode("utf-8", "surrogateescape"))
    return 0 if facts["healthy"] else 1
