"""Qwen Code 0.24.4 with this repository's hooks (docs/e2e.md, issue 22): the
Claude Code plugin converted by `qwen extensions install <marketplace>:datarim-snapshots`
(the bash hooks), and the Python port's `install-hooks --runtime qwen`.

(a) a stage turn (the /dr-plan custom command: Qwen hands UserPromptSubmit the
    command's text in prompt, the typed command in submitted_prompt) writes
    the task's snapshot, byte for byte what emit writes from the answer;
(b) a plain turn leaves it as it was;
(c) `qwen -c` (SessionStart resume) hands the model the replay prompt.
"""

from __future__ import annotations

import json

import pytest
from e2ekit import REPO, STAGE_ANSWER, Sandbox, resume_text
from gemini_qwen_kit import Qwen, the_cli_version
from test_hooks_e2e import OTHER_ANSWER, assert_stage_snapshot

IMPLS = ["bash", "python"]


def qwen_with_hooks(sandbox: Sandbox, impl: str) -> Qwen:
    agent = Qwen(sandbox)
    agent.install_hooks(impl)
    return agent


def stage_turn(agent: Qwen) -> None:
    run = agent.turn(agent.stage_prompt, STAGE_ANSWER)
    assert run.stdout.strip() == STAGE_ANSWER.strip(), str(run)
    # Qwen expanded the custom command: its text reached the model.
    # The turn's own request is the first: after it, Qwen asks the model in the
    # background to extract memories from the conversation.
    assert any(agent.command_text in text for text in agent.context_of(run.requests[0])), (
        "no /dr-plan command"
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_qwen_stage_turn_writes_the_snapshot(sandbox: Sandbox, impl: str) -> None:
    agent = qwen_with_hooks(sandbox, impl)
    stage_turn(agent)
    assert_stage_snapshot(sandbox, agent)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_qwen_plain_turn_leaves_the_snapshot_untouched(sandbox: Sandbox, impl: str) -> None:
    agent = qwen_with_hooks(sandbox, impl)
    stage_turn(agent)
    before = assert_stage_snapshot(sandbox, agent)
    mtime = sandbox.snapshot.stat().st_mtime_ns
    agent.turn("thanks, what is left to do?", OTHER_ANSWER)
    agent.resume("and after that?", OTHER_ANSWER)
    assert sandbox.snapshot.read_bytes() == before
    assert sandbox.snapshot.stat().st_mtime_ns == mtime
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_qwen_resume_hands_the_model_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    agent = qwen_with_hooks(sandbox, impl)
    stage_turn(agent)
    replay = resume_text(sandbox.ws)
    run = agent.resume("carry on", "Carrying on.")
    assert any(replay in text for text in agent.hook_context(run.requests[0])), (
        "the resumed session's model request lacks the replay prompt:\n" + replay
    )
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


def test_qwen_is_the_pinned_version(sandbox: Sandbox) -> None:
    pinned = json.loads((REPO / "tests" / "e2e" / "package.json").read_text())["dependencies"]
    assert the_cli_version(Qwen(sandbox)) == pinned["@qwen-code/qwen-code"]
