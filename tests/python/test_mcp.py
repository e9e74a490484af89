"""`datarim-snapshot mcp`, driven by the MCP Python SDK's own client over stdio.

Every prompt, tool and resource gives what the CLI subcommand it runs gives
(the same bytes, the same one-line refusal), hostile arguments included: task
and session IDs that climb out of the root, huge bodies, a missing root. The
root comes from --root or from the client's roots. Skipped when the mcp extra
is not installed, except the test of the message that says so.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from datarim_snapshot import _cli as cli

REPO = Path(__file__).resolve().parents[2]
STAMP = "2026-05-21T13:45:00Z"
LATER = "2026-05-21T15:10:00Z"
SESSION = "SESSION-20260521-134500"
ANSWER = """Plan ready: 4 steps, 2 risks.

**Next step — TUNE-0032**

1. `/dr-design TUNE-0032` — **recommended** — the form needs a design pass
2. `/dr-do TUNE-0032` — straight to the code
"""
TASKS = "TUNE-0032 | in_progress\n"
BODY = """## Layer 1 — Git State

## Layer 2 — Active Tasks
- TUNE-0032 — plan done, design next

## Layer 5 — Failed Approaches
- none yet
"""
EXTRA_MISSING = (
    "datarim-mcp: the MCP Python SDK is not installed (Python 3.10 or later): "
    "pip install 'datarim-snapshot[mcp]'\n"
)


def needs_sdk() -> Any:
    return pytest.importorskip(
        "mcp", reason="the mcp extra is not installed: pip install './python[mcp]'"
    )


def run(args: list[str], stdin: bytes | None = None) -> tuple[int, bytes, bytes]:
    """The CLI itself in this process, for the bytes to compare against."""
    out, err = io.BytesIO(), io.BytesIO()
    code = cli.main(args, out, err)
    return code, out.getvalue(), err.getvalue()


def workspace(tmp_path: Path, active: tuple[str, ...] = ("TUNE-0032",)) -> Path:
    root = tmp_path / "ws"
    (root / "datarim").mkdir(parents=True)
    lines = "".join(f"- **{task}** — a task\n" for task in active)
    (root / "datarim" / "activeContext.md").write_text(f"## Active Tasks\n\n{lines}")
    return root


def files(tmp_path: Path) -> list[str]:
    return sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))


@asynccontextmanager
async def client(root_args: list[str], roots: list[str] | None = None, cwd: Path | None = None):  # type: ignore[no-untyped-def]
    """A ClientSession over stdio to `python -m datarim_snapshot mcp <root_args>`,
    announcing roots (file URIs or others) when given."""
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from mcp.types import ListRootsResult, Root

    async def list_roots(_context: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=uri) for uri in roots or []])

    env = dict(os.environ, DATARIM_NOW="2026-05-21T14:45:00Z")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "datarim_snapshot", "mcp", *root_args],
        env=env,
        cwd=str(cwd) if cwd else None,
    )
    async with stdio_client(params) as (read, write):
        callback = list_roots if roots is not None else None
        async with ClientSession(read, write, list_roots_callback=callback) as session:
            await session.initialize()
            yield session


def text(result: Any) -> str:
    assert len(result.content) == 1
    value: str = result.content[0].text
    return value


def prompt_text(result: Any) -> str:
    assert len(result.messages) == 1 and result.messages[0].role == "user"
    value: str = result.messages[0].content.text
    return value


def go(coroutine_function: Any) -> None:
    import anyio

    anyio.run(coroutine_function)


def test_without_the_sdk_one_line_and_exit_1(tmp_path: Path) -> None:
    # The SDK made unimportable, as on a machine without the extra.
    code = (
        "import sys; sys.modules['mcp'] = None; from datarim_snapshot._cli import main; "
        "sys.exit(main(['mcp', '--root', sys.argv[1]]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, stdin=subprocess.DEVNULL
    )
    assert (done.returncode, done.stdout, done.stderr.decode()) == (1, b"", EXTRA_MISSING)
    assert list(tmp_path.iterdir()) == []


def test_a_missing_root_is_a_usage_error_before_anything_is_served(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "datarim_snapshot", "mcp", "--root", str(tmp_path / "none")],
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == b"datarim-mcp: --root is not a directory\n"
    assert run(["mcp", "--bogus"])[0::2] == (2, b"datarim-mcp: unknown flag: --bogus\n")
    code, out, _ = run(["mcp", "--help"])
    assert code == 0 and out.startswith(b"Usage: datarim-snapshot mcp [--root <dir>]\n")


def test_lists_every_prompt_tool_and_resource(tmp_path: Path) -> None:
    needs_sdk()
    root = workspace(tmp_path)

    async def check() -> None:
        async with client(["--root", str(root)]) as session:
            prompts = (await session.list_prompts()).prompts
            assert [(p.name, [(a.name, a.required) for a in p.arguments]) for p in prompts] == [
                ("resume", [("task", False)]),
                ("continue-session", [("session", False)]),
            ]
            listed = (await session.list_tools()).tools
            described = [*listed, *prompts]
            assert all(d.description and "\n" not in d.description for d in described)
            tools = {t.name: t.input_schema for t in listed}
            assert sorted(tools) == sorted(
                ["list_snapshots", "show_snapshot", "resume_task", "write_snapshot",
                 "save_session", "resume_session"]
            )  # fmt: skip
            assert "ctx" not in str(tools)
            assert sorted(tools["write_snapshot"]["required"]) == [
                "answer", "command", "stage", "task",
            ]  # fmt: skip
            templates = (await session.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == [
                "datarim://snapshots/{task}",
                "datarim://sessions/{id}",
            ]

    go(check)


SNAPSHOT = "datarim/snapshots/TUNE-0032.snapshot.md"
EMIT = ["emit", "--task", "TUNE-0032", "--stage", "plan", "--command", "/dr-plan"]


def workspaces(tmp_path: Path, answer: str = ANSWER, body: str = BODY) -> tuple[Path, Path]:
    """A workspace for the server and its twin for the CLI, and beside them the
    input files of the CLI's writes: answer.md, tasks.txt and body.md."""
    (tmp_path / "answer.md").write_text(answer)
    (tmp_path / "tasks.txt").write_text(TASKS)
    (tmp_path / "body.md").write_text(body)
    return workspace(tmp_path), workspace(tmp_path / "twin")


