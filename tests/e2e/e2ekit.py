"""The end-to-end suite's kit (docs/e2e.md): the real agent CLIs, installed
by `make e2e` into .e2e/, run against the fake model API of fake_model_api.py,
each in a fresh HOME with a datarim knowledge base. The Agent class is what
every CLI's tests use (Claude Code's and Codex's here, Gemini CLI's and Qwen
Code's in gemini_qwen_kit.py, GitHub Copilot CLI's and opencode's in
copilot_opencode_kit.py), with the scenarios they share: the stage turn and
its snapshot, the replay handed over.

Nothing here reaches the network: the model API is a loopback socket, and the
CLIs' HTTPS proxy is the same socket, which refuses whatever else they try
(each test asserts that they tried nothing).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest
from fake_model_api import FakeModelAPI, Request

REPO = Path(__file__).resolve().parents[2]
NODE_BIN = Path(os.environ.get("DATARIM_E2E_BIN") or REPO / ".e2e" / "node_modules" / ".bin")
# The Python port's console script sits beside the interpreter running pytest
# (the venv's), as `datarim-snapshot install-hooks` writes it into the hooks.
PYTHON_BIN = Path(sys.executable).parent
TASK = "TUNE-0032"
# A CLI run takes 1-5 s against the fake API; the bound only turns a hang into
# a failure.
RUN_TIMEOUT = 180
# How the SessionStart hook begins its context when it hands over a replay.
REPLAY_HEAD = f"datarim: {TASK} resumes from its plan snapshot"
# The answer of a real /dr-plan turn (the emit corpus's), ending in a CTA block.
STAGE_ANSWER = (REPO / "tests/conformance/suites/emit/writes-plain-block/in/answer.md").read_text()
# A plain turn's answer that also ends in a CTA block, for another plan: a Stop
# hook that wrote on plain turns would overwrite the snapshot with it.
OTHER_ANSWER = STAGE_ANSWER.replace("Plan ready: 4 steps, 2 risks", "Plan redone: 9 steps, 0 risks")
assert OTHER_ANSWER != STAGE_ANSWER

# Claude Code's switches for everything that is not the model call (see
# docs/e2e.md): updates, telemetry, error reports, the /bug command.
CLAUDE_QUIET = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_BUG_COMMAND": "1",
}

# Where Claude Code hands the model a SessionStart hook's additionalContext.
CLAUDE_HOOK_CONTEXT = "SessionStart hook additional context: "

# Codex: the fake provider, and off whatever else it would fetch at start
# (analytics, the curated plugin sync from GitHub and chatgpt.com, update checks).
CODEX_CONFIG = """\
model = "gpt-fake"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake model API"
base_url = "{url}/v1"
env_key = "DATARIM_E2E_API_KEY"
wire_api = "responses"

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
"""

# What the datarim framework installs for its /dr-plan: a Claude Code command
# and a Codex skill. Their text reaches the model; the answer is scripted.
CLAUDE_COMMAND = "Plan the task $ARGUMENTS and end with the CTA block.\n"
CODEX_SKILL = """\
---
name: dr-plan
description: Plan a datarim task and end with the CTA block.
---

