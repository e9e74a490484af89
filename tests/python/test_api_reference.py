"""docs/api.md is the docstrings' page (tests/tools/api_reference.py), and what
it shows works: its examples run, and so does the typed example caller."""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import datarim_snapshot
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "tools"))

import api_reference  # noqa: E402 (found through the path set above)


def test_the_committed_page_is_the_generated_one() -> None:
    assert (REPO / "docs" / "api.md").read_text("utf-8") == api_reference.page(), (
        "docs/api.md is stale: python tests/tools/api_reference.py"
    )


def test_the_pages_examples_run_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "datarim").mkdir()
    monkeypatch.chdir(tmp_path)
    # A blank line before each closing fence: doctest would read the fence as output.
    text = (REPO / "docs" / "api.md").read_text("utf-8").replace("\n```\n", "\n\n```\n")
    names = {name: getattr(datarim_snapshot, name) for name in datarim_snapshot.__all__}
    test = doctest.DocTestParser().get_doctest(
        text, {**names, "workspace": tmp_path}, "docs/api.md", "docs/api.md", 0
    )
    assert len(test.examples) >= 5  # the page's examples were found
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, "an example of docs/api.md fails (output above)"


def test_the_example_caller_runs(tmp_path: Path) -> None:
    (tmp_path / "datarim").mkdir()
    result = subprocess.run(
        [sys.executable, str(REPO / "tests" / "python" / "api_example.py"), str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == "/dr-do 1 /dr-do TUNE-0032 — build it\nrefused (1): invalid task\n"
