"""Bash twin: none. Python only: an MCP server needs the MCP Python SDK (docs/mcp.md).

`datarim-snapshot mcp`: the snapshots and session handoffs over the Model
Context Protocol on stdio, for every MCP client, hooks or not.

Each prompt, tool and resource runs a `datarim-snapshot` subcommand in this
process (cli.main), so it gives the CLI's bytes and refuses bad input with the
CLI's one-line reason. Text arguments reach a command's input flags through
pipes (/dev/fd/N), never through a file: nothing is written but what the
command itself writes under the root. The root is --root, else the client's
first file:// root (MCP roots), else the one the CLI finds from the working
directory. The SDK (the `mcp` extra) loads only here.
"""

from __future__ import annotations

import io
import os
import threading

from ._errors import DatarimError, UsageError
from ._flags import parse_flags
from ._roots import FOREIGN_DATARIM, discover_root, foreign_datarim
from ._rules import shown_message

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from ._console import Console

PROGRAM = "datarim-mcp"
NO_SDK = 1  # the exit code when the mcp extra is not installed (usage-datarim-mcp.txt)
EXTRA_MISSING = (
    "the MCP Python SDK is not installed (Python 3.10 or later): "
    "pip install 'datarim-snapshot[mcp]'"
)
ROOTS_TIMEOUT = 10  # seconds to wait for the client's roots/list answer

# One command at a time: the SDK runs handlers side by side, and a command's
# output and refusal are read back whole.
_RUNNING = threading.Lock()


class CommandFailed(Exception):
    """A subcommand refused: its one-line reason (its stderr) and exit code."""

    def __init__(self, line: str, code: int) -> None:
        super().__init__(line)
        self.line = line
        self.code = code


class _Pipes:
    """Text arguments as input files: each one a pipe that a thread fills, read
    by the command through /dev/fd/N (the SDK's stdio is the standard input)."""

    def __init__(self) -> None:
        self.read_ends: list[int] = []
        self.writers: list[threading.Thread] = []

    def path(self, text: str) -> str:
        read_end, write_end = os.pipe()
        self.read_ends.append(read_end)
        data = text.encode("utf-8", "surrogateescape")
        writer = threading.Thread(target=_fill, args=(write_end, data), daemon=True)
        writer.start()
        self.writers.append(writer)
        return f"/dev/fd/{read_end}"

    def close(self) -> None:
        # Unread bytes: the writer gets EPIPE once no read end is left, and ends.
        for read_end in self.read_ends:
            os.close(read_end)
        for writer in self.writers:
            writer.join()


def _fill(write_end: int, data: bytes) -> None:
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view) :]
    except OSError:
        pass  # the command stopped reading (it refused, or it had enough)
    finally:
        os.close(write_end)


def run_cli(argv: Sequence[str], texts: Sequence[tuple[str, str]] = ()) -> tuple[bytes, bytes]:
    """`datarim-snapshot <argv>` in this process, each (flag, text) of texts
    given as an input file: its stdout and stderr, or CommandFailed with its
    stderr when it fails."""
    from ._cli import main

    out, err = io.BytesIO(), io.BytesIO()
    pipes = _Pipes()
    with _RUNNING:
        try:
            args = list(argv)
            for flag, text in texts:
                args += [flag, pipes.path(text)]
            code = main(args, out, err)
        finally:
            pipes.close()
    if code != 0:
        line = err.getvalue().decode("utf-8", "replace").strip()
        raise CommandFailed(line or f"datarim-snapshot {argv[0]}: exit {code}", code)
    return out.getvalue(), err.getvalue()


def output_of(argv: Sequence[str], texts: Sequence[tuple[str, str]] = ()) -> str:
    """run_cli's stdout as text (invalid UTF-8 shown as U+FFFD)."""
    return text_of(run_cli(argv, texts)[0])


