"""What only Codex 0.169.0 does, with this repository's hooks (docs/e2e.md):
/clear and /compact in the middle of a session (SessionStart `clear`,
`compact`) hand the next prompt's request the replay prompt. Its stage turn
(`codex exec '$dr-plan TUNE-0032'`), plain turns, `codex exec resume --last`
and version are test_hooks_e2e.py's, as every CLI's.

`codex exec` has neither command, so these run in `codex app-server`, the
JSON-RPC server Codex's TUI drives (e2ekit.CodexAppServer): one thread holds
the stage turn; /clear is a new thread started with `sessionStartSource:
clear` (the protocol's source for it), /compact the `thread/compact/start`
request.
Each step is awaited by its own message (the response, `turn/completed`):
no terminal, no sleep.
"""

from __future__ import annotations

import pytest
from e2ekit import (
    Codex,
    CodexAppServer,
    Sandbox,
    next_prompt_gets_the_replay,
    role_texts,
    session_stage_turn,
    with_hooks,
)

IMPLS = ["bash", "python"]

SUMMARY = "The task TUNE-0032 was planned."


def server_after_the_stage_turn(agent: Codex, server: CodexAppServer) -> None:
    server.trust_hooks()
    server.start_thread()
    session_stage_turn(agent, server)


@pytest.mark.parametrize("impl", IMPLS)
def test_codex_clear_hands_the_next_prompt_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Codex(sandbox), impl)
    with agent.app_server() as server:
        server_after_the_stage_turn(agent, server)
        stage_thread = server.thread
        server.start_thread("clear")
        assert server.thread != stage_thread
        next_prompt_gets_the_replay(agent, server)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_codex_compact_hands_the_next_prompt_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Codex(sandbox), impl)
    with agent.app_server() as server:
        server_after_the_stage_turn(agent, server)
        compacted = server.compact(SUMMARY)
        # One request, the summary's, and the compaction done in the thread.
        assert len(compacted.requests) == 1, compacted.requests
        items = [
            m["params"]["item"]["type"]
            for m in compacted.messages
            if m.get("method") == "item/completed"
        ]
        assert items == ["contextCompaction"], compacted.messages
        said = next_prompt_gets_the_replay(agent, server)
        # The history the model gets is the summary, the stage answer gone from it.
        request = said.requests[0]
        assert any(SUMMARY in text for text in agent.context_of(request))
        assert not any(
            "Plan ready: 4 steps" in t for t in role_texts(request, "input", "assistant")
        )
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()
