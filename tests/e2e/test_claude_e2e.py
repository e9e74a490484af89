"""What only Claude Code 2.1.328 does, with this repository's hooks (docs/e2e.md):
`/clear` and `/compact` in the middle of a session (SessionStart `clear`,
`compact`) hand the next prompt's request the replay prompt. Its stage turn,
plain turns, `--continue` and version are test_hooks_e2e.py's, as every CLI's;
its plugin is test_plugin_e2e.py's.

One `claude -p` process fed its messages as stream-json, as the Agent SDK
drives it: the slash commands an operator types run in it as in the terminal,
and its output says when each is done (and, with --include-hook-events, which
hooks ran), so the test needs no terminal and no sleep.
"""

from __future__ import annotations

from typing import Any

import pytest
from e2ekit import (
    Claude,
    Sandbox,
    next_prompt_gets_the_replay,
    role_texts,
    session_stage_turn,
    with_hooks,
)

IMPLS = ["bash", "python"]

# The summary of /compact as Claude Code asks for it: without the <summary>
# element it asks the model a second time, the request's text made stricter.
SUMMARY = (
    "<analysis>\nThe plan of TUNE-0032 is done.\n</analysis>\n"
    "<summary>\nThe task TUNE-0032 was planned.\n</summary>"
)


def hooks_run(messages: list[dict[str, Any]], event: str) -> list[str]:
    """The names of the hooks of that event Claude Code reported as started
    (`SessionStart:<source>`)."""
    return [
        str(m.get("hook_name"))
        for m in messages
        if m.get("subtype") == "hook_started" and m.get("hook_event") == event
    ]


@pytest.mark.parametrize("impl", IMPLS)
def test_claude_clear_hands_the_next_prompt_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Claude(sandbox), impl)
    with agent.session() as session:
        session_stage_turn(agent, session)
        cleared = session.say("/clear", "unused")
        assert cleared.result.get("subtype") == "success", cleared.result
        assert cleared.requests == []
        # A new conversation, begun by SessionStart with source clear.
        resets = [m for m in cleared.messages if m.get("type") == "conversation_reset"]
        assert [m.get("trigger") for m in resets] == ["clear"], cleared.messages
        assert set(hooks_run(cleared.messages, "SessionStart")) == {"SessionStart:clear"}
        next_prompt_gets_the_replay(agent, session)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_claude_compact_hands_the_next_prompt_the_replay_prompt(
    sandbox: Sandbox, impl: str
) -> None:
    agent = with_hooks(Claude(sandbox), impl)
    with agent.session() as session:
        session_stage_turn(agent, session)
        compacted = session.say("/compact", SUMMARY)
        assert compacted.result.get("subtype") == "success", compacted.result
        # One request, the summary's; then the compaction's boundary, and
        # SessionStart with source compact.
        assert len(compacted.requests) == 1, compacted.requests
        assert not agent.hook_context(compacted.requests[0])
        boundaries = [m for m in compacted.messages if m.get("subtype") == "compact_boundary"]
        assert len(boundaries) == 1, compacted.messages
        assert boundaries[0]["compact_metadata"]["trigger"] == "manual"
        assert set(hooks_run(compacted.messages, "SessionStart")) == {"SessionStart:compact"}
        said = next_prompt_gets_the_replay(agent, session)
        # The history the model gets is the summary, the stage answer gone from it.
        request = said.requests[0]
        assert any("The task TUNE-0032 was planned." in t for t in agent.context_of(request))
        assert role_texts(request, "messages", "assistant") == []
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()
