"""A writer under a tiny limit of open files (`ulimit -n 6`), both implementations.

Under it bash could not open its lock's owner file, took that for another
writer's lock, waited out the whole timeout, said "lock busy" and left the
lock directory behind. Now each writer (write, emit, session-write) checks
the limit before it makes anything: exit 1 at once, one line saying what is
short, the same bytes from both, and every file as it was. A limit of 16 is
enough (the corpus runs pass under 10; the check leaves room).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conformance import Implementation, command_runner, find_case, implementation, run_case

CASES = {
    "write/writes-contract-example": "snapshot-writer",
    "emit/writes-an-english-block": "emit-stage-snapshot",
    "session-write/writes-first-block": "session-handoff-writer",
}


def _limited(impl: str, limit: int, scratch: Path) -> Implementation:
    wrapper = scratch / f"ulimit-{limit}"
    wrapper.write_text(f'#!/bin/sh\nulimit -n {limit} || exit 99\nexec "$@"\n')
    wrapper.chmod(0o755)
    base = implementation(impl)
    return Implementation(impl, {k: f"{wrapper} {v}" for k, v in base.templates.items()})


@pytest.mark.parametrize("impl", ["bash", "python"])
@pytest.mark.parametrize("case_id", CASES)
def test_too_few_descriptors_is_said_at_once(case_id: str, impl: str, tmp_path: Path) -> None:
    case = find_case(case_id)
    assert case is not None
    untouched = run_case(case, command_runner(Implementation("none", {"*": "true"}))).tree
    runner = command_runner(_limited(impl, 6, tmp_path))
    started = time.monotonic()
    outcome = run_case(case, runner)
    elapsed = time.monotonic() - started
    program = CASES[case_id]
    want = f"{program}: too few file descriptors: the limit is 6 (ulimit -n), a write needs 16\n"
    assert (outcome.exit, outcome.stdout, outcome.stderr) == (1, b"", want.encode())
    assert outcome.files == outcome.before  # nothing changed
    assert outcome.tree == untouched  # nothing made: no lock, no directory
    assert elapsed < 20  # the lock timeout is 60 s: no wait


@pytest.mark.parametrize("impl", ["bash", "python"])
def test_sixteen_descriptors_are_enough(impl: str, tmp_path: Path) -> None:
    case = find_case("write/writes-contract-example")
    assert case is not None
    outcome = run_case(case, command_runner(_limited(impl, 16, tmp_path)))
    assert outcome.exit == 0, outcome.stderr