async def written_as_emit_writes(session: Any, tmp_path: Path, answer: str) -> Any:
    """write_snapshot of answer in the server's workspace and emit of answer.md in
    its twin (workspaces(tmp_path)): the same snapshot bytes. Returns the tool's result."""
    result = await session.call_tool(
        "write_snapshot",
        {"task": "TUNE-0032", "stage": "plan", "command": "/dr-plan",
         "answer": answer, "captured_at": STAMP},
    )  # fmt: skip
    assert not result.is_error
    twin = tmp_path / "twin" / "ws"
    emit = [*EMIT, "--root", str(twin), "--captured-at", STAMP]
    assert run([*emit, "--response-file", str(tmp_path / "answer.md")])[0] == 0
    assert (tmp_path / "ws" / SNAPSHOT).read_bytes() == (twin / SNAPSHOT).read_bytes()
    return result


def test_write_then_read_back_as_the_cli_does(tmp_path: Path) -> None:
    needs_sdk()
    root, twin = workspaces(tmp_path)

    async def check() -> None:
        async with client(["--root", str(root)]) as session:
            # write_snapshot: the file emit writes, byte for byte.
            written = await written_as_emit_writes(session, tmp_path, ANSWER)
            assert text(written) == f"wrote {SNAPSHOT}\n"
            preview = await session.call_tool(
                "write_snapshot",
                {"task": "TUNE-0032", "stage": "plan", "command": "/dr-plan",
                 "answer": ANSWER, "dry_run": True},
            )  # fmt: skip
            emit = [*EMIT, "--root", str(twin), "--captured-at", STAMP, "--dry-run"]
            code, out, _ = run([*emit, "--response-file", str(tmp_path / "answer.md")])
            assert text(preview) == "would write:\n" + out.decode()

            # show_snapshot and the snapshot resource: show's bytes.
            show = run(["show", "--root", str(root), "--task", "TUNE-0032"])[1].decode()
            shown = await session.call_tool("show_snapshot", {"task": "TUNE-0032"})
            assert text(shown) == show == (root / SNAPSHOT).read_text()
            resource = await session.read_resource("datarim://snapshots/TUNE-0032")
            assert resource.contents[0].text == show
            assert resource.contents[0].mime_type == "text/markdown"

            # list_snapshots: list's table, then the active tasks.
            os.environ["DATARIM_NOW"] = "2026-05-21T14:45:00Z"
            try:
                table = run(["list", "--root", str(root)])[1].decode()
            finally:
                del os.environ["DATARIM_NOW"]
            listed = await session.call_tool("list_snapshots", {})
            assert text(listed) == table + "active tasks (datarim/activeContext.md): TUNE-0032\n"
            assert "TUNE-0032  plan" in table and "1h" in table

            # resume: the prompt, and the tool, give replay's bytes exactly.
            replay = run(["replay", "--root", str(root), "--task", "TUNE-0032"])[1]
            for arguments in ({"task": "TUNE-0032"}, {}):
                got = await session.get_prompt("resume", arguments)
                assert prompt_text(got).encode() == replay
                tool = await session.call_tool("resume_task", arguments)
                assert text(tool).encode() == replay

            # save_session: the resume block session-write prints; the artefact it writes.
            saved = await session.call_tool(
                "save_session",
                {"session": SESSION, "captured_by": "agent",
                 "recommended_next": "/dr-design TUNE-0032", "next_action": "design the form",
                 "active_tasks": TASKS, "body": BODY, "captured_at": STAMP},
            )  # fmt: skip
            write = ["session-write", "--root", str(twin), "--session", SESSION]
            write += ["--captured-by", "agent", "--recommended-next", "/dr-design TUNE-0032"]
            write += ["--next-action", "design the form", "--captured-at", STAMP]
            write += ["--active-tasks-file", str(tmp_path / "tasks.txt")]
            code, out, err = run([*write, "--body-file", str(tmp_path / "body.md")])
            assert code == 0 and not saved.is_error
            assert text(saved) == (err + out).decode()
            assert text(saved).startswith("Session saved → datarim/sessions/")
            artefact = f"datarim/sessions/{SESSION}.session.md"
            assert (root / artefact).read_bytes() == (twin / artefact).read_bytes()

            # continue-session / resume_session: session-replay's bytes; the resource: the file.
            replayed = run(["session-replay", "--root", str(root), "--session", SESSION])[1]
            assert replayed == run(["session-replay", "--root", str(root), "--latest"])[1]
            for arguments in ({"session": SESSION}, {}):
                got = await session.get_prompt("continue-session", arguments)
                assert prompt_text(got).encode() == replayed
                tool = await session.call_tool("resume_session", arguments)
                assert text(tool).encode() == replayed
            resource = await session.read_resource(f"datarim://sessions/{SESSION}")
            assert resource.contents[0].text == (root / artefact).read_text()

    go(check)


