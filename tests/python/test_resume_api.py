"""The typed API (replay_prompt, resume_output) against the replay and resume corpus.

Every case that names its task and root is replayed through the API in its
sandbox: a printed prompt must be the case's expected stdout byte for byte,
and the silent exits 1 and 2 must be MissingError and MalformedError.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conformance import Case, case_args, case_env, load_cases, sandbox_for
from datarim_snapshot import MalformedError, MissingError, replay_prompt, resume_output


def _flags(args: list[str]) -> dict[str, str]:
    flags: dict[str, str] = {}
    i = 0
    while i < len(args):
        if args[i] in ("--json", "--hint"):
            flags[args[i][2:]] = "1"
            i += 1
        else:
            flags[args[i][2:]] = args[i + 1] if i + 1 < len(args) else ""
            i += 2
    return flags


def _api_cases(suite: str, skip_json: bool = False) -> list[Case]:
    """Cases naming task and root, without --hint (and --json, the command's format)."""
    chosen = []
    for case in load_cases():
        if case.suite.name != suite:
            continue
        text = (case.path / "args").read_text()
        code = int((case.path / "expect" / "exit").read_text())
        if skip_json and "--json" in text:
            continue
        if "--task\n" in text and "--root\n" in text and "--hint" not in text and code in (0, 1, 2):
            chosen.append(case)
    return chosen


@pytest.mark.parametrize("case", _api_cases("replay", skip_json=True), ids=lambda c: c.id)
def test_replay_prompt_api(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    code = int((case.path / "expect" / "exit").read_text())
    with sandbox_for(case) as sandbox:
        flags = _flags(case_args(case, sandbox))
        for name, value in case_env(case, sandbox).items():  # e.g. DATARIM_SNAPSHOT_GIT
            monkeypatch.setenv(name, value)

        def call() -> bytes:
            prompt = replay_prompt(flags["task"], flags["root"], flags.get("option"))
            return prompt.encode("utf-8", "surrogateescape")

        if code == 1:
            with pytest.raises(MissingError):
                call()
        elif code == 2:
            with pytest.raises(MalformedError):
                call()
        else:
            assert call() == (case.path / "expect" / "stdout").read_bytes()


@pytest.mark.parametrize("case", _api_cases("resume"), ids=lambda c: c.id)
def test_resume_output_api(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    code = int((case.path / "expect" / "exit").read_text())
    with sandbox_for(case) as sandbox:
        flags = _flags(case_args(case, sandbox))
        for name, value in case_env(case, sandbox).items():
            monkeypatch.setenv(name, value)
        output = resume_output("json" if "json" in flags else "text", flags["root"], flags["task"])
        if code == 1:
            assert output is None
        else:
            assert output == Path(case.path / "expect" / "stdout").read_bytes()
