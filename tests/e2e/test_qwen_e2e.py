"""What only Qwen Code 0.24.4 does, with this repository's hooks (docs/e2e.md,
issue 22): the Claude Code plugin converted by `qwen extensions install
<marketplace>:datarim-snapshots` (the bash hooks), and the Python port's
`install-hooks --runtime qwen` (the Qwen class of gemini_qwen_kit.py). Its
stage turn (the /dr-plan custom command: Qwen hands UserPromptSubmit the
command's text in prompt, the typed command in submitted_prompt), plain
turns, `qwen -c` and version are test_hooks_e2e.py's, as every CLI's.

`/clear` and `/compress` in the middle of a session (SessionStart clear,
compact) hand the next prompt's request the replay prompt. One Qwen process
fed its messages as stream-json, as its SDK drives it: the same slash
commands an operator types, without a terminal.
"""

from __future__ import annotations

import pytest
from e2ekit import (
    Sandbox,
    StreamJson,
    next_prompt_gets_the_replay,
    session_stage_turn,
    with_hooks,
)
from gemini_qwen_kit import Qwen

IMPLS = ["bash", "python"]


# Qwen's /compress keeps a summary only when it holds this element, and only when
# it is smaller than the history was: the stage turn reports a large prompt.
SUMMARY = "<state_snapshot>\nThe task TUNE-0032 was planned.\n</state_snapshot>"
STAGE_PROMPT_TOKENS = 5000


def large_stage_turn(agent: Qwen, session: StreamJson) -> None:
    """The stage turn (e2ekit.session_stage_turn), its prompt reported large."""
    agent.box.api.prompt_tokens = STAGE_PROMPT_TOKENS
    session_stage_turn(agent, session)
    agent.box.api.prompt_tokens = 10


def command_hands_the_next_prompt_the_replay(
    sandbox: Sandbox, impl: str, command: str, reply: str, result: str
) -> None:
    """The stage turn, then `command` (answered with reply; Qwen's result
    message begins with result), then `carry on`, in one session."""
    agent = with_hooks(Qwen(sandbox), impl)
    with agent.session() as session:
        large_stage_turn(agent, session)
        done = session.say(command, reply)
        assert done.result.get("subtype") == "success", done.result
        assert done.result.get("result", "").startswith(result), done.result
        # The turn's own request is the first; the memory extraction's follows.
        next_prompt_gets_the_replay(agent, session)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_qwen_clear_hands_the_next_prompt_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    command_hands_the_next_prompt_the_replay(sandbox, impl, "/clear", "unused", "Context cleared.")


@pytest.mark.parametrize("impl", IMPLS)
def test_qwen_compress_hands_the_next_prompt_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    command_hands_the_next_prompt_the_replay(
        sandbox, impl, "/compress", SUMMARY, "Context compressed ("
    )
