"""The shared conformance corpus against the Python port: its command and its in-process API."""

from __future__ import annotations

import pytest
from conformance import (
    SUITES as SUITES_DIR,
)
from conformance import (
    Case,
    corpus_problems,
    known_failures,
    load_cases,
    mismatches,
    python_command_runner,
    python_inprocess_runner,
    run_case,
)

CASES = load_cases()
KNOWN = known_failures()


def test_corpus_is_well_formed() -> None:
    assert corpus_problems() == []


def test_corpus_is_not_empty() -> None:
    assert len(CASES) > 50


def _check(case: Case, impl: str, problems: list[str]) -> None:
    if f"{impl} {case.id}" in KNOWN:
        assert problems, f"{case.id} is listed as a known failure of {impl} but passes: unlist it"
        pytest.xfail("listed in known-failures.txt")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_python_command(case: Case) -> None:
    _check(case, "python", mismatches(case, run_case(case, python_command_runner())))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_python_api(case: Case) -> None:
    _check(case, "python", mismatches(case, run_case(case, python_inprocess_runner())))


def test_failsafe_an_implementation_that_does_nothing_fails_the_corpus() -> None:
    """Proves the suite can fail: `true` exits 0, prints nothing, writes nothing."""
    from conformance import run_subprocess

    noop = run_subprocess(["true"])
    passing = [case.id for case in CASES if not mismatches(case, run_case(case, noop))]
    # Only cases whose whole expectation is "exit 0, no output, nothing written" may pass.
    for case_id in passing:
        case = next(c for c in CASES if c.id == case_id)
        assert (case.path / "expect" / "exit").read_text().strip() == "0"
        assert not (case.path / "expect" / "files").exists()
    assert len(passing) < len(CASES) / 10


def test_corpus_needs_no_empty_directories() -> None:
    """git keeps no empty directory: a case that needs one must make it in its setup."""
    empty = [
        str(path.relative_to(SUITES_DIR))
        for path in SUITES_DIR.rglob("*")
        if path.is_dir() and not any(path.iterdir())
    ]
    assert empty == []