def test_redaction_and_the_new_knowledge_base_note_reach_the_caller(tmp_path: Path) -> None:
    needs_sdk()
    root = tmp_path / "fresh"
    root.mkdir()
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"

    async def check() -> None:
        async with client(["--root", str(root)]) as session:
            result = await session.call_tool(
                "write_snapshot",
                {"task": "TUNE-0032", "stage": "plan", "command": "/dr-plan",
                 "answer": f"token {secret}\n\n" + ANSWER.split("\n\n", 1)[1]},
            )  # fmt: skip
            assert not result.is_error
            lines = text(result).splitlines()
            assert lines[0].startswith("emit-stage-snapshot: created a new knowledge base in ")
            assert "redacted" in lines[1] and lines[2].startswith("wrote ")
            saved = (root / "datarim" / "snapshots" / "TUNE-0032.snapshot.md").read_text()
            assert secret not in saved and "[REDACTED]" in saved

    go(check)


def test_several_active_tasks_the_resume_prompt_lists_them(tmp_path: Path) -> None:
    needs_sdk()
    root = workspace(tmp_path, ("TUNE-0032", "TUNE-0033"))
    (tmp_path / "answer.md").write_text(ANSWER)
    emit = ["emit", "--root", str(root), "--task", "TUNE-0032", "--stage", "plan"]
    emit += ["--command", "/dr-plan", "--captured-at", STAMP]
    assert run([*emit, "--response-file", str(tmp_path / "answer.md")])[0] == 0

    async def check() -> None:
        async with client(["--root", str(root)]) as session:
            got = prompt_text(await session.get_prompt("resume", {}))
            assert got == (
                "2 tasks are active in datarim/activeContext.md; resume one by naming it "
                "(the resume prompt's task argument):\n"
                f"- TUNE-0032: plan at {STAMP}, recommended next /dr-design\n"
                "- TUNE-0033: no valid snapshot (datarim/snapshots/TUNE-0033.snapshot.md "
                "is missing)\n"
            )
            assert text(await session.call_tool("resume_task", {})) == got
            chosen = prompt_text(await session.get_prompt("resume", {"task": "TUNE-0032"}))
            assert chosen.encode() == run(["replay", "--root", str(root), "--task", "TUNE-0032"])[1]

    go(check)


