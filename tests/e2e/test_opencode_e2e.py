"""The hooks in the real opencode (docs/e2e.md, docs/agent-runtimes.md), with the
bash hooks and with the Python port's, run by the plugin `install-hooks
--runtime opencode` writes into a fresh HOME's ~/.config/opencode/plugin/,
every turn answered by the fake model API (OpenAI chat completions, through
opencode's bundled @ai-sdk/openai-compatible provider).

(a) a stage command (`opencode run --command dr-plan TUNE-0032`) writes the
    task's snapshot, byte for byte emit's;
(b) a plain turn, in a new session and in the stage's own, leaves it alone;
(c) `opencode run --continue` hands the model the replay in its system prompt;
(d) after a compaction (`opencode serve`, POST /session/:id/summarize, which
    fires session.compacted) the next turn's request carries the replay.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from typing import Any

import pytest
from e2ekit import (
    NODE_BIN,
    OTHER_ANSWER,
    REPO,
    STAGE_ANSWER,
    TASK,
    Agent,
    Run,
    Sandbox,
    resume_text,
)
from test_hooks_e2e import assert_stage_snapshot

IMPLS = ("bash", "python")

# What the datarim framework would install for /dr-plan: an opencode command.
OPENCODE_COMMAND = "Plan the task $ARGUMENTS and end with the CTA block.\n"

# opencode installs @opencode-ai/plugin into its config folder at start-up
# unless package.json and package-lock.json there already name it and
# node_modules exists (1.18.33); our plugin imports nothing from it.
CONFIG_PACKAGE = {"dependencies": {"@opencode-ai/plugin": "1.18.33"}}
CONFIG_LOCK = {"packages": {"": CONFIG_PACKAGE}}

OPENCODE_QUIET = {
    "OPENCODE_DISABLE_AUTOUPDATE": "true",
    "OPENCODE_DISABLE_MODELS_FETCH": "true",
    "OPENCODE_DISABLE_SHARE": "true",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "true",
}


class Opencode(Agent):
    """opencode 1.18.33: `opencode run`, its model the fake one."""

    name = "opencode"
    stage_prompt = f"/dr-plan {TASK}"

    def __init__(self, box: Sandbox) -> None:
        super().__init__(box)
        config = box.home / ".config" / "opencode"
        (config / "command").mkdir(parents=True)
        (config / "command" / "dr-plan.md").write_text(OPENCODE_COMMAND)
        (config / "node_modules").mkdir()
        (config / "package.json").write_text(json.dumps(CONFIG_PACKAGE))
        (config / "package-lock.json").write_text(json.dumps(CONFIG_LOCK))
        (config / "opencode.json").write_text(
            json.dumps(
                {
                    "provider": {
                        "fake": {
                            "npm": "@ai-sdk/openai-compatible",
                            "name": "fake model API",
                            "options": {"baseURL": f"{box.api.url}/v1", "apiKey": "sk-fake"},
                            "models": {"gpt-fake": {"name": "gpt-fake"}},
                        }
                    },
                    "model": "fake/gpt-fake",
                    "autoupdate": False,
                    "share": "disabled",
                }
            )
        )

    def cli_env(self) -> dict[str, str]:
        return dict(OPENCODE_QUIET)

    def opencode(self, *args: str) -> Run:
        return self.box.run([str(NODE_BIN / "opencode"), *args], self.cli_env())

    def turn(self, prompt: str, reply: str) -> Run:
        self.box.api.reply = reply
        if prompt.startswith("/"):
            command, _, arguments = prompt[1:].partition(" ")
            return self.opencode("run", "--command", command, arguments)
        return self.opencode("run", prompt)

    def resume(self, prompt: str, reply: str) -> Run:
        self.box.api.reply = reply
        return self.opencode("run", "--continue", prompt)

    def hook_context(self, request: Any) -> list[str]:
        # 1.18.33: experimental.chat.system.transform's strings are system messages.
        messages = request.body.get("messages", []) if isinstance(request.body, dict) else []
        return [
            message["content"]
            for message in messages
            if isinstance(message, dict)
            and message.get("role") == "system"
            and isinstance(message.get("content"), str)
        ]


def agent_request(run: Run) -> Any:
    """The turn's last request for the agent itself (title generation aside)."""
    for request in reversed(run.requests):
        if "You are a title generator" not in request.text():
            return request
    raise AssertionError("no agent request in the run")


