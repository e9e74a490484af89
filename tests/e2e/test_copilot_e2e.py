"""The hooks in the real GitHub Copilot CLI (docs/e2e.md, docs/agent-runtimes.md),
with the bash hooks and with the Python port's, installed by
`install-hooks --runtime copilot` into a fresh HOME's ~/.copilot/settings.json,
every turn answered by the fake model API (OpenAI chat completions).

Copilot's Stop payload carries no answer, so the Stop hook reads the turn's
chat span from Copilot's OpenTelemetry file, which the operator opts into
(COPILOT_OTEL_FILE_EXPORTER_PATH at copilot-otel.jsonl in the hooks' state
directory, with message content): the tests set exactly what the docs say.

(a) a stage turn writes the task's snapshot, byte for byte emit's;
(b) a plain turn, in a new session and in the stage's own, leaves it alone;
(c) a resumed session (--continue, source "resume") hands the model the replay;
(d) a new session right after the stage turn (what /clear starts: source
    "new") hands the model the replay too;
(e) without the OpenTelemetry file the stage turn writes nothing and says why;
(f) after `/compact` (PreCompact, and no SessionStart after it) the next
    prompt of the same session hands the model the replay: Copilot driven
    through its Agent Client Protocol server (`copilot --acp`), one session
    taking prompts and slash commands as its interactive mode does; and
    `copilot --continue -p /compact`, then `--continue -p`: the replay once.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from e2ekit import (
    NODE_BIN,
    OTHER_ANSWER,
    REPO,
    STAGE_ANSWER,
    TASK,
    Agent,
    JsonLines,
    Run,
    Sandbox,
    resume_text,
)
from fake_model_api import Request
from test_hooks_e2e import assert_stage_snapshot

IMPLS = ("bash", "python")


class Copilot(Agent):
    """GitHub Copilot CLI 1.0.102: `copilot -p`, its provider the fake model
    (COPILOT_PROVIDER_*), offline, no GitHub sign-in."""

    name = "copilot"
    stage_prompt = f"/dr-plan {TASK}"
    hooks_added = (
        "install-hooks: added the SessionStart, UserPromptSubmit, Stop and PreCompact hooks"
    )

    def __init__(self, box: Sandbox, otel: bool = True) -> None:
        super().__init__(box)
        self.otel = otel
        # The state directory as the docs have the operator make it (mode 700):
        # the OpenTelemetry file holds whole prompts.
        self.state.mkdir(parents=True, mode=0o700)

    @property
    def state(self) -> Path:
        return self.box.home / ".local" / "state" / "datarim"

    @property
    def otel_file(self) -> Path:
        return self.state / "copilot-otel.jsonl"

    def cli_env(self) -> dict[str, str]:
        env = {
            "COPILOT_OFFLINE": "true",
            "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_PROVIDER_BASE_URL": f"{self.box.api.url}/v1",
            "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_API_KEY": "sk-fake",
            "COPILOT_MODEL": "gpt-4.1",
        }
        if self.otel:
            env["COPILOT_OTEL_FILE_EXPORTER_PATH"] = str(self.otel_file)
            env["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true"
        return env

    def copilot(self, *args: str) -> Run:
        return self.box.run([str(NODE_BIN / "copilot"), *args], self.cli_env())

    def turn(self, prompt: str, reply: str) -> Run:
        self.box.api.reply = reply
        return self.copilot("-p", prompt)

    def resume(self, prompt: str, reply: str) -> Run:
        self.box.api.reply = reply
        return self.copilot("--continue", "-p", prompt)

    def hook_context(self, request: Any) -> list[str]:
        # 1.0.102: a SessionStart hook's additionalContext is a user message of
        # its own, before the prompt.
        messages = request.body.get("messages", []) if isinstance(request.body, dict) else []
        return [
            message["content"]
            for message in messages
            if isinstance(message, dict)
            and message.get("role") == "user"
            and isinstance(message.get("content"), str)
        ]


def copilot_with_hooks(sandbox: Sandbox, impl: str, otel: bool = True) -> Copilot:
    agent = Copilot(sandbox, otel)
    agent.install_hooks(impl)
    settings = json.loads((sandbox.home / ".copilot" / "settings.json").read_text())
    assert sorted(settings["hooks"]) == ["PreCompact", "SessionStart", "Stop", "UserPromptSubmit"]
    return agent


class AcpSession(JsonLines):
    """`copilot --acp`: Copilot's Agent Client Protocol server on stdin and
    stdout (JSON-RPC), one session whose prompts run as the interactive CLI's
    do (slash commands included), each answered once its turn is over."""

    def __init__(self, agent: Copilot) -> None:
        super().__init__(agent.box, [str(NODE_BIN / "copilot"), "--acp"], agent.cli_env())
        self.ids = 0
        self.session = ""

    def __enter__(self) -> AcpSession:
        super().__enter__()
        self.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        new = self.call("session/new", {"cwd": str(self.box.ws), "mcpServers": []})
        self.session = new["sessionId"]
        return self

    def call(self, method: str, params: dict[str, Any]) -> Any:
        """The result of one request; what Copilot sends meanwhile is passed
        over (its session updates) or refused (a permission request: the turns
        use no tool)."""
        self.ids += 1
        self.send({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        for message in self.messages(method):
            if "method" in message and "id" in message:
                refused = {"outcome": {"outcome": "cancelled"}}
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": refused})
            elif message.get("id") == self.ids:
                assert "error" not in message, message
                return message["result"]
        raise AssertionError("unreachable: messages() ends only by failing")

    def prompt(self, text: str, reply: str) -> list[Request]:
        """One prompt of the session; the model requests of its turn."""
        self.box.api.reply = reply
        before = len(self.box.api.model_requests())
        prompt = [{"type": "text", "text": text}]
        result = self.call("session/prompt", {"sessionId": self.session, "prompt": prompt})
        assert result.get("stopReason") == "end_turn", result
        return self.box.api.model_requests()[before:]


def answered(run: Run, reply: str) -> None:
    # Copilot prints the answer, then a summary (changes, duration, tokens).
    assert run.stdout.startswith(reply.strip()), str(run)


def stage_turn(agent: Copilot) -> Run:
    run = agent.turn(agent.stage_prompt, STAGE_ANSWER)
    answered(run, STAGE_ANSWER)
    assert run.requests, "Copilot never asked the model"
    assert any(agent.stage_prompt in text for text in agent.context_of(run.requests[-1]))
    return run


@pytest.mark.parametrize("impl", IMPLS)
def test_stage_turn_writes_the_snapshot(sandbox: Sandbox, impl: str) -> None:
    agent = copilot_with_hooks(sandbox, impl)
    assert not sandbox.snapshot.exists()
    stage_turn(agent)
    assert_stage_snapshot(sandbox, agent)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_plain_turn_leaves_the_snapshot_untouched(sandbox: Sandbox, impl: str) -> None:
    agent = copilot_with_hooks(sandbox, impl)
    stage_turn(agent)
    before = assert_stage_snapshot(sandbox, agent)
    mtime = sandbox.snapshot.stat().st_mtime_ns
    answered(agent.turn("thanks, what is left to do?", OTHER_ANSWER), OTHER_ANSWER)
    answered(agent.resume("and after that?", OTHER_ANSWER), OTHER_ANSWER)
    assert sandbox.snapshot.read_bytes() == before
    assert sandbox.snapshot.stat().st_mtime_ns == mtime
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_resume_hands_the_model_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    agent = copilot_with_hooks(sandbox, impl)
    first = stage_turn(agent)
    assert_stage_snapshot(sandbox, agent)
    replay = resume_text(sandbox.ws)
    assert not any(replay in text for text in agent.context_of(first.requests[-1]))
    run = agent.resume("carry on", "Carrying on.")
    answered(run, "Carrying on.")
    assert any(replay in text for text in agent.hook_context(run.requests[-1])), (
        "the resumed session's model request lacks the replay prompt:\n" + replay
    )
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_new_session_after_a_stage_turn_hands_the_model_the_replay(
    sandbox: Sandbox, impl: str
) -> None:
    """/clear starts a new session, source "new", as a fresh start does: right
    after a stage turn of the workspace it resumes (docs/agent-runtimes.md)."""
    agent = copilot_with_hooks(sandbox, impl)
    stage_turn(agent)
    assert_stage_snapshot(sandbox, agent)
    replay = resume_text(sandbox.ws)
    run = agent.turn("go on", "Going on.")
    answered(run, "Going on.")
    assert any(replay in text for text in agent.hook_context(run.requests[-1])), (
        "the new session's model request lacks the replay prompt:\n" + replay
    )
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_without_the_otel_file_the_stage_turn_says_why(sandbox: Sandbox, impl: str) -> None:
    agent = copilot_with_hooks(sandbox, impl, otel=False)
    stage_turn(agent)
    assert not sandbox.snapshot.exists()
    log = sandbox.hooks_log.read_text()
    # Without its exporter Copilot sends no traceparent either.
    assert log.endswith(
        "stop-hook /dr-plan: no last_assistant_message, and no traceparent (Copilot's"
        " OpenTelemetry file is off: docs/agent-runtimes.md); nothing written\n"
    ), log
    assert log.count("\n") == 1, log
    sandbox.assert_offline()


# The summary /compact gets from the fake model: it holds no replay.
SUMMARY = "The operator planned TUNE-0032."


@pytest.mark.parametrize("impl", IMPLS)
def test_compact_hands_the_next_prompt_the_replay(sandbox: Sandbox, impl: str) -> None:
    """Copilot follows a compaction with no SessionStart: PreCompact keeps the
    resume, and the next prompt's hook hands it over (a <system_reminder> of
    that prompt's user message)."""
    agent = copilot_with_hooks(sandbox, impl)
    stage_turn(agent)
    assert_stage_snapshot(sandbox, agent)
    replay = resume_text(sandbox.ws)
    with AcpSession(agent) as session:
        session.prompt("what is next?", "Next is the design.")
        compaction = session.prompt("/compact", SUMMARY)
        assert any("summary of the conversation" in t for t in agent.context_of(compaction[0]))
        after = session.prompt("carry on", "Carrying on.")
    # The first request after the compaction: the summary, then the prompt
    # with the hook's context.
    prompt = agent.hook_context(after[0])[-1]
    assert prompt.endswith("</system_reminder>") and "carry on" in prompt, prompt
    assert replay in prompt, "the prompt after /compact lacks the replay prompt:\n" + replay
    assert not any(replay in text for text in agent.hook_context(after[0])[:-1])
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_compact_then_continue_hands_the_replay_once(sandbox: Sandbox, impl: str) -> None:
    """`copilot --continue -p /compact` keeps the resume; the next `--continue`
    run's SessionStart (resume) hands the replay over and drops it, so that
    its prompt does not carry it a second time."""
    agent = copilot_with_hooks(sandbox, impl)
    stage_turn(agent)
    replay = resume_text(sandbox.ws)
    compacted = agent.resume("/compact", SUMMARY)
    assert compacted.stdout.startswith("Compacted conversation history"), str(compacted)
    run = agent.resume("carry on", "Carrying on.")
    answered(run, "Carrying on.")
    carried = [text for text in agent.hook_context(run.requests[-1]) if replay in text]
    assert len(carried) == 1, f"the replay {len(carried)} times, not once"
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


def test_copilot_is_the_pinned_version(sandbox: Sandbox) -> None:
    pinned = json.loads((REPO / "tests" / "e2e" / "package.json").read_text())["dependencies"]
    done = subprocess.run(
        [str(NODE_BIN / "copilot"), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        env=sandbox.env(),
        cwd=sandbox.ws,
    )
    assert done.stdout.splitlines()[0] == f"GitHub Copilot CLI {pinned['@github/copilot']}."
