"""The texts both implementations print ship inside the Python package.

They live once, in scripts/lib/text. Built the way `python -m build` builds
(the sdist from the tree, then the wheel from the unpacked sdist, where the
repository is out of reach) and straight from the tree, every distribution
must carry each of them byte for byte, and an installed wheel must read its
own copy. The one product version, scripts/lib/text/version.txt, is the one
every package and plugin manifest carries.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TEXTS = {path.name: path.read_bytes() for path in (REPO / "scripts" / "lib" / "text").iterdir()}
VERSION = (REPO / "scripts" / "lib" / "text" / "version.txt").read_text("ascii").rstrip("\n")


def _build(target: str, project: Path, out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", target, "-d", str(out)],
        cwd=project,
        check=True,
        capture_output=True,
        timeout=120,
    )
    (built,) = out.iterdir()
    return built


def _wheel_texts(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        prefix = "datarim_snapshot/text/"
        return {
            name[len(prefix) :]: archive.read(name)
            for name in archive.namelist()
            if name.startswith(prefix)
        }


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build("sdist", REPO / "python", tmp_path_factory.mktemp("sdist"))


def test_the_sdist_carries_the_texts(sdist: Path) -> None:
    with tarfile.open(sdist) as archive:
        prefix = f"{sdist.name[: -len('.tar.gz')]}/src/datarim_snapshot/text/"
        found = {}
        for member in archive.getmembers():
            if member.name.startswith(prefix):
                handle = archive.extractfile(member)
                assert handle is not None
                found[member.name[len(prefix) :]] = handle.read()
    assert found == TEXTS


def test_a_wheel_built_from_the_sdist_carries_the_texts(sdist: Path, tmp_path: Path) -> None:
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "unpacked")  # noqa: S202 (our own sdist)
    (project,) = (tmp_path / "unpacked").iterdir()
    wheel = _build("wheel", project, tmp_path / "wheel")
    assert _wheel_texts(wheel) == TEXTS


def test_a_wheel_built_from_the_tree_carries_the_texts_and_reads_its_own(tmp_path: Path) -> None:
    wheel = _build("wheel", REPO / "python", tmp_path / "wheel")
    assert _wheel_texts(wheel) == TEXTS
    target = tmp_path / "installed"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)  # a pure wheel installs as its files
    # -S: no site-packages, so no editable install of the tree either.
    probe = (
        "import datarim_snapshot._texts as t, sys; "
        "sys.stdout.buffer.write(t.__file__.encode() + b'\\n'); "
        "sys.stdout.buffer.write(t.text_bytes('replay-instructions.txt'))"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", probe],
        env=dict(os.environ, PYTHONPATH=str(target)),
        cwd=tmp_path,
        capture_output=True,
        check=True,
        timeout=60,
    )
    where, text = done.stdout.split(b"\n", 1)
    assert where.startswith(os.fsencode(target)) and text == TEXTS["replay-instructions.txt"]
    version = subprocess.run(
        [sys.executable, "-S", "-m", "datarim_snapshot", "--version"],
        env=dict(os.environ, PYTHONPATH=str(target)),
        cwd=tmp_path,
        capture_output=True,
        check=True,
        timeout=60,
    )
    assert version.stdout == b"datarim-snapshot " + TEXTS["version.txt"]
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        assert f"\nVersion: {VERSION}\n".encode() in archive.read(metadata)


def _versions_in(document: object) -> list[str]:
    """Every "version" value in a JSON document, at any depth."""
    if isinstance(document, dict):
        found = [document["version"]] if "version" in document else []
        return found + [v for value in document.values() for v in _versions_in(value)]
    if isinstance(document, list):
        return [v for value in document for v in _versions_in(value)]
    return []


def test_every_manifest_carries_the_version_of_version_txt() -> None:
    assert re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", VERSION)
    project = (REPO / "python" / "pyproject.toml").read_text(encoding="utf-8")
    in_project = project.split("\n[project]\n", 1)[1].split("\n[", 1)[0]
    assert re.findall(r'^version = "([^"]*)"', in_project, re.MULTILINE) == [VERSION]
    init = (REPO / "python" / "src" / "datarim_snapshot" / "__init__.py").read_text("utf-8")
    assert re.findall(r'^__version__ = "([^"]*)"', init, re.MULTILINE) == [VERSION]
    plugin = json.loads((REPO / "plugins" / ".claude-plugin" / "plugin.json").read_text("utf-8"))
    assert plugin["version"] == VERSION
    extension_manifest = REPO / "plugins" / "datarim-snapshots" / "gemini-extension.json"
    extension = json.loads(extension_manifest.read_text())
    assert extension["version"] == VERSION
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text("utf-8"))
    assert all(found == VERSION for found in _versions_in(market))
