"""The texts both implementations print ship inside the Python package.

They live once, in scripts/lib/text. Built the way `python -m build` builds
(the sdist from the tree, then the wheel from the unpacked sdist, where the
repository is out of reach) and straight from the tree, every distribution
must carry each of them byte for byte, and an installed wheel must read its
own copy.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TEXTS = {path.name: path.read_bytes() for path in (REPO / "scripts" / "lib" / "text").iterdir()}


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
        "import datarim_snapshot.texts as t, sys; "
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
