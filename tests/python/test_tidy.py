"""The repository keeps itself tidy: what it tracks and what it cites.

- The tracked tree holds no runtime leftovers (a lock, a temporary file, a
  knowledge base the tools wrote while run in the repository, bytecode).
- Every repository path named in code, comments and docs exists; every
  `README "Heading"` citation names a heading of a README; every relative
  Markdown link reaches its file and, with a `#fragment`, a heading there.

The corpus's data (case roots, the reference's files kept as fixtures) is
quoted, not cited, and is not read.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# Data: files as users or the reference wrote them, cited as they are.
DATA_PREFIXES = (
    "tests/conformance/suites/",
    "tests/conformance/fixtures/",
    "tests/fixtures/",
)

# Paths a test names because they do not exist.
MEANT_MISSING = {
    "docs/gone.md",  # install.bats: the reference's probe of a file that is gone
    "docs/design.md",  # session-handoff.md: the example of a claim about a deleted file
}

TOP_FOLDERS = r"(?:scripts|dev-tools|python|tests|docs|plugins|\.ci|\.claude-plugin)"
# A path followed by a placeholder (`usage-<program>.txt`, `{ID}`) is a pattern, not a path.
PATH_CITATION = re.compile(
    r"(?<![\w./$-])(" + TOP_FOLDERS + r"/[A-Za-z0-9_./*-]*[A-Za-z0-9_*])(?![-\w]*[<{$])"
)
README_CITATION = re.compile(r"README[’']?s? \(?\"([^\"\n]+)\"")
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} +(.+?) *#* *$", re.MULTILINE)


def _tracked() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, check=True, capture_output=True, timeout=60
    ).stdout
    return [name for name in listed.decode("utf-8").split("\0") if name]


def _cited_files() -> list[tuple[str, str]]:
    """(path, text) of every tracked text file that is not data."""
    cited = []
    for name in _tracked():
        path = REPO / name
        if name.startswith(DATA_PREFIXES) or path.is_symlink() or not path.is_file():
            continue
        try:
            cited.append((name, path.read_text("utf-8")))
        except UnicodeDecodeError:
            continue
    return cited


def _exists(base: Path, cited: str) -> bool:
    """A path, or a glob pattern (`suites/write/redact*`) that matches something."""
    return any(base.glob(cited)) if "*" in cited else (base / cited).exists()


def _slug(heading: str) -> str:
    """The fragment a Markdown renderer (GitHub's rule) gives a heading."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _headings(path: Path) -> list[str]:
    return HEADING.findall(path.read_text("utf-8"))


def _anchors(path: Path) -> set[str]:
    return {_slug(heading) for heading in _headings(path)}


# What the tools leave in a workspace while they run or between runs: a lock
# (a folder, or a file's worth of one), a publish's temporary file, the Stop
# hook's records of a missed turn and of the last task.
RUNTIME_LEFTOVER = re.compile(
    r"(^|/)(\.lock\.[^/]+(/|$)|\.?tmp\.[^/]+$|\.missed\.[^/]+$|\.last-task$)"
)
# A conformance case's workspace before (root/) and after (expect/files/) it ran
# holds them on purpose: a case about a missed turn starts from its record.
CASE_WORKSPACE = re.compile(r"^tests/conformance/suites/[^/]+/[^/]+/(root|expect/files)/")


def test_the_tracked_tree_holds_no_runtime_leftovers() -> None:
    leftover = re.compile(r"(^|/)(__pycache__/|\.venv/|\.pytest_cache/)|\.pyc$|^datarim/")
    tracked = _tracked()
    found = [name for name in tracked if leftover.search(name)]
    found += [
        name for name in tracked if RUNTIME_LEFTOVER.search(name) and not CASE_WORKSPACE.match(name)
    ]
    assert found == []
    # The exemption is for fixtures that exist (a missed-turn record among them),
    # so that the pattern above is known to catch such names.
    deliberate = [name for name in tracked if RUNTIME_LEFTOVER.search(name)]
    assert any("/.missed." in name for name in deliberate)
    assert any(name.endswith("/.last-task") for name in deliberate)


@pytest.mark.parametrize("name,text", _cited_files(), ids=lambda value: str(value)[:60])
def test_every_cited_path_exists(name: str, text: str) -> None:
    here = (REPO / name).parent
    missing = sorted(
        {
            cited
            for cited in (match.rstrip(".") for match in PATH_CITATION.findall(text))
            if cited not in MEANT_MISSING and not _exists(REPO, cited) and not _exists(here, cited)
        }
    )
    assert missing == [], f"{name} cites paths that do not exist: {missing}"


def test_every_readme_section_cited_is_a_heading() -> None:
    headings = {
        h
        for readme in REPO.rglob("README.md")
        if ".venv" not in readme.parts and ".e2e" not in readme.parts
        for h in _headings(readme)
    }
    stale = [
        f'{name}: README "{section}"'
        for name, text in _cited_files()
        if name != "tests/python/test_tidy.py"  # its own examples
        for section in README_CITATION.findall(text)
        if section not in headings
    ]
    assert stale == []


def test_every_relative_markdown_link_reaches_its_target() -> None:
    broken = []
    for name, text in _cited_files():
        if not name.endswith(".md"):
            continue
        for target in MARKDOWN_LINK.findall(text):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue
            file_part, _, fragment = target.partition("#")
            linked = (REPO / name).parent / file_part if file_part else REPO / name
            if not linked.exists() or (
                fragment and linked.suffix == ".md" and fragment not in _anchors(linked)
            ):
                broken.append(f"{name}: {target}")
    assert broken == []


def test_the_package_modules_import_no_circle() -> None:
    """No module of the package imports, even lazily, one that imports it back."""
    import ast

    package = REPO / "python" / "src" / "datarim_snapshot"
    imports: dict[str, set[str]] = {}
    for source in package.glob("*.py"):
        found = imports.setdefault(source.stem, set())
        for node in ast.walk(ast.parse(source.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    found.add(node.module.split(".")[0])
                else:
                    found.update(alias.name for alias in node.names)
    circles = set()

    def walk(module: str, path: list[str]) -> None:
        for used in sorted(imports.get(module, set())):
            if used in path:
                circle = path[path.index(used) :]
                start = circle.index(min(circle))
                circles.add(" -> ".join(circle[start:] + circle[:start] + [min(circle)]))
            elif used in imports:
                walk(used, [*path, used])

    for module in sorted(imports):
        walk(module, [module])
    assert sorted(circles) == []
