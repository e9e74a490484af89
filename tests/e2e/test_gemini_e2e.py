"""What only Gemini CLI 0.61.0 does, with this repository's hooks (docs/e2e.md,
issue 22): the extension plugins/datarim-snapshots (the bash hooks), installed
as an operator installs it, and the Python port's `install-hooks --runtime
gemini` (the Gemini class of gemini_qwen_kit.py). Its stage turn (the
/dr-plan custom command), plain turns, `--resume latest` and version are
test_hooks_e2e.py's, as every CLI's.

An interactive /clear hands the replay over at the next prompt (BeforeAgent),
since Gemini drops SessionStart's context after /clear.
"""

from __future__ import annotations

import pytest
from e2ekit import Sandbox, after_the_stage_turn, assert_carries_the_replay, with_hooks
from gemini_qwen_kit import Gemini

IMPLS = ["bash", "python"]


@pytest.mark.parametrize("impl", IMPLS)
def test_gemini_clear_hands_the_next_prompt_the_replay_prompt(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Gemini(sandbox), impl)
    replay = after_the_stage_turn(agent)
    requests = agent.clear_then("carry on", "Carrying on.")
    contexts = [text for request in requests for text in agent.hook_context(request)]
    assert_carries_the_replay(contexts, replay, "the first request after /clear")
    # Handed over once: the pending resume is spent.
    pending = sandbox.home / ".local" / "state" / "datarim" / "resume"
    assert not any(pending.iterdir())
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()
