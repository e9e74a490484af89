"""The MCP server in a real CLI (docs/mcp.md, docs/e2e.md): Claude Code, with
`datarim-snapshot mcp` registered by the README's own line (`claude mcp add
datarim -- datarim-snapshot mcp`), lists our tools to the model, and when the
fake model calls one, runs it and hands its result back in the next request.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

from e2ekit import (
    NODE_BIN,
    PYTHON_BIN,
    REPO,
    STAGE_ANSWER,
    TASK,
    Claude,
    Run,
    Sandbox,
    knowledge_base,
    resume_text,
)
from fake_model_api import Request

STAMP = "2026-05-21T13:45:00Z"
TOOLS = [
    "list_snapshots", "resume_session", "resume_task", "save_session", "show_snapshot",
    "write_snapshot",
]  # fmt: skip
# Claude Code 2.1.328 defers MCP tools behind its ToolSearch tool (the model
# sees their names only) and may send the first request before the server has
# answered: with these the tools are in the request, as a model calls them.
MCP_NOW = {"ENABLE_TOOL_SEARCH": "false", "CLAUDE_CODE_MCP_STARTUP_WAIT_MS": "30000"}


def tool_results(request: Request) -> list[tuple[str, bool]]:
    """(text, is_error) of every tool_result block of the request's last message."""
    body: Any = request.body
    last = body["messages"][-1] if isinstance(body, dict) and body.get("messages") else {}
    found = []
    for block in last.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            content = block.get("content")
            parts = content if isinstance(content, list) else [{"text": content}]
            text = "".join(str(part.get("text", "")) for part in parts)
            found.append((text, bool(block.get("is_error"))))
    return found


class McpClaude(Claude):
    def env(self) -> dict[str, str]:
        # The console script on PATH, as `pip install 'datarim-snapshot[mcp]'` leaves it.
        path = f"{PYTHON_BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}"
        return {**self.cli_env(), **MCP_NOW, "PATH": path}

    def call(self, tool: str, arguments: dict[str, Any]) -> Run:
        """One turn in which the model calls our tool, then answers "Done."."""
        self.box.api.reply = "Done."
        self.box.api.tool_call = (tool, arguments)
        argv = [str(NODE_BIN / "claude"), "-p", f"use {tool}"]
        run = self.box.run([*argv, "--allowedTools", f"mcp__datarim__{tool}"], self.env())
        assert run.stdout.strip() == "Done.", str(run)
        assert len(run.requests) == 2, str(run)  # the call, then the answer with its result
        offered = [t.get("name") for t in run.requests[0].body.get("tools", [])]
        assert [n for n in offered if n.startswith("mcp__datarim__")] == [
            f"mcp__datarim__{name}" for name in TOOLS
        ], offered
        return run


def test_claude_code_lists_and_calls_our_tools(sandbox: Sandbox) -> None:
    agent = McpClaude(sandbox)
    added = sandbox.run(
        [str(NODE_BIN / "claude"), "mcp", "add", "datarim", "--", "datarim-snapshot", "mcp"],
        agent.env(),
    )
    config = json.loads((sandbox.home / ".claude.json").read_text())
    server = config["projects"][str(sandbox.ws)]["mcpServers"]["datarim"]
    assert (server["command"], server["args"]) == ("datarim-snapshot", ["mcp"]), str(added)

    # write_snapshot: the snapshot emit-stage-snapshot writes from the same answer.
    run = agent.call(
        "write_snapshot",
        {"task": TASK, "stage": "plan", "command": "/dr-plan", "answer": STAGE_ANSWER,
         "captured_at": STAMP},
    )  # fmt: skip
    assert tool_results(run.requests[1]) == [
        (f"wrote datarim/snapshots/{TASK}.snapshot.md\n", False)
    ]
    reference = sandbox.root / "reference"
    knowledge_base(reference)
    answer = sandbox.root / "answer.md"
    answer.write_text(STAGE_ANSWER)
    subprocess.run(
        [str(REPO / "dev-tools" / "emit-stage-snapshot.sh"), "--root", str(reference),
         "--task", TASK, "--stage", "plan", "--command", "/dr-plan",
         "--response-file", str(answer), "--captured-at", STAMP],
        check=True, timeout=60,
    )  # fmt: skip
    path = f"datarim/snapshots/{TASK}.snapshot.md"
    assert sandbox.snapshot.read_bytes() == (reference / path).read_bytes()

    # resume_task: the replay prompt, resume-task's text, in the model's next request.
    run = agent.call("resume_task", {})
    [(text, is_error)] = tool_results(run.requests[1])
    assert not is_error and text.strip() == resume_text(sandbox.ws)

    # A task ID that climbs out of the root: the CLI's one-line refusal, as an error.
    run = agent.call("show_snapshot", {"task": "../../etc/passwd"})
    assert tool_results(run.requests[1]) == [
        (
            "snapshot-show: invalid --task \"../../etc/passwd\": holds '.'; a task ID holds only"
            " letters, digits and dashes",
            True,
        )
    ]
    sandbox.assert_offline()
