"""The shared conformance corpus against the Python port: its command and its in-process API."""

from __future__ import annotations

import pytest
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
