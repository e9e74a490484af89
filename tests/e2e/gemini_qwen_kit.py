"""Gemini CLI and Qwen Code in the end-to-end suite (docs/e2e.md, issue 22):
their Agent classes, kept apart from e2ekit.py's Claude Code and Codex.

Gemini CLI speaks generateContent to GOOGLE_GEMINI_BASE_URL, Qwen Code OpenAI
chat completions to its provider's baseUrl: both the fake model API. Their
hooks come from this repository's extension and plugin as an operator
installs them (`gemini extensions install plugins/datarim-snapshots`, `qwen
extensions install <marketplace>:datarim-snapshots`), or from install-hooks.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import re
import select
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, Union

import pytest
from e2ekit import (
    NODE_BIN,
    OTHER_ANSWER,
    STAGE_ANSWER,
    TASK,
    Agent,
    JsonLines,
    Run,
    Sandbox,
    clean_copy,
    resume_text,
)
from fake_model_api import Request

# Gemini: an explicit model, so that no "auto" router asks the model to
# classify each prompt first; API-key auth (a base URL without it selects a
# gateway that headless mode refuses); no usage statistics or update checks.
GEMINI_MODEL = "gemini-2.5-flash"
GEMINI_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}
# The framework's /dr-plan for Gemini: a custom command. Gemini hands the hooks
# its expanded text, never the typed command, so the text begins with the
# command line itself (docs/agent-runtimes.md, "Gemini CLI").
GEMINI_COMMAND = (
    'description = "Plan a datarim task"\n'
    'prompt = """/dr-plan {{args}}\n\nPlan the task and end with the CTA block."""\n'
)

QWEN_MODEL = "gpt-fake"
# Qwen: the fake as an OpenAI-compatible provider.
QWEN_SETTINGS = {
    "security": {"auth": {"selectedType": "openai"}},
    "model": {"name": QWEN_MODEL},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    # Without it the interactive and stream-json modes ask registry.npmjs.org
    # for a newer version at start-up.
    "general": {"enableAutoUpdate": False},
}
QWEN_COMMAND = "Plan the task {{args}} and end with the CTA block.\n"


def assert_installed_alone(installed: Path, extension: str) -> None:
    """The installed copy holds the hook scripts and the scripts they load,
    as files: it runs without the clone it came from."""
    assert (installed / extension / "dev-tools" / "stop-hook.sh").is_file(), installed
    assert (installed / extension / "scripts" / "lib" / "stop-hook.sh").is_file(), installed
    assert [p for p in installed.rglob("*") if p.is_symlink()] == [], installed


class Gemini(Agent):
    name = "gemini"
    stage_prompt = f"/dr-plan {TASK}"
    command_text = "Plan the task and end with the CTA block."
    # Which of a turn's model requests is the turn's own: Gemini's last.
    turn_request = -1
    hooks_added = "install-hooks: added the SessionStart, BeforeAgent and AfterAgent hooks"

    def __init__(self, box: Sandbox) -> None:
        super().__init__(box)
        config = box.home / ".gemini"
        (config / "commands").mkdir(parents=True)
        (config / "settings.json").write_text(json.dumps(GEMINI_SETTINGS, indent=2))
        (config / "commands" / "dr-plan.toml").write_text(GEMINI_COMMAND)

    def install_hooks(self, impl: str) -> None:
        """bash: the repository's extension (its hooks are the bash scripts);
        python: the Python port's install-hooks into ~/.gemini/settings.json."""
        if impl == "bash":
            source = clean_copy(self.box.root / "checkout")
            extension = source / "plugins" / "datarim-snapshots"
            run = self.gemini("extensions", "install", str(extension), "--consent")
            assert 'Extension "datarim-snapshots" installed successfully' in run.stdout + run.stderr
            # Gemini copied the folder: the scripts themselves, no link back
            # into the clone (it keeps a link, made absolute).
            assert_installed_alone(
                self.box.home / ".gemini" / "extensions" / "datarim-snapshots", "."
            )
            # 0.61.0's extension commands log the install to Google's usage
            # statistics whatever privacy.usageStatisticsEnabled says (their
            # telemetry config is built without it): the proxy refused it.
            # Only that is excused; the turns below must reach nothing.
            tried = {f"{r.method} {r.path}" for r in self.box.api.stray}
            assert tried <= {"CONNECT play.googleapis.com:443"}, tried
            self.box.api.stray.clear()
            return
        super().install_hooks(impl)

    def cli_env(self) -> dict[str, str]:
        return {
            "GEMINI_API_KEY": "fake",
            "GOOGLE_GEMINI_BASE_URL": self.box.api.url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }

    def delivered(self, answer: str) -> str:
        # The stop hook reads the answer from Gemini's session JSONL (see
        # transcript-tail.awk), which drops its final newline (0.61.0).
        return answer.rstrip("\n")

    def hook_context(self, request: Request) -> list[str]:
        # 0.61.0: "<hook_context>…</hook_context>" in a text part of the user
        # turn (SessionStart's before the prompt, BeforeAgent's a part of its own).
        out = []
        for text in self.context_of(request):
            while "<hook_context>" in text:
                text = text.split("<hook_context>", 1)[1]
                out.append(text.split("</hook_context>", 1)[0])
        return out

    def gemini(self, *args: str) -> Run:
        return self.box.run([str(NODE_BIN / "gemini"), *args], self.cli_env())

    def turn(self, prompt: str, reply: str) -> Run:
        self.box.api.reply = reply
        return self.gemini("-m", GEMINI_MODEL, "-p", prompt)

    def resume(self, prompt: str, reply: str) -> Run:
        self.box.api.reply = reply
        return self.gemini("-m", GEMINI_MODEL, "--resume", "latest", "-p", prompt)

    def clear_then(self, prompt: str, reply: str) -> list[Request]:
        """The interactive CLI on a terminal: `/clear`, then `prompt`; the model
        requests of that prompt."""
        self.box.api.reply = reply
        pending = self.box.home / ".local" / "state" / "datarim" / "resume"
        with Terminal(
            [str(NODE_BIN / "gemini"), "-m", GEMINI_MODEL],
            {**self.box.env(), **self.cli_env(), "TERM": "xterm-256color"},
            self.box.ws,
        ) as term:
            # 0.61.0 on this terminal draws its banner, then takes input without
            # drawing the prompt box: a moment after the banner, it listens.
            term.wait_for(lambda: "Tips for getting started" in term.screen(), "the banner")
            time.sleep(3)
            term.type("/clear")
            # SessionStart(clear) keeps the resume for the next BeforeAgent.
            term.wait_for(
                lambda: pending.is_dir() and any(pending.iterdir()), "the pending resume of /clear"
            )
            time.sleep(1)  # the screen redrawn after /clear
            before = len(self.box.api.model_requests())
            term.type(prompt)
            term.wait_for(lambda: len(self.box.api.model_requests()) > before, "a model request")
            return self.box.api.model_requests()[before:]