Plan the task named after the mention and end with the CTA block.
"""


@dataclass
class Run:
    """One CLI run: its exit status, output, and the model requests it made."""

    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    requests: list[Request]

    def __str__(self) -> str:
        return (
            f"{' '.join(self.argv)}: exit {self.returncode}\n"
            f"--- stdout\n{self.stdout}\n--- stderr\n{self.stderr[-4000:]}"
        )


@dataclass
class Sandbox:
    """A fresh HOME with a workspace holding a datarim knowledge base."""

    root: Path
    api: FakeModelAPI
    runs: list[Run] = field(default_factory=list)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def ws(self) -> Path:
        return self.root / "ws"

    @property
    def codex_home(self) -> Path:
        return self.home / ".codex"

    @property
    def snapshot(self) -> Path:
        return self.ws / "datarim" / "snapshots" / f"{TASK}.snapshot.md"

    @property
    def hooks_log(self) -> Path:
        return self.home / ".local" / "state" / "datarim" / "hooks.log"

    def env(self) -> dict[str, str]:
        """A fresh environment: nothing of the caller's but PATH."""
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "LC_ALL": "C.UTF-8",
            "TZ": "UTC",
            "TERM": "dumb",
            "TMPDIR": str(self.root / "tmp"),
            # Whatever leaves the machine would go through this proxy: the fake
            # refuses it and records it (Sandbox.assert_offline).
            "HTTPS_PROXY": self.api.url,
            "HTTP_PROXY": self.api.url,
            "https_proxy": self.api.url,
            "http_proxy": self.api.url,
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }

    def run(self, argv: list[str], extra_env: dict[str, str], cwd: Path | None = None) -> Run:
        before = len(self.api.model_requests())
        env = {**self.env(), **extra_env}
        try:
            done = subprocess.run(
                argv,
                cwd=cwd or self.ws,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=RUN_TIMEOUT,
            )
        except subprocess.TimeoutExpired as timeout:
            pytest.fail(f"{' '.join(argv)}: no end within {RUN_TIMEOUT} s\n{timeout.stderr!r}")
        run = Run(
            argv, done.returncode, done.stdout, done.stderr, self.api.model_requests()[before:]
        )
        self.runs.append(run)
        assert run.returncode == 0, str(run)
        return run

    def assert_offline(self) -> None:
        assert not self.api.stray, "requests other than the model's: " + ", ".join(
            f"{r.method} {r.path}" for r in self.api.stray
        )

    def assert_no_hook_failure(self) -> None:
        log = self.hooks_log.read_text() if self.hooks_log.exists() else ""
        assert log == "", f"the hooks logged failures:\n{log}"


class JsonLines:
    """A CLI run as a server on its stdin and stdout, one JSON message a line
    (Qwen Code's stream-json, Copilot's Agent Client Protocol), in the
    sandbox's workspace: its output is read on a thread, so that a test waits
    for the message it needs within RUN_TIMEOUT; its stderr goes to a file."""

    def __init__(self, box: Sandbox, argv: list[str], extra_env: dict[str, str]) -> None:
        self.box = box
        self.argv = argv
        self.extra_env = extra_env
        self.lines: queue.Queue[str] = queue.Queue()
        self.stderr = box.root / "tmp" / f"{Path(argv[0]).name}.stderr"
        self.process: subprocess.Popen[str] | None = None
        self.reader = threading.Thread(target=self._read, daemon=True)

    def __enter__(self) -> JsonLines:
        with self.stderr.open("w") as stderr:
            self.process = subprocess.Popen(
                self.argv,
                cwd=self.box.ws,
                env={**self.box.env(), **self.extra_env},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
            )
        self.reader.start()
        return self

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")  # the end of its output

    def __exit__(self, *exc: object) -> None:
        """Its stdin closed, it ends (or is killed after RUN_TIMEOUT)."""
        assert self.process is not None and self.process.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.close()
        try:
            self.process.wait(RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.reader.join(RUN_TIMEOUT)
        assert self.process.stdout is not None
        self.process.stdout.close()

    def send(self, message: dict[str, Any]) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def messages(self, what: str) -> Iterator[dict[str, Any]]:
        """Its messages from now on; the test fails when none comes within
        RUN_TIMEOUT of the call, or the CLI ends, before the caller stops."""
        end = time.monotonic() + RUN_TIMEOUT
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"{what}: nothing within {RUN_TIMEOUT} s\n{self.stderr_tail()}")
            if not line:
                pytest.fail(f"{what}: {self.argv[0]} ended\n{self.stderr_tail()}")
            yield json.loads(line)

    def stderr_tail(self) -> str:
        return self.stderr.read_text()[-4000:]


@dataclass
class Said:
    """One user message of a session (StreamJson, CodexAppServer): the CLI's
    messages for it, the one that ends it the last, the answer, and the model
    requests made while it was answered."""

    messages: list[dict[str, Any]]
    requests: list[Request]
    answer: str

    @property
    def result(self) -> dict[str, Any]:
        return self.messages[-1]


class Session(Protocol):
    def say(self, text: str, reply: str) -> Said: ...


