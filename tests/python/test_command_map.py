"""Every list of the commands agrees with the command map (docs/commands.md).

scripts/lib/text/commands.txt names each command once; cli.py reads it, and
this test holds the rest to it: the corpus's mapping files and suites, the
bash entry points and the functions they call, the Python functions, the
usage texts, the README's table of entry points and the spec's class table.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from pathlib import Path

import conformance
import pytest
from datarim_snapshot import _cli as cli

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "tools"))
import command_docs  # noqa: E402 (found through the path set above)

CONFORMANCE = REPO / "tests" / "conformance"
MAP = cli.command_map()
NAMES = list(MAP)
# A command without a bash twin has "-" for its entry point and bash function,
# and no suite: the corpus is what both implementations meet.
TWINNED = [name for name, command in MAP.items() if command.script != "-"]


def _mapping(impl: str) -> dict[str, str]:
    lines = (CONFORMANCE / "impl" / f"{impl}.map").read_text("utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def _bash_functions() -> set[str]:
    defined = set()
    for library in (REPO / "scripts" / "lib").glob("*.sh"):
        defined.update(re.findall(r"^([a-z_]+)\(\) \{", library.read_text("utf-8"), re.MULTILINE))
    return defined


def test_the_map_names_each_command_once_with_every_field() -> None:
    lines = [
        line
        for line in (REPO / "scripts/lib/text/commands.txt").read_text("utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    assert len(lines) == len(MAP) > 0
    for command in MAP.values():
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", command.name)
        assert all(field for field in (command.script, command.bash_function, command.program))


def test_the_mapping_files_start_each_command_of_the_map() -> None:
    # One dispatcher line each, so a new command needs neither: bash runs the entry
    # point the map names, Python the subcommand of the command's name.
    assert _mapping("bash") == {"*": "{REPO}/dev-tools/{ENTRY}"}
    assert _mapping("python") == {"*": "{PYTHON} -m datarim_snapshot {COMMAND}"}
    bash = conformance.implementation("bash")
    for name in TWINNED:
        suite = conformance.Suite(name, name)
        assert bash.argv(suite) == [str(REPO / "dev-tools" / MAP[name].script)]


def test_each_command_has_its_suite_and_each_suite_a_command() -> None:
    suites = {
        (suite / "SUITE").read_text("utf-8").strip().removeprefix("command="): suite.name
        for suite in (CONFORMANCE / "suites").iterdir()
    }
    assert sorted(suites) == sorted(TWINNED)


@pytest.mark.parametrize("name", TWINNED)
def test_the_entry_point_calls_the_bash_function_of_the_map(name: str) -> None:
    command = MAP[name]
    entry = REPO / "dev-tools" / command.script
    assert os.access(entry, os.X_OK), f"{entry} is not executable"
    calls = re.findall(r"^(?:dr_main )?([a-z_]+) \"\$@\"", entry.read_text("utf-8"), re.MULTILINE)
    assert calls == [command.bash_function]
    assert command.bash_function in _bash_functions()


@pytest.mark.parametrize("name", NAMES)
def test_the_python_function_of_the_map_exists(name: str) -> None:
    command = MAP[name]
    module = importlib.import_module(f"datarim_snapshot.{command.module}")
    assert callable(getattr(module, command.function))


@pytest.mark.parametrize("name", NAMES)
def test_the_usage_text_of_the_program_exists_and_names_it(name: str) -> None:
    usage = REPO / "scripts" / "lib" / "text" / f"usage-{MAP[name].program}.txt"
    assert usage.read_text("utf-8").startswith("Usage: ")


def test_the_docs_tables_of_the_commands_are_the_maps() -> None:
    """The README's table and the spec's class cells are written from the map (make
    docs), so a new command's row is its line in the map."""
    readme = (REPO / "README.md").read_text("utf-8")
    spec = (REPO / "docs" / "spec.md").read_text("utf-8")
    assert command_docs.readme(readme, MAP) == readme, "README.md is stale: make docs"
    assert command_docs.spec(spec, MAP) == spec, "docs/spec.md is stale: make docs"
    rows = dict(re.findall(r"^\| `([a-z-]+\.sh)` \| `([a-z-]+)` \|", readme, re.MULTILINE))
    assert rows == {MAP[name].script: name for name in TWINNED}


def test_the_docs_generator_rewrites_a_stale_row() -> None:
    readme = (REPO / "README.md").read_text("utf-8")
    stale = readme.replace(MAP["next"].what, "an older description", 1)
    assert stale != readme
    assert command_docs.readme(stale, MAP) == readme


def test_the_spec_class_table_lists_each_command_under_its_class() -> None:
    spec = (REPO / "docs" / "spec.md").read_text("utf-8")
    table = re.findall(
        r"^\| (writer|reader|plain|hook|doctor|reverify) \| (.+?) \|",
        spec,
        re.MULTILINE,
    )
    listed = {
        name: failing for failing, names in table for name in re.findall(r"`([a-z-]+)`", names)
    }
    assert listed == {name: command.kind for name, command in MAP.items()}
    assert {failing for failing, _ in table} == set(cli.ON_FAILURE)