_CONTROL_SEQUENCE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07|[@-Z\\-_])")
# A terminal step is quick; the bound only turns a hang into a failure.
TERMINAL_TIMEOUT = 60


class Terminal:
    """A CLI on a pseudo-terminal, typed into as an operator types."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.argv, self.env, self.cwd = argv, env, cwd
        self.output = b""
        self.pid = -1
        self.fd = -1

    def __enter__(self) -> Terminal:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the CLI
            try:
                os.chdir(self.cwd)
                os.execve(self.argv[0], self.argv, self.env)
            finally:
                os._exit(127)
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)
        os.close(self.fd)

    def screen(self) -> str:
        """What the CLI wrote so far, without its terminal control sequences."""
        self._read(0.0)
        return _CONTROL_SEQUENCE.sub("", self.output.decode("utf-8", "replace"))

    def _read(self, wait: float) -> None:
        ready, _, _ = select.select([self.fd], [], [], wait)
        if ready:
            with contextlib.suppress(OSError):  # the CLI has gone
                self.output += os.read(self.fd, 65536)

    def type(self, line: str) -> None:
        os.write(self.fd, line.encode())
        time.sleep(0.5)  # the prompt box takes the text before the Enter
        os.write(self.fd, b"\r")

    def wait_for(self, done: object, what: str) -> None:
        assert callable(done)
        end = time.monotonic() + TERMINAL_TIMEOUT
        while not done():
            if time.monotonic() > end:
                screen = self.screen()[-3000:]
                pytest.fail(f"no {what} within {TERMINAL_TIMEOUT} s; the screen:\n{screen}")
            self._read(0.2)


class Qwen(Agent):
    name = "qwen"
    stage_prompt = f"/dr-plan {TASK}"
    command_text = f"Plan the task {TASK} and end with the CTA block."
    # Qwen's first: after it, Qwen asks the model in the background to extract
    # memories from the conversation.
    turn_request = 0

    def __init__(self, box: Sandbox) -> None:
        super().__init__(box)
        config = box.home / ".qwen"
        (config / "commands").mkdir(parents=True)
        settings = {
            **QWEN_SETTINGS,
            "modelProviders": {
                "openai": [
                    {
                        "id": QWEN_MODEL,
                        "name": "fake model API",
                        "envKey": "OPENAI_API_KEY",
                        "baseUrl": f"{box.api.url}/v1",
                    }
                ]
            },
        }
        (config / "settings.json").write_text(json.dumps(settings, indent=2))
        (config / "commands" / "dr-plan.md").write_text(QWEN_COMMAND)

    def install_hooks(self, impl: str) -> None:
        """bash: the Claude Code plugin through Qwen's extension converter;
        python: the Python port's install-hooks into ~/.qwen/settings.json."""
        if impl == "bash":
            source = clean_copy(self.box.root / "checkout")
            run = self.qwen("extensions", "install", f"{source}:datarim-snapshots", "--consent")
            assert "datarim-snapshots" in run.stdout + run.stderr, str(run)
            # Qwen copied the plugin's folder, plugins/ (it drops a link that
            # leaves it): the extension inside, with the scripts.
            assert_installed_alone(
                self.box.home / ".qwen" / "extensions" / "datarim-snapshots", "datarim-snapshots"
            )
            return
        super().install_hooks(impl)

    def cli_env(self) -> dict[str, str]:
        return {"OPENAI_API_KEY": "fake"}

    def hook_context(self, request: Request) -> list[str]:
        # 0.24.4: SessionStart's additionalContext closes the system prompt, as
        # "<qwen:session-start-context hidden="true">\n<a header>:\n<the text>
        # \n</qwen:session-start-context>", whatever the source.
        out = []
        for text in self.context_of(request):
            while QWEN_CONTEXT_START in text:
                text = text.split(QWEN_CONTEXT_START, 1)[1].split(">", 1)[1]
                out.append(text.split(QWEN_CONTEXT_END, 1)[0])
        return out

    def qwen(self, *args: str) -> Run:
        return self.box.run([str(NODE_BIN / "qwen"), *args], self.cli_env())

    def turn(self, prompt: str, reply: str) -> Run:
        self.box.api.reply = reply
        return self.qwen("-p", prompt)

    def resume(self, prompt: str, reply: str) -> Run:
        self.box.api.reply = reply
        return self.qwen("-c", "-p", prompt)

    def session(self) -> QwenSession:
        return QwenSession(self)