class StreamJson(JsonLines):
    """One CLI process fed user messages on stdin, one a line, as its SDK feeds
    them (`--input-format stream-json`, Claude Code's and Qwen Code's): typed
    prompts and slash commands (`/clear`, `/compact`, custom commands) alike,
    in one session, without a terminal. Each message is sent once the one
    before has its result message."""

    def __init__(self, agent: Agent, *args: str) -> None:
        super().__init__(agent.box, [str(NODE_BIN / agent.name), *args], agent.cli_env())

    def __enter__(self) -> StreamJson:
        super().__enter__()
        return self

    def say(self, text: str, reply: str) -> Said:
        """Send one user message; wait for the CLI's result message for it."""
        self.box.api.reply = reply
        before = len(self.box.api.model_requests())
        content = {"role": "user", "content": text}
        self.send(
            {"type": "user", "session_id": "", "parent_tool_use_id": None, "message": content}
        )
        seen: list[dict[str, Any]] = []
        for output in self.messages(repr(text)):
            seen.append(output)
            if output.get("type") == "result":
                requests = self.box.api.model_requests()[before:]
                return Said(seen, requests, str(output.get("result") or ""))
        raise AssertionError("unreachable: messages() ends only by failing")


def knowledge_base(ws: Path) -> None:
    """The workspace of a task under way: TUNE-0032 the one active task."""
    kb = ws / "datarim"
    (kb / "tasks").mkdir(parents=True)
    (kb / "tasks.md").write_text(f"# Tasks\n\n- {TASK} Some task title\n")
    (kb / "activeContext.md").write_text(
        "# Active context\n\n## Active Tasks\n\n"
        f"- **{TASK}** — Some task title (Level 3, in_progress)\n"
    )
    (kb / "tasks" / f"{TASK}-task-description.md").write_text(f"# {TASK}\n\nSome task title.\n")


class Agent:
    """One CLI in a sandbox; its turns as the operator types them. The tests
    that every CLI passes (test_hooks_e2e.py) see a CLI only through this."""

    name = ""
    # The operator's /dr-plan TUNE-0032 as typed into the CLI.
    stage_prompt = f"/dr-plan {TASK}"
    # A text the model gets only when the CLI took the stage prompt as the
    # operator meant it (a command's or skill's text, expanded).
    command_text = ""
    # The CLI's npm package (tests/e2e/package.json) and how its --version
    # prints that version.
    package = ""
    version_line = "{}"
    # What install-hooks says it added for this CLI.
    hooks_added = "install-hooks: added the SessionStart, UserPromptSubmit and Stop hooks"

    def __init__(self, box: Sandbox) -> None:
        self.box = box
        for relative, text in self.home_files().items():
            path = box.home / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)

    def home_files(self) -> dict[str, str]:
        """The CLI's configuration, written under the sandbox's HOME: the
        fake model as its provider, nothing else reached, and the framework's
        /dr-plan (path relative to HOME: text)."""
        return {}

    def install_hooks(self, impl: str) -> None:
        """The hooks of one implementation, through its own install-hooks."""
        if impl == "bash":
            argv = [str(REPO / "dev-tools" / "install-hooks.sh")]
        else:
            argv = [str(PYTHON_BIN / "datarim-snapshot"), "install-hooks"]
        argv += ["--runtime", self.name]
        env = {**self.box.env(), **self.cli_env()}
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(self.hooks_added), done.stdout

    def cli_env(self) -> dict[str, str]:
        raise NotImplementedError

    def cli(self, *args: str, cwd: Path | None = None) -> Run:
        """One run of the CLI in the sandbox; it must succeed."""
        return self.box.run([str(NODE_BIN / self.name), *args], self.cli_env(), cwd)

    def turn_args(self, prompt: str) -> list[str]:
        """The arguments of a one-prompt run in a new session."""
        raise NotImplementedError

    def resume_args(self, prompt: str) -> list[str]:
        """The arguments of a one-prompt run in the last session, resumed."""
        raise NotImplementedError

    def turn(self, prompt: str, reply: str) -> Run:
        self.box.api.reply = reply
        return self.cli(*self.turn_args(prompt))

    def resume(self, prompt: str, reply: str) -> Run:
        self.box.api.reply = reply
        return self.cli(*self.resume_args(prompt))

    def assert_answered(self, run: Run, reply: str) -> None:
        """The run printed the model's answer."""
        assert run.stdout.strip() == reply.strip(), str(run)

    def own_request(self, run: Run) -> Request:
        """The run's model request for the turn itself (some CLIs ask the model
        other things too): by default the last."""
        assert run.requests, f"{self.name} never asked the model\n{run}"
        return run.requests[-1]

    def version(self) -> str:
        return self.cli("--version").stdout.strip()

    def context_of(self, request: Request) -> list[str]:
        """Every text the model was given in the request."""
        return list(_strings(request.body))

    def delivered(self, answer: str) -> str:
        """The model's answer as the Stop payload's last_assistant_message has it."""
        return answer

    def hook_context(self, request: Request) -> list[str]:
        """The texts of the request where the CLI puts a SessionStart hook's
        additionalContext (CONTRACT §9)."""
        raise NotImplementedError