HOSTILE_TASKS = [
    "../../etc/passwd", "TUNE-0032/../../x", "--root", "/etc", "TUNE 1", "é", "x" * 5000,
]  # fmt: skip
HOSTILE_SESSIONS = [
    "../SESSION-20260521-134500", "SESSION-2026", "--latest", "SESSION-99999999-999999",
]  # fmt: skip


def test_hostile_ids_get_the_cli_refusal_and_touch_nothing(tmp_path: Path) -> None:
    needs_sdk()
    root = workspace(tmp_path)
    (tmp_path / "answer.md").write_text(ANSWER)
    (tmp_path / "tasks.txt").write_text(TASKS)
    (tmp_path / "body.md").write_text(BODY)
    before = files(tmp_path)

    async def refused(session: Any, name: str, arguments: dict[str, Any], argv: list[str]) -> None:
        """The tool name refuses arguments as the CLI's argv (its --root added) does."""
        result = await session.call_tool(name, arguments)
        code, out, err = run([argv[0], "--root", str(root), *argv[1:]])
        assert code != 0 and out == b""
        assert result.is_error and text(result) == err.decode().strip(), (name, arguments)
        assert len(text(result).splitlines()) == 1

    async def check() -> None:
        async with client(["--root", str(root)]) as session:
            for task in HOSTILE_TASKS:
                await refused(session, "show_snapshot", {"task": task}, ["show", "--task", task])
                await refused(
                    session, "write_snapshot",
                    {"task": task, "stage": "plan", "command": "/dr-plan", "answer": ANSWER},
                    ["emit", "--task", task, "--stage", "plan", "--command", "/dr-plan",
                     "--captured-by", "agent", "--response-file", str(tmp_path / "answer.md")],
                )  # fmt: skip
                with pytest.raises(Exception) as raised:
                    await session.get_prompt("resume", {"task": task})
                err = run(["resume", "--root", str(root), "--task", task])[2].decode().strip()
                assert str(getattr(raised.value, "message", raised.value)) == err
            for sid in HOSTILE_SESSIONS:
                replay = ["session-replay", "--session", sid]
                await refused(session, "resume_session", {"session": sid}, replay)
                await refused(
                    session, "save_session",
                    {"session": sid, "captured_by": "agent", "recommended_next": "/dr-do",
                     "next_action": "go", "active_tasks": TASKS, "body": BODY},
                    ["session-write", "--session", sid, "--captured-by", "agent",
                     "--recommended-next", "/dr-do", "--next-action", "go",
                     "--active-tasks-file", str(tmp_path / "tasks.txt"),
                     "--body-file", str(tmp_path / "body.md")],
                )  # fmt: skip
            from mcp.shared.exceptions import MCPError

            for uri in [
                "datarim://snapshots/..%2F..%2Fetc%2Fpasswd",
                "datarim://snapshots/%2Fetc%2Fpasswd",
                "datarim://sessions/..%2Fx",
                "datarim://snapshots/TUNE-9999",
                "datarim://sessions/SESSION-20260521-000000",
                "datarim://sessions/nonsense",
            ]:
                with pytest.raises(MCPError):
                    await session.read_resource(uri)
            with pytest.raises(MCPError) as missing:
                await session.read_resource("datarim://sessions/SESSION-20260521-000000")
            check = ["session-check", "--root", str(root), "--session", "SESSION-20260521-000000"]
            assert missing.value.message == run(check)[2].decode().strip()

    go(check)
    assert files(tmp_path) == before