QWEN_CONTEXT_START = "<qwen:session-start-context"
QWEN_CONTEXT_END = "</qwen:session-start-context>"


@dataclass
class Said:
    """One message of a QwenSession: Qwen's result message for it, and the
    model requests made while it was answered."""

    result: dict[str, Any]
    requests: list[Request]


class QwenSession(JsonLines):
    """One Qwen process fed user messages on stdin, one at a time, as its SDK
    feeds them (`--input-format stream-json`): typed prompts and slash commands
    (`/clear`, `/compress`, custom commands) alike, in one session, without a
    terminal. Each message is sent once the one before has its result: Qwen
    does not keep messages sent together in their order."""

    def __init__(self, agent: Qwen) -> None:
        argv = [str(NODE_BIN / "qwen"), "--input-format", "stream-json"]
        super().__init__(agent.box, argv + ["--output-format", "stream-json"], agent.cli_env())

    def __enter__(self) -> QwenSession:
        super().__enter__()
        return self

    def say(self, text: str, reply: str) -> Said:
        """Send one user message; wait for Qwen's result message for it."""
        self.box.api.reply = reply
        before = len(self.box.api.model_requests())
        content = {"role": "user", "content": text}
        self.send(
            {"type": "user", "session_id": "", "parent_tool_use_id": None, "message": content}
        )
        for output in self.messages(repr(text)):
            if output.get("type") == "result":
                return Said(output, self.box.api.model_requests()[before:])
        raise AssertionError("unreachable: messages() ends only by failing")


GeminiOrQwen = Union[Gemini, Qwen]
CLI = TypeVar("CLI", Gemini, Qwen)


def with_hooks(cli: type[CLI], sandbox: Sandbox, impl: str) -> CLI:
    agent = cli(sandbox)
    agent.install_hooks(impl)
    return agent


def stage_turn(agent: GeminiOrQwen) -> None:
    """The operator's /dr-plan TUNE-0032: answered, and the custom command
    expanded (its text reached the model)."""
    run = agent.turn(agent.stage_prompt, STAGE_ANSWER)
    assert run.stdout.strip() == STAGE_ANSWER.strip(), str(run)
    request = run.requests[agent.turn_request]
    assert any(agent.command_text in text for text in agent.context_of(request)), (
        "no /dr-plan command"
    )


def assert_plain_turns_leave_the_snapshot(agent: GeminiOrQwen, before: bytes) -> None:
    """A plain turn, then a resumed one, both answered with another CTA block:
    the snapshot's bytes and mtime as they were."""
    snapshot = agent.box.snapshot
    mtime = snapshot.stat().st_mtime_ns
    agent.turn("thanks, what is left to do?", OTHER_ANSWER)
    agent.resume("and after that?", OTHER_ANSWER)
    assert snapshot.read_bytes() == before
    assert snapshot.stat().st_mtime_ns == mtime


def assert_resume_hands_over_the_replay(agent: GeminiOrQwen) -> None:
    replay = resume_text(agent.box.ws)
    run = agent.resume("carry on", "Carrying on.")
    assert any(replay in t for t in agent.hook_context(run.requests[agent.turn_request])), (
        "the resumed session's model request lacks the replay prompt:\n" + replay
    )


def the_cli_version(agent: Agent) -> str:
    run = agent.box.run([str(NODE_BIN / agent.name), "--version"], agent.cli_env())
    return run.stdout.strip()