A = TypeVar("A", bound=Agent)


def with_hooks(agent: A, impl: str) -> A:
    agent.install_hooks(impl)
    return agent


class Claude(Agent):
    name = "claude"
    command_text = "<command-name>/dr-plan</command-name>"
    package = "@anthropic-ai/claude-code"
    version_line = "{} (Claude Code)"

    def home_files(self) -> dict[str, str]:
        return {".claude/commands/dr-plan.md": CLAUDE_COMMAND}

    def cli_env(self) -> dict[str, str]:
        return {
            "ANTHROPIC_BASE_URL": self.box.api.url,
            "ANTHROPIC_API_KEY": "sk-ant-fake",
            **CLAUDE_QUIET,
        }

    def delivered(self, answer: str) -> str:
        # Claude Code drops the answer's final newline (seen with 2.1.328); the
        # snapshot's body is the answer as the hook receives it.
        return answer.rstrip("\n")

    def hook_context(self, request: Request) -> list[str]:
        # 2.1.328: "SessionStart hook additional context: <the text>" in a
        # message of role "system": a text block of its own after a resume or
        # /clear, the end of the environment's text block after /compact.
        return [
            text.split(CLAUDE_HOOK_CONTEXT, 1)[1]
            for text in self.context_of(request)
            if CLAUDE_HOOK_CONTEXT in text
        ]

    def turn_args(self, prompt: str) -> list[str]:
        return ["-p", prompt]

    def resume_args(self, prompt: str) -> list[str]:
        return ["-p", "--continue", prompt]

    def session(self) -> StreamJson:
        """One `claude -p` process fed its messages as stream-json (the Agent
        SDK's way), the hooks' start and end among its output messages."""
        return StreamJson(
            self,
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-hook-events",
        )


# `codex exec` runs the hooks without their trust step, outside a git repository.
CODEX_EXEC_FLAGS = ["--dangerously-bypass-hook-trust", "--skip-git-repo-check"]


class Codex(Agent):
    name = "codex"
    stage_prompt = f"$dr-plan {TASK}"
    command_text = "Plan the task named after the mention"
    package = "@openai/codex"
    version_line = "codex-cli {}"

    def home_files(self) -> dict[str, str]:
        return {
            ".codex/config.toml": CODEX_CONFIG.format(url=self.box.api.url),
            ".codex/skills/dr-plan/SKILL.md": CODEX_SKILL,
        }

    def cli_env(self) -> dict[str, str]:
        return {"CODEX_HOME": str(self.box.codex_home), "DATARIM_E2E_API_KEY": "sk-fake"}

    def hook_context(self, request: Request) -> list[str]:
        # A developer message of the Responses input.
        return role_texts(request, "input", "developer")

    def turn_args(self, prompt: str) -> list[str]:
        return ["exec", *CODEX_EXEC_FLAGS, prompt]

    def resume_args(self, prompt: str) -> list[str]:
        return ["exec", "resume", "--last", *CODEX_EXEC_FLAGS, prompt]

    def app_server(self) -> CodexAppServer:
        return CodexAppServer(self)


