"""Gemini CLI 0.61.0 with this repository's hooks (docs/e2e.md, issue 22):
the extension plugins/datarim-snapshots (the bash hooks), installed as an operator
installs it, and the Python port's `install-hooks --runtime gemini`.

(a) a stage turn (the /dr-plan custom command) writes the task's snapshot,
    byte for byte what emit writes from AfterAgent's prompt_response;
(b) a plain turn leaves it as it was;
(c) `--resume latest` hands the model the replay prompt (SessionStart);
(d) an interactive /clear hands it over at the next prompt (BeforeAgent),
    since Gemini drops SessionStart's context after /clear.
"""

from __future__ import annotations

import json

import pytest
from e2ekit import REPO, Sandbox, resume_text
from gemini_qwen_kit import (
    Gemini,
    assert_plain_turns_leave_the_snapshot,
    assert_resume_hands_over_the_replay,
    stage_turn,
    the_cli_version,
    with_hooks,
)
from test_hooks_e2e import assert_stage_snapshot

IMPLS = ["bash", "python"]


@pytest.mark.parametrize("impl", IMPLS)
def test_gemini_stage_turn_writes_the_snapshot(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Gemini, sandbox, impl)
    stage_turn(agent)
    assert_stage_snapshot(sandbox, agent)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_gemini_plain_turn_leaves_the_snapshot_untouched(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Gemini, sandbox, impl)
    stage_turn(agent)
    assert_plain_turns_leave_the_snapshot(agent, assert_stage_snapshot(sandbox, agent))
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_gemini_resume_hands_the_model_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Gemini, sandbox, impl)
    stage_turn(agent)
    assert_resume_hands_over_the_replay(agent)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_gemini_clear_hands_the_next_prompt_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Gemini, sandbox, impl)
    stage_turn(agent)
    replay = resume_text(sandbox.ws)
    requests = agent.clear_then("carry on", "Carrying on.")
    contexts = [agent.hook_context(request) for request in requests]
    assert any(replay in text for texts in contexts for text in texts), (
        "the first request after /clear lacks the replay prompt:\n" + replay
    )
    # Handed over once: the pending resume is spent.
    pending = sandbox.home / ".local" / "state" / "datarim" / "resume"
    assert not any(pending.iterdir())
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


def test_gemini_is_the_pinned_version(sandbox: Sandbox) -> None:
    pinned = json.loads((REPO / "tests" / "e2e" / "package.json").read_text())["dependencies"]
    assert the_cli_version(Gemini(sandbox)) == pinned["@google/gemini-cli"]
