"""The hooks in the real CLIs (docs/e2e.md): Claude Code, Codex, Gemini CLI,
Qwen Code, GitHub Copilot CLI and opencode, each with the bash hooks and with
the Python port's, installed into a fresh HOME (install-hooks; the bash hooks
of Gemini and Qwen as their extensions), every turn answered by the fake
model API.

(a) a stage turn whose answer ends in a CTA block writes the task's snapshot;
(b) a plain turn leaves it as it was, byte for byte;
(c) a resumed session hands the model the snapshot's replay prompt;
(d) each CLI is the version pinned in tests/e2e/package.json.

What only some CLIs do (/clear, compaction) is in their own test files.
"""

from __future__ import annotations

import json

import pytest
from copilot_opencode_kit import Copilot, Opencode
from e2ekit import (
    OTHER_ANSWER,
    REPO,
    Agent,
    Claude,
    Codex,
    Sandbox,
    assert_stage_snapshot,
    hands_over_the_replay,
    resume_text,
    stage_turn,
)
from gemini_qwen_kit import Gemini, Qwen

AGENTS: dict[str, type[Agent]] = {
    cli.name: cli for cli in (Claude, Codex, Gemini, Qwen, Copilot, Opencode)
}
COMBINATIONS = [(cli, impl) for cli in AGENTS for impl in ("bash", "python")]
IDS = [f"{cli}-{impl}" for cli, impl in COMBINATIONS]


def agent_with_hooks(sandbox: Sandbox, cli: str, impl: str) -> Agent:
    agent = AGENTS[cli](sandbox)
    agent.install_hooks(impl)
    return agent


@pytest.mark.parametrize(("cli", "impl"), COMBINATIONS, ids=IDS)
def test_stage_turn_writes_the_snapshot(sandbox: Sandbox, cli: str, impl: str) -> None:
    agent = agent_with_hooks(sandbox, cli, impl)
    assert not sandbox.snapshot.exists()
    stage_turn(agent)
    assert_stage_snapshot(sandbox, agent)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize(("cli", "impl"), COMBINATIONS, ids=IDS)
def test_plain_turn_leaves_the_snapshot_untouched(sandbox: Sandbox, cli: str, impl: str) -> None:
    agent = agent_with_hooks(sandbox, cli, impl)
    stage_turn(agent)
    before = assert_stage_snapshot(sandbox, agent)
    stat = sandbox.snapshot.stat()
    # A new session, and a turn of the stage's own session: neither is a stage
    # command, though both answers end in a CTA block.
    agent.assert_answered(agent.turn("thanks, what is left to do?", OTHER_ANSWER), OTHER_ANSWER)
    agent.assert_answered(agent.resume("and after that?", OTHER_ANSWER), OTHER_ANSWER)
    assert sandbox.snapshot.read_bytes() == before
    assert sandbox.snapshot.stat().st_mtime_ns == stat.st_mtime_ns
    # The snapshot and the stage turn's task (.last-task, spec §9): no temp file left.
    names = sorted(p.name for p in sandbox.snapshot.parent.iterdir())
    assert names == [".last-task", sandbox.snapshot.name]
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize(("cli", "impl"), COMBINATIONS, ids=IDS)
def test_resume_hands_the_model_the_replay_prompt(sandbox: Sandbox, cli: str, impl: str) -> None:
    agent = agent_with_hooks(sandbox, cli, impl)
    first = stage_turn(agent)
    assert_stage_snapshot(sandbox, agent)
    replay = resume_text(sandbox.ws)
    assert "Plan ready: 4 steps, 2 risks" in replay  # the snapshot's body
    # A fresh session starts without it (SessionStart prints nothing on startup).
    assert not any(replay in text for text in agent.context_of(agent.own_request(first)))
    hands_over_the_replay(agent, agent.resume, replay)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize("cli", AGENTS)
def test_the_clis_are_the_pinned_versions(sandbox: Sandbox, cli: str) -> None:
    """The suite's findings hold for these versions (tests/e2e/package.json)."""
    pinned = json.loads((REPO / "tests" / "e2e" / "package.json").read_text())["dependencies"]
    agent = AGENTS[cli](sandbox)
    assert agent.version() == agent.version_line.format(pinned[agent.package])
