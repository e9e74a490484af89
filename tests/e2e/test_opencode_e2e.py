"""What only opencode does, with this repository's hooks (docs/e2e.md,
docs/agent-runtimes.md), the bash hooks and the Python port's, run by the
plugin `install-hooks --runtime opencode` writes into a fresh HOME's
~/.config/opencode/plugin/ (the Opencode class of copilot_opencode_kit.py).
Its stage command (`opencode run --command dr-plan TUNE-0032`), plain turns,
`opencode run --continue` and version are test_hooks_e2e.py's, as every CLI's.

After a compaction (`opencode serve`, POST /session/:id/summarize, which
fires session.compacted) the next turn's request carries the replay.

`opencode run` does not await the plugin's event handlers: it exits once the
session is idle. A Stop hook slower than that (a loaded machine) must still
have written the snapshot when the run is over.
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
from copilot_opencode_kit import Opencode
from e2ekit import (
    NODE_BIN,
    Sandbox,
    after_the_stage_turn,
    assert_carries_the_replay,
    assert_stage_snapshot,
    stage_turn,
    with_hooks,
)

IMPLS = ("bash", "python")


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
def test_a_slow_stop_hook_has_written_the_snapshot_when_run_exits(
    sandbox: Sandbox, impl: str
) -> None:
    agent = with_hooks(Opencode(sandbox), impl)
    plugin = sandbox.home / ".config" / "opencode" / "plugin" / "datarim-snapshots.js"
    text = plugin.read_text()
    # The Stop hook as a loaded machine may run it: 3 seconds late.
    slow = text.replace('"stop-hook": "', '"stop-hook": "sleep 3; ', 1)
    assert slow != text
    plugin.write_text(slow)
    stage_turn(agent)
    assert_stage_snapshot(sandbox, agent)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_compaction_hands_the_model_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Opencode(sandbox), impl)
    replay = after_the_stage_turn(agent)
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
    assert_carries_the_replay(texts, replay, "the first turn after the compaction")
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()
