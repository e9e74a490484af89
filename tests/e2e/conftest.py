"""Fixtures of the end-to-end suite (docs/e2e.md); the kit is e2ekit.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from e2ekit import NODE_BIN, Sandbox, knowledge_base
from fake_model_api import FakeModelAPI


@pytest.fixture
def api() -> Iterator[FakeModelAPI]:
    if not (NODE_BIN / "claude").exists() or not (NODE_BIN / "codex").exists():
        pytest.fail(f"no claude and codex in {NODE_BIN}: run `make e2e` (it installs them)")
    with FakeModelAPI() as server:
        yield server


@pytest.fixture
def sandbox(tmp_path: Path, api: FakeModelAPI) -> Sandbox:
    box = Sandbox(tmp_path, api)
    box.home.mkdir()
    (tmp_path / "tmp").mkdir()
    knowledge_base(box.ws)
    return box