def opencode_with_hooks(sandbox: Sandbox, impl: str) -> Opencode:
    agent = Opencode(sandbox)
    agent.install_hooks(impl)
    plugin = sandbox.home / ".config" / "opencode" / "plugin" / "datarim-snapshots.js"
    assert plugin.is_file()
    return agent


def answered(run: Run, reply: str) -> None:
    assert reply.strip() in run.stdout, str(run)


def stage_turn(agent: Opencode) -> Run:
    run = agent.turn(agent.stage_prompt, STAGE_ANSWER)
    answered(run, STAGE_ANSWER)
    # The command reached the model expanded: opencode took it as a command.
    assert any(
        "Plan the task TUNE-0032" in text for text in agent.context_of(agent_request(run))
    ), "no dr-plan command"
    return run


@pytest.mark.parametrize("impl", IMPLS)
def test_stage_turn_writes_the_snapshot(sandbox: Sandbox, impl: str) -> None:
    agent = opencode_with_hooks(sandbox, impl)
    assert not sandbox.snapshot.exists()
    stage_turn(agent)
    assert_stage_snapshot(sandbox, agent)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_plain_turn_leaves_the_snapshot_untouched(sandbox: Sandbox, impl: str) -> None:
    agent = opencode_with_hooks(sandbox, impl)
    stage_turn(agent)
    before = assert_stage_snapshot(sandbox, agent)
    mtime = sandbox.snapshot.stat().st_mtime_ns
    answered(agent.turn("thanks, what is left?", OTHER_ANSWER), OTHER_ANSWER)
    answered(agent.resume("and after that?", OTHER_ANSWER), OTHER_ANSWER)
    assert sandbox.snapshot.read_bytes() == before
    assert sandbox.snapshot.stat().st_mtime_ns == mtime
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_continue_hands_the_model_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    agent = opencode_with_hooks(sandbox, impl)
    first = stage_turn(agent)
    assert_stage_snapshot(sandbox, agent)
    replay = resume_text(sandbox.ws)
    assert not any(replay in text for text in agent.context_of(agent_request(first)))
    run = agent.resume("carry on", "Carrying on.")
    answered(run, "Carrying on.")
    assert any(replay in text for text in agent.hook_context(agent_request(run))), (
        "the continued session's model request lacks the replay prompt:\n" + replay
    )
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _call(url: str, method: str = "GET", body: Any = None, timeout: float = 120) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    # The server is on the loopback: no proxy in between.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=timeout) as response:
        text = response.read().decode()
    return json.loads(text) if text.strip() else None


@pytest.mark.parametrize("impl", IMPLS)
def test_compaction_hands_the_model_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    agent = opencode_with_hooks(sandbox, impl)
    stage_turn(agent)
    assert_stage_snapshot(sandbox, agent)
    replay = resume_text(sandbox.ws)
    port = _free_port()
    server = subprocess.Popen(
        [str(NODE_BIN / "opencode"), "serve", "--hostname", "127.0.0.1", "--port", str(port)],
        cwd=sandbox.ws,
        env={**sandbox.env(), **agent.cli_env()},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                # Short: a request that reaches the server while it starts
                # may go unanswered (seen: 2 minutes).
                sessions = _call(f"{base}/session", timeout=2)
                break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail("opencode serve never answered")
        session = sessions[0]["id"]
        sandbox.api.reply = "Summary of the work so far."
        _call(
            f"{base}/session/{session}/summarize",
            "POST",
            {"providerID": "fake", "modelID": "gpt-fake"},
        )
        before = len(sandbox.api.model_requests())
        sandbox.api.reply = "Going on."
        _call(
            f"{base}/session/{session}/message",
            "POST",
            {
                "parts": [{"type": "text", "text": "go on"}],
                "model": {"providerID": "fake", "modelID": "gpt-fake"},
            },
        )
        requests = sandbox.api.model_requests()[before:]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    assert requests, "no model request after the compaction"
    texts = [text for request in requests for text in agent.hook_context(request)]
    assert any(replay in text for text in texts), (
        "the first turn after the compaction lacks the replay prompt:\n" + replay
    )
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


def test_opencode_is_the_pinned_version(sandbox: Sandbox) -> None:
    pinned = json.loads((REPO / "tests" / "e2e" / "package.json").read_text())["dependencies"]
    done = subprocess.run(
        [str(NODE_BIN / "opencode"), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        env=sandbox.env(),
        cwd=sandbox.ws,
    )
    assert done.stdout.strip() == pinned["opencode-ai"]