def test_huge_bodies_go_as_the_cli_takes_them(tmp_path: Path) -> None:
    needs_sdk()
    huge = "x" * 80 + "\n"
    answer = huge * 40000 + "\n" + ANSWER.split("\n\n", 1)[1]  # 3.2 MB, the CTA block last
    body = BODY + huge * 20000  # 1.6 MB: over session-write's 1 MiB
    root, _ = workspaces(tmp_path, answer, body)

    async def check() -> None:
        async with client(["--root", str(root)]) as session:
            await written_as_emit_writes(session, tmp_path, answer)
            assert b"truncated: true" in (root / SNAPSHOT).read_bytes()

            saved = await session.call_tool(
                "save_session",
                {"session": SESSION, "captured_by": "agent", "recommended_next": "/dr-do",
                 "next_action": "go", "active_tasks": TASKS, "body": body},
            )  # fmt: skip
            write = ["session-write", "--root", str(root), "--session", SESSION]
            write += ["--captured-by", "agent", "--recommended-next", "/dr-do"]
            write += ["--next-action", "go", "--active-tasks-file", str(tmp_path / "tasks.txt")]
            code, _, err = run([*write, "--body-file", str(tmp_path / "body.md")])
            assert code != 0 and saved.is_error and text(saved) == err.decode().strip()
            assert not (root / "datarim" / "sessions").exists()

    go(check)


def test_the_root_is_the_clients_workspace(tmp_path: Path) -> None:
    needs_sdk()
    root = workspace(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def check() -> None:
        # No --root: the client's file:// root, whatever the server's working directory.
        async with client([], roots=[root.as_uri()], cwd=elsewhere) as session:
            result = await session.call_tool(
                "write_snapshot",
                {"task": "TUNE-0032", "stage": "plan", "command": "/dr-plan", "answer": ANSWER},
            )  # fmt: skip
            assert not result.is_error, text(result)
            assert (root / "datarim" / "snapshots" / "TUNE-0032.snapshot.md").is_file()
            assert list(elsewhere.iterdir()) == []
        # A root that is gone: refused, nothing written.
        async with client([], roots=[(tmp_path / "gone").as_uri()], cwd=elsewhere) as session:
            result = await session.call_tool("list_snapshots", {})
            assert result.is_error
            gone = tmp_path / "gone"
            assert text(result) == f"datarim-mcp: the client's root {gone} is not a directory"
        # No roots from the client: the root the CLI finds from the working directory.
        async with client([], cwd=root / "datarim") as session:
            result = await session.call_tool("show_snapshot", {"task": "TUNE-0032"})
            assert text(result) == (root / "datarim/snapshots/TUNE-0032.snapshot.md").read_text()
        # --root wins over the client's roots.
        async with client(["--root", str(elsewhere)], roots=[root.as_uri()]) as session:
            result = await session.call_tool("list_snapshots", {})
            assert text(result) == "TASK  STAGE  CAPTURED_AT  AGE  RECOMMENDED_NEXT  STATUS\n" + (
                "active tasks (datarim/activeContext.md): none\n"
            )
        assert list(elsewhere.iterdir()) == []

    go(check)
