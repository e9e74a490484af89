"""The hooks in the real CLIs (docs/e2e.md): Claude Code and Codex, each with
the bash hooks and with the Python port's, installed by install-hooks into a
fresh HOME, every turn answered by the fake model API.

(a) a stage turn whose answer ends in a CTA block writes the task's snapshot;
(b) a plain turn leaves it as it was, byte for byte;
(c) a resumed session hands the model the snapshot's replay prompt.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from e2ekit import (
    AGENTS,
    OTHER_ANSWER,
    REPO,
    STAGE_ANSWER,
    TASK,
    Agent,
    Run,
    Sandbox,
    frontmatter,
    knowledge_base,
    resume_text,
)

COMBINATIONS = [(cli, impl) for cli in AGENTS for impl in ("bash", "python")]
IDS = [f"{cli}-{impl}" for cli, impl in COMBINATIONS]


def agent_with_hooks(sandbox: Sandbox, cli: str, impl: str) -> Agent:
    agent = AGENTS[cli](sandbox)
    agent.install_hooks(impl)
    return agent


def stage_turn(sandbox: Sandbox, agent: Agent) -> Run:
    """The operator's `/dr-plan TUNE-0032` (Codex: `$dr-plan TUNE-0032`)."""
    run = agent.turn(agent.stage_prompt, STAGE_ANSWER)
    assert run.stdout.strip() == STAGE_ANSWER.strip(), str(run)
    assert run.requests, "the CLI never asked the model"
    # The command reached the model as a command (its text expanded), so the
    # CLI took it as the operator types it.
    if agent.name == "claude":
        assert any(
            "<command-name>/dr-plan</command-name>" in text
            for text in agent.context_of(run.requests[-1])
        ), "no /dr-plan command"
    else:
        assert any(
            "Plan the task named after the mention" in text
            for text in agent.context_of(run.requests[-1])
        ), "no dr-plan skill"
    return run


def assert_stage_snapshot(sandbox: Sandbox, agent: Agent) -> bytes:
    """The snapshot of the stage turn: valid, and what emit makes of the answer."""
    assert sandbox.snapshot.is_file(), f"no {sandbox.snapshot}"
    check = subprocess.run(
        [
            str(REPO / "dev-tools" / "check-stage-snapshot-on-exit.sh"),
            "--task",
            TASK,
            "--root",
            str(sandbox.ws),
            "--validate-frontmatter",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 0, check.stderr
    text = sandbox.snapshot.read_text()
    fields = frontmatter(text)
    assert fields["task_id"] == TASK
    assert fields["stage"] == "plan"
    assert fields["command"] == "/dr-plan"
    assert fields["captured_by"] == "agent"
    assert fields["recommended_next"] == "/dr-design"
    assert fields["truncated"] == "false"
    # Byte for byte what emit-stage-snapshot writes from the answer as the CLI
    # hands it to the Stop hook.
    reference = sandbox.root / "reference"
    knowledge_base(reference)
    answer = sandbox.root / "answer.md"
    answer.write_text(agent.delivered(STAGE_ANSWER))
    emit = subprocess.run(
        [
            str(REPO / "dev-tools" / "emit-stage-snapshot.sh"),
            "--root",
            str(reference),
            "--task",
            TASK,
            "--stage",
            "plan",
            "--command",
            "/dr-plan",
            "--response-file",
            str(answer),
            "--captured-by",
            "agent",
            "--captured-at",
            fields["captured_at"],
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert emit.returncode == 0, emit.stderr
    expected = (reference / "datarim" / "snapshots" / f"{TASK}.snapshot.md").read_text()
    assert text == expected
    return sandbox.snapshot.read_bytes()


@pytest.mark.parametrize(("cli", "impl"), COMBINATIONS, ids=IDS)
def test_stage_turn_writes_the_snapshot(sandbox: Sandbox, cli: str, impl: str) -> None:
    agent = agent_with_hooks(sandbox, cli, impl)
    assert not sandbox.snapshot.exists()
    stage_turn(sandbox, agent)
    assert_stage_snapshot(sandbox, agent)
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


@pytest.mark.parametrize(("cli", "impl"), COMBINATIONS, ids=IDS)
def test_plain_turn_leaves_the_snapshot_untouched(sandbox: Sandbox, cli: str, impl: str) -> None:
    agent = agent_with_hooks(sandbox, cli, impl)
    stage_turn(sandbox, agent)
    before = assert_stage_snapshot(sandbox, agent)
    stat = sandbox.snapshot.stat()
    # A new session, and a turn of the stage's own session: neither is a stage
    # command, though both answers end in a CTA block.
    run = agent.turn("thanks, what is left to do?", OTHER_ANSWER)
    assert run.stdout.strip() == OTHER_ANSWER.strip(), str(run)
    run = agent.resume("and after that?", OTHER_ANSWER)
    assert run.stdout.strip() == OTHER_ANSWER.strip(), str(run)
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
    first = stage_turn(sandbox, agent)
    assert_stage_snapshot(sandbox, agent)
    replay = resume_text(sandbox.ws)
    assert "Plan ready: 4 steps, 2 risks" in replay  # the snapshot's body
    # A fresh session starts without it (SessionStart prints nothing on startup).
    assert not any(replay in text for text in agent.context_of(first.requests[-1]))
    run = agent.resume("carry on", "Carrying on.")
    assert run.stdout.strip() == "Carrying on.", str(run)
    texts = agent.hook_context(run.requests[-1])
    assert any(replay in text for text in texts), (
        "the resumed session's model request lacks the replay prompt:\n" + replay
    )
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()


def test_the_clis_are_the_pinned_versions(sandbox: Sandbox) -> None:
    """The suite's findings hold for these versions (tests/e2e/package.json)."""
    pinned = json.loads((REPO / "tests" / "e2e" / "package.json").read_text())["dependencies"]
    claude = AGENTS["claude"](sandbox).claude("--version")  # type: ignore[attr-defined]
    assert claude.stdout.strip() == f"{pinned['@anthropic-ai/claude-code']} (Claude Code)"
    codex = AGENTS["codex"](sandbox).codex("--version")  # type: ignore[attr-defined]
    assert codex.stdout.strip() == f"codex-cli {pinned['@openai/codex']}"
