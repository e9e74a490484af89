"""Qwen Code 0.24.4 with this repository's hooks (docs/e2e.md, issue 22): the
Claude Code plugin converted by `qwen extensions install <marketplace>:datarim-snapshots`
(the bash hooks), and the Python port's `install-hooks --runtime qwen`.

(a) a stage turn (the /dr-plan custom command: Qwen hands UserPromptSubmit the
    command's text in prompt, the typed command in submitted_prompt) writes
    the task's snapshot, byte for byte what emit writes from the answer;
(b) a plain turn leaves it as it was;
(c) `qwen -c` (SessionStart resume) hands the model the replay prompt;
(d) `/clear` and `/compress` in the middle of a session (SessionStart clear,
    compact) hand the next prompt's request the replay prompt. One Qwen
    process fed its messages as stream-json, as its SDK drives it: the same
    slash commands an operator types, without a terminal.
"""

from __future__ import annotations

import json

import pytest
from e2ekit import REPO, STAGE_ANSWER, Sandbox, resume_text
from gemini_qwen_kit import (
    Qwen,
    QwenSession,
    assert_plain_turns_leave_the_snapshot,
    assert_resume_hands_over_the_replay,
    stage_turn,
    the_cli_version,
    with_hooks,
)
from test_hooks_e2e import assert_stage_snapshot

IMPLS = ["bash", "python"]


@pytest.mark.parametrize("impl", IMPLS)
def test_qwen_stage_turn_writes_the_snapshot(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Qwen, sandbox, impl)
    stage_turn(agent)
    assert_stage_snapshot(sandbox, agent)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_qwen_plain_turn_leaves_the_snapshot_untouched(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Qwen, sandbox, impl)
    stage_turn(agent)
    assert_plain_turns_leave_the_snapshot(agent, assert_stage_snapshot(sandbox, agent))
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_qwen_resume_hands_the_model_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Qwen, sandbox, impl)
    stage_turn(agent)
    assert_resume_hands_over_the_replay(agent)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


# Qwen's /compress keeps a summary only when it holds this element, and only when
# it is smaller than the history was: the stage turn reports a large prompt.
SUMMARY = "<state_snapshot>\nThe task TUNE-0032 was planned.\n</state_snapshot>"
STAGE_PROMPT_TOKENS = 5000


def session_stage_turn(agent: Qwen, session: QwenSession) -> None:
    """The operator's /dr-plan TUNE-0032 in the session: the snapshot written,
    and no replay handed over yet (a fresh session, SessionStart startup)."""
    agent.box.api.prompt_tokens = STAGE_PROMPT_TOKENS
    said = session.say(agent.stage_prompt, STAGE_ANSWER)
    agent.box.api.prompt_tokens = 10
    assert said.result.get("result", "").strip() == STAGE_ANSWER.strip(), said.result
    assert any(agent.command_text in text for text in agent.context_of(said.requests[0]))
    assert not any(agent.hook_context(request) for request in said.requests)
    assert_stage_snapshot(agent.box, agent)


def assert_next_prompt_gets_the_replay(agent: Qwen, session: QwenSession) -> None:
    replay = resume_text(agent.box.ws)
    said = session.say("carry on", "Carrying on.")
    assert said.result.get("result") == "Carrying on.", said.result
    # The turn's own request is the first; the memory extraction's follows.
    assert any(replay in text for text in agent.hook_context(said.requests[0])), (
        "the first request after the command lacks the replay prompt:\n" + replay
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_qwen_clear_hands_the_next_prompt_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Qwen, sandbox, impl)
    with agent.session() as session:
        session_stage_turn(agent, session)
        cleared = session.say("/clear", "unused")
        assert cleared.result.get("subtype") == "success", cleared.result
        assert cleared.result.get("result", "").startswith("Context cleared."), cleared.result
        assert_next_prompt_gets_the_replay(agent, session)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_qwen_compress_hands_the_next_prompt_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Qwen, sandbox, impl)
    with agent.session() as session:
        session_stage_turn(agent, session)
        compressed = session.say("/compress", SUMMARY)
        assert compressed.result.get("subtype") == "success", compressed.result
        assert compressed.result.get("result", "").startswith("Context compressed ("), (
            compressed.result
        )
        assert_next_prompt_gets_the_replay(agent, session)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


def test_qwen_is_the_pinned_version(sandbox: Sandbox) -> None:
    pinned = json.loads((REPO / "tests" / "e2e" / "package.json").read_text())["dependencies"]
    assert the_cli_version(Qwen(sandbox)) == pinned["@qwen-code/qwen-code"]
