"""What only GitHub Copilot CLI does, with this repository's hooks (docs/e2e.md,
docs/agent-runtimes.md), the bash hooks and the Python port's, installed by
`install-hooks --runtime copilot` into a fresh HOME's ~/.copilot/settings.json
(the Copilot class of copilot_opencode_kit.py). Its stage turn, plain turns,
resume and version are test_hooks_e2e.py's, as every CLI's.

(a) a new session right after the stage turn (what /clear starts: source
    "new") hands the model the replay;
(b) without the OpenTelemetry file the stage turn writes nothing and says why;
(c) after `/compact` (PreCompact, and no SessionStart after it) the next
    prompt of the same session hands the model the replay: Copilot driven
    through its Agent Client Protocol server (`copilot --acp`), one session
    taking prompts and slash commands as its interactive mode does; and
    `copilot --continue -p /compact`, then `--continue -p`: the replay once.
"""

from __future__ import annotations

import pytest
from copilot_opencode_kit import AcpSession, Copilot
from e2ekit import (
    Sandbox,
    after_the_stage_turn,
    hands_over_the_replay,
    stage_turn,
    with_hooks,
)

IMPLS = ("bash", "python")


@pytest.mark.parametrize("impl", IMPLS)
def test_new_session_after_a_stage_turn_hands_the_model_the_replay(
    sandbox: Sandbox, impl: str
) -> None:
    """/clear starts a new session, source "new", as a fresh start does: right
    after a stage turn of the workspace it resumes (docs/agent-runtimes.md)."""
    agent = with_hooks(Copilot(sandbox), impl)
    replay = after_the_stage_turn(agent)
    hands_over_the_replay(agent, agent.turn, replay)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_without_the_otel_file_the_stage_turn_says_why(sandbox: Sandbox, impl: str) -> None:
    agent = with_hooks(Copilot(sandbox, otel=False), impl)
    stage_turn(agent)
    assert not sandbox.snapshot.exists()
    log = sandbox.hooks_log.read_text()
    # Without its exporter Copilot sends no traceparent either.
    assert log.endswith(
        "stop-hook /dr-plan: no last_assistant_message, and no traceparent (Copilot's"
        " OpenTelemetry file is off: docs/agent-runtimes.md); nothing written\n"
    ), log
    assert log.count("\n") == 1, log
    sandbox.assert_offline()


# The summary /compact gets from the fake model: it holds no replay.
SUMMARY = "The operator planned TUNE-0032."


@pytest.mark.parametrize("impl", IMPLS)
def test_compact_hands_the_next_prompt_the_replay(sandbox: Sandbox, impl: str) -> None:
    """Copilot follows a compaction with no SessionStart: PreCompact keeps the
    resume, and the next prompt's hook hands it over (a <system_reminder> of
    that prompt's user message)."""
    agent = with_hooks(Copilot(sandbox), impl)
    replay = after_the_stage_turn(agent)
    with AcpSession(agent) as session:
        session.prompt("what is next?", "Next is the design.")
        compaction = session.prompt("/compact", SUMMARY)
        assert any("summary of the conversation" in t for t in agent.context_of(compaction[0]))
        after = session.prompt("carry on", "Carrying on.")
    # The first request after the compaction: the summary, then the prompt
    # with the hook's context.
    prompt = agent.hook_context(after[0])[-1]
    assert prompt.endswith("</system_reminder>") and "carry on" in prompt, prompt
    assert replay in prompt, "the prompt after /compact lacks the replay prompt:\n" + replay
    assert not any(replay in text for text in agent.hook_context(after[0])[:-1])
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("impl", IMPLS)
def test_compact_then_continue_hands_the_replay_once(sandbox: Sandbox, impl: str) -> None:
    """`copilot --continue -p /compact` keeps the resume; the next `--continue`
    run's SessionStart (resume) hands the replay over and drops it, so that
    its prompt does not carry it a second time."""
    agent = with_hooks(Copilot(sandbox), impl)
    replay = after_the_stage_turn(agent)
    compacted = agent.resume("/compact", SUMMARY)
    assert compacted.stdout.startswith("Compacted conversation history"), str(compacted)
    run = hands_over_the_replay(agent, agent.resume, replay)
    carried = [text for text in agent.hook_context(agent.own_request(run)) if replay in text]
    assert len(carried) == 1, f"the replay {len(carried)} times, not once"
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()