def text_of(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def root_of_uri(uri: str) -> str | None:
    """The directory of a file:// root; None for any other scheme."""
    if not uri.startswith("file://"):
        return None
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(uri)
    if parts.netloc not in ("", "localhost"):
        return None
    return unquote(parts.path) or "/"


def choose_root(candidates: Sequence[str]) -> str:
    """Of the client's file:// roots: the first whose datarim/ is a knowledge
    base, else the first."""
    from ._roots import is_knowledge_base

    for path in candidates:
        if is_knowledge_base(os.path.join(path, "datarim")):
            return path
    return candidates[0]


def several_tasks_text(root: str, tasks: Sequence[str]) -> str:
    """The resume prompt when several tasks are active and none is named: the
    tasks to choose from, each with where its snapshot stands."""
    from ._snapshot_validator import read_snapshot

    lines = [
        f"{len(tasks)} tasks are active in datarim/activeContext.md; "
        "resume one by naming it (the resume prompt's task argument):",
    ]
    for task in tasks:
        try:
            snapshot = read_snapshot(root, task)
        except DatarimError as exc:
            lines.append(f"- {task}: no valid snapshot ({exc.message})")
            continue
        lines.append(
            f"- {task}: {snapshot.stage.decode()} at {snapshot.captured_at.decode()}, "
            f"recommended next {snapshot.recommended_next.decode()}"
        )
    return "\n".join(lines) + "\n"


def resume_text(root: str, task: str | None) -> str:
    """The resume prompt: resume-task's output (the §4 replay prompt, the same
    bytes as `replay`, else the legacy context), or the active tasks to choose
    from when several are and none is named."""
    if not task:
        from ._snapshot_resume import active_tasks

        active = active_tasks(root)
        if len(active) > 1:
            return several_tasks_text(root, active)
    return output_of(["resume", "--root", root] + (["--task", task] if task else []))


def continue_text(root: str, session: str | None) -> str:
    """`/dr-continue`: session-replay's output for the session, else the latest."""
    which = ["--session", session] if session else ["--latest"]
    return output_of(["session-replay", "--root", root] + which)


def list_text(root: str) -> str:
    from ._snapshot_resume import active_tasks

    table = output_of(["list", "--root", root])
    active = active_tasks(root)
    return table + f"active tasks (datarim/activeContext.md): {' '.join(active) or 'none'}\n"


def show_text(root: str, task: str) -> str:
    return output_of(["show", "--root", root, "--task", task])


def stamp_flag(captured_at: str | None) -> list[str]:
    return ["--captured-at", captured_at] if captured_at else []


def emit_text(
    root: str,
    task: str,
    stage: str,
    command: str,
    answer: str,
    captured_by: str,
    captured_at: str | None,
    dry_run: bool,
) -> str:
    argv = ["emit", "--root", root, "--task", task, "--stage", stage, "--command", command]
    argv += ["--captured-by", captured_by] + stamp_flag(captured_at)
    argv += ["--dry-run"] if dry_run else []
    # The write's own notes on stderr (a new knowledge base, redactions) are kept.
    out, err = run_cli(argv, [("--response-file", answer)])
    if dry_run:
        return "would write:\n" + text_of(out)
    return text_of(err) + f"wrote datarim/snapshots/{task}.snapshot.md\n"


def session_write_text(
    root: str,
    session: str,
    captured_by: str,
    recommended_next: str,
    next_action: str,
    active_tasks: str,
    body: str,
    captured_at: str | None,
    git_state: Sequence[str],
) -> str:
    argv = ["session-write", "--root", root, "--session", session, "--captured-by", captured_by]
    argv += stamp_flag(captured_at)
    argv += ["--recommended-next", recommended_next, "--next-action", next_action]
    for directory in git_state:
        argv += ["--git-state", directory]
    out, err = run_cli(argv, [("--active-tasks-file", active_tasks), ("--body-file", body)])
    return text_of(err + out)


def session_resource(root: str, session: str) -> str:
    """The session artefact, once session-check finds every block valid."""
    run_cli(["session-check", "--root", root, "--session", session])
    with open(os.path.join(root, "datarim", "sessions", f"{session}.session.md"), "rb") as handle:
        return text_of(handle.read())


def mcp_command(argv: Sequence[str], console: Console) -> int:
    """Serves the prompts, tools and resources on stdio until the client closes."""
    flags = parse_flags("--root=", "", argv)
    root = flags.get("root")
    if root is not None and not os.path.isdir(root):
        raise UsageError("--root is not a directory")
    try:
        server = build_server(root)
    except ImportError:
        raise DatarimError(EXTRA_MISSING, code=NO_SDK) from None
    server.run("stdio")
    return 0


def build_server(fixed_root: str | None) -> Any:
    """The MCP server (ImportError without the SDK)."""
    import warnings

    import anyio
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError
    from mcp.server.mcpserver.prompts.base import Prompt
    from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
    from mcp.types import INVALID_PARAMS, CallToolResult, TextContent

    from ._texts import text_bytes

    # Roots are deprecated by the protocol's next revision, still what the
    # clients of today send.
    warnings.simplefilter("ignore", MCPDeprecationWarning)

    server = MCPServer(
        name="datarim",
        version=text_bytes("version.txt").decode().strip(),
        instructions=(
            "Stage snapshots and session handoffs of datarim tasks: where each task's "
            "work stopped and the command to resume it with."
        ),
        log_level="WARNING",
    )

    async def root_for(ctx: Any) -> str:
        if fixed_root is not None:
            return fixed_root
        session: Any = getattr(ctx, "session", None)
        capabilities = getattr(session, "client_capabilities", None)
        if getattr(capabilities, "roots", None) is not None:
            try:
                with anyio.fail_after(ROOTS_TIMEOUT):
                    listed = (await session.list_roots()).roots
            except Exception:  # no answer, or an error: as a client without roots
                listed = []
            found = [p for p in (root_of_uri(str(r.uri)) for r in listed) if p]
            if listed and not found:
                raise CommandFailed(f"{PROGRAM}: the client gives no file:// root", 2)
            if found:
                chosen = choose_root(found)
                if not os.path.isdir(chosen):
                    message = f"the client's root {chosen} is not a directory"
                    raise CommandFailed(f"{PROGRAM}: {shown_message(message)}", 2)
                return chosen
        found_root = discover_root().path
        if foreign_datarim(found_root):
            raise CommandFailed(f"{PROGRAM}: {FOREIGN_DATARIM}; start the server with --root", 2)
        return found_root

    async def call(work: Any, ctx: Any, *args: Any) -> str:
        root = await root_for(ctx)
        result: str = await anyio.to_thread.run_sync(lambda: work(root, *args))
        return result

    async def tool(work: Any, ctx: Any, *args: Any) -> Any:
        # A refusal is the tool's result, marked as an error: the command's own
        # line, with nothing put before it.
        try:
            return await call(work, ctx, *args)
        except CommandFailed as failed:
            refusal = TextContent(type="text", text=failed.line)
            return CallToolResult(content=[refusal], is_error=True)

    async def read(work: Any, ctx: Any, *args: Any) -> str:
        try:
            return await call(work, ctx, *args)
        except CommandFailed as failed:
            raise ResourceError(failed.line) from None

    async def prompt(work: Any, ctx: Any, *args: Any) -> str:
        try:
            return await call(work, ctx, *args)
        except CommandFailed as failed:
            raise MCPError(INVALID_PARAMS, failed.line) from None

    # Prompts: slash commands in the clients (/mcp__datarim__resume in Claude Code).
    async def resume(ctx: Any, task: str | None = None) -> str:
        """The task's replay prompt from its snapshot (the same text as `datarim-snapshot
        replay`), else its legacy context; without a task, the one active task's, or the
        active tasks to choose from."""
        return await prompt(resume_text, ctx, task)

    async def continue_session(ctx: Any, session: str | None = None) -> str:
        """/dr-continue: the session handoff's claims probed, then its replay prompt
        (SESSION-YYYYMMDD-HHMMSS; without one, the latest session)."""
        return await prompt(continue_text, ctx, session)

    for function, name in ((resume, "resume"), (continue_session, "continue-session")):
        server.add_prompt(Prompt.from_function(_with_context(function), name=name))

    # Tools: each one subcommand.
    async def list_snapshots(ctx: Any) -> object:
        """Every task's snapshot in datarim/snapshots (stage, captured_at, age, recommended
        next, valid or why not), then the active tasks."""
        return await tool(list_text, ctx)

    async def show_snapshot(task: str, ctx: Any) -> object:
        """One task's snapshot file (frontmatter and body), once it is valid."""
        return await tool(show_text, ctx, task)

    async def resume_task(ctx: Any, task: str | None = None) -> object:
        """What the resume prompt gives: the task's replay prompt, else its legacy context,
        else (no task named, several active) the active tasks to choose from."""
        return await tool(resume_text, ctx, task)

    # A tool's parameters are its MCP schema: spelled out here as in the function it
    # calls (natural twins of emit_stage_snapshot and session_write_text, issue 20).
    async def write_snapshot(
        task: str,
        stage: str,
        command: str,
        answer: str,
        ctx: Any,
        captured_by: str = "agent",
        captured_at: str | None = None,
        dry_run: bool = False,
    ) -> object:
        """A stage's final answer, ending in its CTA block (**Next step — <TASK>** and the
        numbered commands, one **recommended**), to datarim/snapshots/<task>.snapshot.md;
        secrets redacted. stage: plan, do, qa...; command: /dr-plan...; captured_at:
        YYYY-MM-DDTHH:MM:SSZ (default now); dry_run: check and show the recommended_next
        and options lines, write nothing."""
        args = (task, stage, command, answer, captured_by, captured_at, dry_run)
        return await tool(emit_text, ctx, *args)

    async def save_session(
        session: str,
        captured_by: str,
        recommended_next: str,
        next_action: str,
        active_tasks: str,
        body: str,
        ctx: Any,
        captured_at: str | None = None,
        git_state: list[str] | None = None,
    ) -> object:
        """Appends a handoff block to datarim/sessions/<session>.session.md (session:
        SESSION-YYYYMMDD-HHMMSS; active_tasks: lines `<TASK> | <status>`; body: the
        layers, `## Layer 1 — Git State` first; git_state: directories whose live git
        state Layer 1 records). Returns the resume block."""
        args = (session, captured_by, recommended_next, next_action, active_tasks, body)
        return await tool(session_write_text, ctx, *args, captured_at, git_state or [])

    async def resume_session(ctx: Any, session: str | None = None) -> object:
        """The continue-session prompt's text: the handoff's claims probed, then its
        replay prompt (without a session, the latest)."""
        return await tool(continue_text, ctx, session)

    tools: list[Any] = [
        list_snapshots, show_snapshot, resume_task, write_snapshot, save_session, resume_session
    ]  # fmt: skip
    for handler in tools:
        server.add_tool(_with_context(handler), structured_output=False)

    # Resources.
    async def snapshot(task: str, ctx: Any) -> str:
        """A task's stage snapshot, once valid."""
        return await read(show_text, ctx, task)

    async def session(id: str, ctx: Any) -> str:  # noqa: A002 (the URI template's name)
        """A session handoff artefact, once every block is valid."""
        return await read(session_resource, ctx, id)

    server.resource("datarim://snapshots/{task}", mime_type="text/markdown")(
        _with_context(snapshot)
    )
    server.resource("datarim://sessions/{id}", mime_type="text/markdown")(_with_context(session))
    return server


def _with_context(function: Any) -> Any:
    """function with its ctx parameter annotated as the SDK's Context, which the
    SDK fills in and leaves out of the schema. The SDK reads the annotations,
    strings here (`from __future__ import annotations`), in this module: those of
    a handler name builtins only (typing is not loaded, so Any is not)."""
    from mcp.server.mcpserver import Context

    function.__annotations__ = dict(function.__annotations__, ctx=Context)
    # The docstring is the description a client shows: one line, no indentation.
    function.__doc__ = " ".join((function.__doc__ or "").split())
    return function
