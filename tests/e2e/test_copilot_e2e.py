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
(e) without the OpenTelemetry file the stage turn writes nothing and says why.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from e2ekit import NODE_BIN, REPO, STAGE_ANSWER, TASK, Agent, Run, Sandbox, resume_text
from test_hooks_e2e import OTHER_ANSWER, assert_stage_snapshot

IMPLS = ("bash", "python")


class Copilot(Agent):
    """GitHub Copilot CLI 1.0.102: `copilot -p`, its provider the fake model
    (COPILOT_PROVIDER_*), offline, no GitHub sign-in."""

    name = "copilot"
    stage_prompt = f"/dr-plan {TASK}"

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
    assert sorted(settings["hooks"]) == ["SessionStart", "Stop", "UserPromptSubmit"]
    return agent


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