class CodexAppServer(JsonLines):
    """`codex app-server`: Codex's JSON-RPC server on stdio (one message a
    line), what its TUI and IDE extensions drive. Its threads and turns are
    the TUI's: `thread/start` (with `sessionStartSource: clear`, the protocol's
    start source for the thread after a /clear), `turn/start` (a prompt),
    `thread/compact/start` (/compact).
    It has no flag to skip the hooks' trust step: trust_hooks() trusts them as
    the TUI's /hooks review does, through the server."""

    def __init__(self, agent: Codex) -> None:
        super().__init__(agent.box, [str(NODE_BIN / "codex"), "app-server"], agent.cli_env())
        self.last_id = 0
        self.thread = ""

    def __enter__(self) -> CodexAppServer:
        super().__enter__()
        self.call("initialize", {"clientInfo": {"name": "datarim-e2e", "version": "0"}})
        self.send({"method": "initialized"})
        return self

    def call(
        self, method: str, params: dict[str, Any], until: str = ""
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """A request: its result, and the messages up to it (with `until`, up
        to that notification of this thread after it)."""
        self.last_id += 1
        self.send({"id": self.last_id, "method": method, "params": params})
        result: dict[str, Any] | None = None
        ended = not until
        seen: list[dict[str, Any]] = []
        for message in self.messages(method):
            seen.append(message)
            if message.get("id") == self.last_id:
                assert "error" not in message, f"{method}: {message}"
                result = message["result"]
            elif message.get("method") == until:
                ended = message["params"].get("threadId") == self.thread
            if result is not None and ended:
                return result, seen
        raise AssertionError("unreachable: messages() ends only by failing")

    def trust_hooks(self) -> None:
        """Every hook of the workspace marked trusted in config.toml
        (`hooks.state."<key>".trusted_hash`), as the /hooks review writes it."""
        listed, _ = self.call("hooks/list", {"cwds": [str(self.box.ws)]})
        hooks = [hook for entry in listed["data"] for hook in entry["hooks"]]
        assert {hook["trustStatus"] for hook in hooks} == {"untrusted"}, hooks
        trusted = {hook["key"]: {"trusted_hash": hook["currentHash"]} for hook in hooks}
        edit = {"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": trusted}
        self.call("config/batchWrite", {"edits": [edit], "reloadUserConfig": True})
        listed, _ = self.call("hooks/list", {"cwds": [str(self.box.ws)]})
        assert {hook["trustStatus"] for entry in listed["data"] for hook in entry["hooks"]} == {
            "trusted"
        }

    def start_thread(self, source: str = "startup") -> None:
        params = {"cwd": str(self.box.ws), "sessionStartSource": source}
        started, _ = self.call("thread/start", params)
        self.thread = started["thread"]["id"]

    def turn(self, method: str, params: dict[str, Any], reply: str) -> Said:
        """A turn of the thread, to its end (`turn/completed`)."""
        self.box.api.reply = reply
        before = len(self.box.api.model_requests())
        _, seen = self.call(method, {"threadId": self.thread, **params}, until="turn/completed")
        assert seen[-1]["params"]["turn"]["status"] == "completed", seen[-1]
        answer = "".join(
            item.get("text") or ""
            for message in seen
            if message.get("method") == "item/completed"
            for item in [message["params"]["item"]]
            if item.get("type") == "agentMessage"
        )
        return Said(seen, self.box.api.model_requests()[before:], answer)

    def say(self, text: str, reply: str) -> Said:
        return self.turn("turn/start", {"input": [{"type": "text", "text": text}]}, reply)

    def compact(self, summary: str) -> Said:
        return self.turn("thread/compact/start", {}, summary)


def role_texts(request: Request, key: str, role: str) -> list[str]:
    """The texts of the messages of that role in the request body's `key` list
    (chat completions' messages, the Responses API's input)."""
    items = (request.body.get(key) or []) if isinstance(request.body, dict) else []
    return [
        text
        for item in items
        if isinstance(item, dict) and item.get("role") == role
        for text in _strings(item.get("content"))
    ]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def frontmatter(text: str) -> dict[str, str]:
    """The snapshot's top-level `key: value` lines (enough for the fields checked)."""
    assert text.startswith("---\n"), text[:200]
    head = text[4 : text.index("\n---\n", 4)]
    return {
        key.strip(): value.strip()
        for key, sep, value in (line.partition(":") for line in head.splitlines())
        if sep and not key.startswith(" ")
    }


def resume_text(ws: Path) -> str:
    """What the SessionStart hook hands the model: resume-task's text, the
    replay prompt of the task's snapshot."""
    done = subprocess.run(
        [str(REPO / "dev-tools" / "resume-task.sh"), "--root", str(ws)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "done before:" in done.stdout, done.stdout  # a replay, not the legacy context
    return done.stdout.strip()


def clean_copy(dest: Path) -> Path:
    """The checkout without its ignored files (.venv, .e2e ...): what a clean
    clone holds, uncommitted changes included."""
    listed = (
        subprocess.run(
            [
                "git",
                "-C",
                str(REPO),
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ],
            capture_output=True,
            check=True,
            timeout=60,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = REPO / name
        target = dest / name
        if source.is_symlink():  # as git checks one out (scripts/lib, the hook scripts)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(source), target)
            continue
        if not source.is_file():  # deleted in the working tree, or a submodule
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    return dest


def stage_turn(agent: Agent) -> Run:
    """The operator's /dr-plan TUNE-0032 (Codex: `$dr-plan TUNE-0032`),
    answered with the stage answer; the CLI took it as a command (its text
    reached the model)."""
    run = agent.turn(agent.stage_prompt, STAGE_ANSWER)
    agent.assert_answered(run, STAGE_ANSWER)
    assert any(agent.command_text in text for text in agent.context_of(agent.own_request(run))), (
        f"the model never got {agent.stage_prompt!r} as a command"
    )
    return run


def assert_stage_snapshot(sandbox: Sandbox, agent: Agent) -> bytes:
    """The snapshot of the stage turn: valid, and what emit makes of the answer."""
    assert sandbox.snapshot.is_file(), f"no {sandbox.snapshot}"
    check = subprocess.run(
        [
            str(REPO / "dev-tools" / "check-stage-snapshot-on-exit.sh"),
            "--task",
            TASK,
            "--root",
            str(sandbox.ws),
            "--validate-frontmatter",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 0, check.stderr
    text = sandbox.snapshot.read_text()
    fields = frontmatter(text)
    assert fields["task_id"] == TASK
    assert fields["stage"] == "plan"
    assert fields["command"] == "/dr-plan"
    assert fields["captured_by"] == "agent"
    assert fields["recommended_next"] == "/dr-design"
    assert fields["truncated"] == "false"
    # Byte for byte what emit-stage-snapshot writes from the answer as the CLI
    # hands it to the Stop hook.
    reference = sandbox.root / "reference"
    knowledge_base(reference)
    answer = sandbox.root / "answer.md"
    answer.write_text(agent.delivered(STAGE_ANSWER))
    emit = subprocess.run(
        [
            str(REPO / "dev-tools" / "emit-stage-snapshot.sh"),
            "--root",
            str(reference),
            "--task",
            TASK,
            "--stage",
            "plan",
            "--command",
            "/dr-plan",
            "--response-file",
            str(answer),
            "--captured-by",
            "agent",
            "--captured-at",
            fields["captured_at"],
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert emit.returncode == 0, emit.stderr
    expected = (reference / "datarim" / "snapshots" / f"{TASK}.snapshot.md").read_text()
    assert text == expected
    return sandbox.snapshot.read_bytes()


def after_the_stage_turn(agent: Agent) -> str:
    """The stage turn, its snapshot checked; the replay prompt it leaves."""
    stage_turn(agent)
    assert_stage_snapshot(agent.box, agent)
    return resume_text(agent.box.ws)


def assert_carries_the_replay(texts: list[str], replay: str, what: str) -> None:
    assert any(replay in text for text in texts), f"{what} lacks the replay prompt:\n{replay}"


def hands_over_the_replay(agent: Agent, run_of: Callable[[str, str], Run], replay: str) -> Run:
    """`carry on` in a run (agent.turn: a new session; agent.resume), answered;
    its own model request carries the replay where the CLI puts a hook's
    context."""
    run = run_of("carry on", "Carrying on.")
    agent.assert_answered(run, "Carrying on.")
    what = f"the model request of {' '.join(run.argv[1:])!r}"
    assert_carries_the_replay(agent.hook_context(agent.own_request(run)), replay, what)
    return run


def session_stage_turn(agent: Agent, session: Session) -> None:
    """The operator's /dr-plan TUNE-0032 in the session: the snapshot written,
    and no replay handed over yet (a fresh session, SessionStart startup)."""
    said = session.say(agent.stage_prompt, STAGE_ANSWER)
    assert said.answer.strip() == STAGE_ANSWER.strip(), said.result
    assert any(agent.command_text in text for text in agent.context_of(said.requests[0]))
    contexts = [text for request in said.requests for text in agent.hook_context(request)]
    assert not any(REPLAY_HEAD in text for text in contexts)
    assert_stage_snapshot(agent.box, agent)


def next_prompt_gets_the_replay(agent: Agent, session: Session) -> Said:
    """`carry on` in the session, answered; its first model request (the
    turn's own) carries the replay prompt where the CLI puts a hook's context."""
    replay = resume_text(agent.box.ws)
    said = session.say("carry on", "Carrying on.")
    assert said.answer == "Carrying on.", said.result
    texts = agent.hook_context(said.requests[0])
    assert_carries_the_replay(texts, replay, "the first request after the command")
    return said
