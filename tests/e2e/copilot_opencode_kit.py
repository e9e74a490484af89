"""GitHub Copilot CLI and opencode in the end-to-end suite (docs/e2e.md,
docs/agent-runtimes.md): their Agent classes, kept apart from e2ekit.py's
Claude Code and Codex. Both speak OpenAI chat completions to the fake model
API; their hooks come from `install-hooks --runtime copilot` (into
~/.copilot/settings.json) and `--runtime opencode` (a plugin in
~/.config/opencode/plugin/).

Copilot's Stop payload carries no answer, so the Stop hook reads the turn's
chat span from Copilot's OpenTelemetry file, which the operator opts into
(COPILOT_OTEL_FILE_EXPORTER_PATH at copilot-otel.jsonl in the hooks' state
directory, with message content): the kit sets exactly what the docs say.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from e2ekit import NODE_BIN, TASK, Agent, JsonLines, Run, Sandbox, role_texts
from fake_model_api import Request


class Copilot(Agent):
    """GitHub Copilot CLI 1.0.102: `copilot -p`, its provider the fake model
    (COPILOT_PROVIDER_*), offline, no GitHub sign-in."""

    name = "copilot"
    # No custom command here: the prompt reaches the model as typed.
    command_text = f"/dr-plan {TASK}"
    package = "@github/copilot"
    version_line = "GitHub Copilot CLI {}."
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

    def install_hooks(self, impl: str) -> None:
        super().install_hooks(impl)
        settings = json.loads((self.box.home / ".copilot" / "settings.json").read_text())
        assert sorted(settings["hooks"]) == [
            "PreCompact",
            "SessionStart",
            "Stop",
            "UserPromptSubmit",
        ]

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

    def turn_args(self, prompt: str) -> list[str]:
        return ["-p", prompt]

    def resume_args(self, prompt: str) -> list[str]:
        return ["--continue", "-p", prompt]

    def assert_answered(self, run: Run, reply: str) -> None:
        # Copilot prints the answer, then a summary (changes, duration, tokens).
        assert run.stdout.startswith(reply.strip()), str(run)

    def version(self) -> str:
        return self.cli("--version").stdout.splitlines()[0]

    def hook_context(self, request: Request) -> list[str]:
        # 1.0.102: a SessionStart hook's additionalContext is a user message of
        # its own, before the prompt.
        return role_texts(request, "messages", "user")


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
    # The command reached the model expanded: opencode took it as a command.
    command_text = f"Plan the task {TASK}"
    package = "opencode-ai"

    def __init__(self, box: Sandbox) -> None:
        super().__init__(box)
        (box.home / ".config" / "opencode" / "node_modules").mkdir()

    def home_files(self) -> dict[str, str]:
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "fake model API",
            "options": {"baseURL": f"{self.box.api.url}/v1", "apiKey": "sk-fake"},
            "models": {"gpt-fake": {"name": "gpt-fake"}},
        }
        settings = {
            "provider": {"fake": provider},
            "model": "fake/gpt-fake",
            "autoupdate": False,
            "share": "disabled",
        }
        return {
            ".config/opencode/command/dr-plan.md": OPENCODE_COMMAND,
            ".config/opencode/package.json": json.dumps(CONFIG_PACKAGE),
            ".config/opencode/package-lock.json": json.dumps(CONFIG_LOCK),
            ".config/opencode/opencode.json": json.dumps(settings),
        }

    def install_hooks(self, impl: str) -> None:
        super().install_hooks(impl)
        plugin = self.box.home / ".config" / "opencode" / "plugin" / "datarim-snapshots.js"
        assert plugin.is_file()

    def cli_env(self) -> dict[str, str]:
        return dict(OPENCODE_QUIET)

    def turn_args(self, prompt: str) -> list[str]:
        if prompt.startswith("/"):
            command, _, arguments = prompt[1:].partition(" ")
            return ["run", "--command", command, arguments]
        return ["run", prompt]

    def resume_args(self, prompt: str) -> list[str]:
        return ["run", "--continue", prompt]

    def assert_answered(self, run: Run, reply: str) -> None:
        assert reply.strip() in run.stdout, str(run)

    def own_request(self, run: Run) -> Request:
        """The turn's last request for the agent itself (title generation aside)."""
        for request in reversed(run.requests):
            if "You are a title generator" not in request.text():
                return request
        raise AssertionError(f"no agent request in the run\n{run}")

    def hook_context(self, request: Request) -> list[str]:
        # 1.18.33: experimental.chat.system.transform's strings are system messages.
        return role_texts(request, "messages", "system")
