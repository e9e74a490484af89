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
from pathlib import Path

import pytest
from e2ekit import NODE_BIN, TASK, Agent, Run, StreamJson, clean_copy
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


def elements(texts: list[str], tag: str) -> list[str]:
    """What every <tag …>…</tag> element of the texts holds."""
    found = []
    for text in texts:
        while f"<{tag}" in text:
            text = text.split(f"<{tag}", 1)[1].split(">", 1)[1]
            found.append(text.split(f"</{tag}>", 1)[0])
    return found


class ExtensionAgent(Agent):
    """A CLI whose bash hooks come from this repository as an extension, by
    `<cli> extensions install <source> --consent` from a clean copy of the
    checkout, as an operator installs it; the Python port's from its
    install-hooks (into ~/.<cli>/settings.json)."""

    # What to install ({checkout}: the copy), the folder of the installed
    # extension that holds the scripts, and what the CLI says on success.
    extension_source = ""
    extension_folder = ""
    installed_says = ""

    def install_hooks(self, impl: str) -> None:
        if impl != "bash":
            super().install_hooks(impl)
            return
        checkout = clean_copy(self.box.root / "checkout")
        source = self.extension_source.format(checkout=checkout)
        run = self.cli("extensions", "install", source, "--consent")
        assert self.installed_says in run.stdout + run.stderr, str(run)
        # The installed copy holds the hook scripts and the scripts they load,
        # as files: it runs without the clone it came from.
        installed = self.box.home / f".{self.name}" / "extensions" / "datarim-snapshots"
        scripts = installed / self.extension_folder
        assert (scripts / "dev-tools" / "stop-hook.sh").is_file(), installed
        assert (scripts / "scripts" / "lib" / "stop-hook.sh").is_file(), installed
        assert [p for p in installed.rglob("*") if p.is_symlink()] == [], installed


class Gemini(ExtensionAgent):
    name = "gemini"
    command_text = "Plan the task and end with the CTA block."
    package = "@google/gemini-cli"
    hooks_added = "install-hooks: added the SessionStart, BeforeAgent and AfterAgent hooks"
    # The extension is plugins/datarim-snapshots; Gemini copies the folder:
    # the scripts themselves, no link back into the clone (it keeps a link,
    # made absolute).
    extension_source = "{checkout}/plugins/datarim-snapshots"
    extension_folder = "."
    installed_says = 'Extension "datarim-snapshots" installed successfully'

    def home_files(self) -> dict[str, str]:
        return {
            ".gemini/settings.json": json.dumps(GEMINI_SETTINGS, indent=2),
            ".gemini/commands/dr-plan.toml": GEMINI_COMMAND,
        }

    def install_hooks(self, impl: str) -> None:
        super().install_hooks(impl)
        if impl == "bash":
            # 0.61.0's extension commands log the install to Google's usage
            # statistics whatever privacy.usageStatisticsEnabled says (their
            # telemetry config is built without it): the proxy refused it.
            # Only that is excused; the turns below must reach nothing.
            tried = {f"{r.method} {r.path}" for r in self.box.api.stray}
            assert tried <= {"CONNECT play.googleapis.com:443"}, tried
            self.box.api.stray.clear()

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
        return elements(self.context_of(request), "hook_context")

    def turn_args(self, prompt: str) -> list[str]:
        return ["-m", GEMINI_MODEL, "-p", prompt]

    def resume_args(self, prompt: str) -> list[str]:
        return ["-m", GEMINI_MODEL, "--resume", "latest", "-p", prompt]

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


class Qwen(ExtensionAgent):
    name = "qwen"
    command_text = f"Plan the task {TASK} and end with the CTA block."
    package = "@qwen-code/qwen-code"
    # The Claude Code plugin through Qwen's extension converter: Qwen copies
    # the plugin's folder, plugins/ (it drops a link that leaves it), the
    # extension inside, with the scripts.
    extension_source = "{checkout}:datarim-snapshots"
    extension_folder = "datarim-snapshots"
    installed_says = "datarim-snapshots"

    def home_files(self) -> dict[str, str]:
        settings = {
            **QWEN_SETTINGS,
            "modelProviders": {
                "openai": [
                    {
                        "id": QWEN_MODEL,
                        "name": "fake model API",
                        "envKey": "OPENAI_API_KEY",
                        "baseUrl": f"{self.box.api.url}/v1",
                    }
                ]
            },
        }
        return {
            ".qwen/settings.json": json.dumps(settings, indent=2),
            ".qwen/commands/dr-plan.md": QWEN_COMMAND,
        }

    def own_request(self, run: Run) -> Request:
        # Qwen's first: after it, Qwen asks the model in the background to
        # extract memories from the conversation.
        assert run.requests, f"qwen never asked the model\n{run}"
        return run.requests[0]

    def cli_env(self) -> dict[str, str]:
        return {"OPENAI_API_KEY": "fake"}

    def hook_context(self, request: Request) -> list[str]:
        # 0.24.4: SessionStart's additionalContext closes the system prompt, as
        # "<qwen:session-start-context hidden="true">\n<a header>:\n<the text>
        # \n</qwen:session-start-context>", whatever the source.
        return elements(self.context_of(request), "qwen:session-start-context")

    def turn_args(self, prompt: str) -> list[str]:
        return ["-p", prompt]

    def resume_args(self, prompt: str) -> list[str]:
        return ["-c", "-p", prompt]

    def session(self) -> StreamJson:
        """One Qwen process fed its messages as stream-json (its SDK's way):
        Qwen does not keep messages sent together in their order, so each is
        sent once the one before has its result (StreamJson.say)."""
        return StreamJson(self, "--input-format", "stream-json", "--output-format", "stream-json")
