"""The shared conformance corpus against the Python port (its command and its in-process
API), the corpus itself, and the two runners held to one contract."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conformance import (
    ESCAPES,
    IMPLS,
    REPO,
    Case,
    Implementation,
    Outcome,
    Suite,
    case_problems,
    command_runner,
    convert_suites,
    corpus_problems,
    decode_escapes,
    empty_directories,
    every_nth,
    implementation,
    known_failures,
    load_cases,
    load_suites,
    mismatches,
    override_problems,
    python_command_runner,
    python_inprocess_runner,
    run_case,
    sample_cases,
    write_overrides,
)

CASES = load_cases()
KNOWN = known_failures()
BASH_RUNNER = REPO / "tests" / "bats" / "conformance.bash"


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
    """python.map's command: its overrides (expect/<entry>.python) where it has any."""
    outcome = run_case(case, python_command_runner())
    _check(case, "python", mismatches(case, outcome, "python"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_python_api(case: Case) -> None:
    """cli.main in this process: the shared expectations, byte for byte the bash ones."""
    _check(case, "python", mismatches(case, run_case(case, python_inprocess_runner())))


NOOP = Implementation("noop", {"*": "true"})


def test_failsafe_an_implementation_that_does_nothing_fails_the_corpus() -> None:
    """Proves the suite can fail: `true` exits 0, prints nothing, writes nothing. Every
    8th case (make test-full: all of them); each suite has 12 or more."""
    sample = every_nth(CASES, 8)
    noop = command_runner(NOOP)
    passing = {case.id for case in sample if not mismatches(case, run_case(case, noop))}
    # Only cases whose whole expectation is "exit 0, no output, nothing written" may pass
    # (a hook that must stay silent has many); every other one fails.
    assert passing <= {case.id for case in sample if _expects_no_effect(case)}
    assert {case.suite.name for case in sample} == {suite.name for suite in load_suites()}
    assert len(passing) < len(sample) / 4


def _expects_no_effect(case: Case) -> bool:
    expect = case.path / "expect"
    return (expect / "exit").read_text().strip() == "0" and not any(
        (expect / entry).exists() for entry in ("stdout", "stderr", "files")
    )


def test_an_expectation_kept_once_under_fixtures_is_compared_through_its_link() -> None:
    case = next(case for case in CASES if case.id == "install-hooks/default-file-opencode")
    rel = "home/.config/opencode/plugin/datarim-snapshots.js"
    assert (case.path / "expect" / "files" / rel).is_symlink()
    assert f"{rel}: missing after the run" in mismatches(case, run_case(case, command_runner(NOOP)))


def test_a_link_in_expect_files_must_reach_a_file_under_fixtures(tmp_path: Path) -> None:
    source = next(case for case in CASES if case.id == "install-hooks/default-file-opencode")
    # copied elsewhere, its relative link to fixtures/ reaches nothing
    shutil.copytree(source.path, tmp_path / "links", symlinks=True)
    files = tmp_path / "links" / "expect" / "files"
    (files / "outside").symlink_to(REPO / "README.md")
    (files / "nowhere").symlink_to("no-such-file")
    problems = case_problems(Case(source.suite, source.name, tmp_path / "links"), {"bash"})
    refused = " links to no regular file under fixtures/"
    assert [problem.split(": ")[1] for problem in problems] == [
        "expect/files/home/.config/opencode/plugin/datarim-snapshots.js" + refused,
        "expect/files/nowhere" + refused,
        "expect/files/outside" + refused,
    ]


def test_corpus_needs_no_empty_directories() -> None:
    """git keeps no empty directory: a case that needs one must make it in its setup."""
    assert empty_directories() == []


# The runner contract (tests/conformance/README.md): one mapping per implementation,
# read by both runners; escapes decoded alike; a new implementation plugs in by command.


def _bash_runner(script: str, *args: str, env: dict[str, str] | None = None) -> bytes:
    """Runs script in bash with tests/bats/conformance.bash sourced (as bats would)."""
    env = {**os.environ, "BATS_TEST_DIRNAME": str(BASH_RUNNER.parent), **(env or {})}
    done = subprocess.run(
        ["bash", "-c", f'. "{BASH_RUNNER}"\n{script}', "_", *args],
        capture_output=True,
        env=env,
        check=True,
        timeout=120,
    )
    assert done.stderr == b""
    return done.stdout


def test_both_runners_decode_the_escape_samples_to_the_same_bytes() -> None:
    """tests/conformance/escapes/samples, decoded, is escapes/decoded (NUL after each)."""
    want = (ESCAPES / "decoded").read_bytes()
    lines = os.fsdecode((ESCAPES / "samples").read_bytes()).split("\n")[:-1]
    python = b"".join(os.fsencode(decode_escapes(line)) + b"\0" for line in lines)
    bash = _bash_runner(
        'conformance_lines "$1"\nfor line in "${FILE_LINES[@]}"; do\n'
        'conformance_unescape "$line" v; printf "%s\\0" "$v"; done',
        str(ESCAPES / "samples"),
    )
    assert python == want
    assert bash == want
    assert len(lines) == want.count(b"\0") > 20


def test_every_mapping_names_every_suite_command() -> None:
    names = sorted(path.name for path in IMPLS.glob("*.map"))
    assert names == ["bash.map", "python.map"]
    for suite in load_suites():
        for impl in ("bash", "python"):
            # a line of its own or the `*` dispatcher line (python.map)
            assert implementation(impl).template(suite), (impl, suite.name)


def test_the_bash_runner_reads_the_same_mapping_words() -> None:
    """For every suite and both mappings, conformance.bash starts the words this runner does."""
    script = (
        'for suite in "$@"; do conformance_suite_argv "$suite"\n'
        'printf "%s\\0" "${ARGV[@]}"; printf "\\n"; done'
    )
    suites = [suite.name for suite in load_suites()]
    for impl in ("bash", "python"):
        env = {"CONFORMANCE_IMPL": impl, "CONFORMANCE_PYTHON": sys.executable}
        got = _bash_runner(script, *suites, env=env).split(b"\n")[:-1]
        want = [
            b"".join(os.fsencode(word) + b"\0" for word in implementation(impl).argv(suite))
            for suite in load_suites()
        ]
        assert got == want, impl


def test_entry_stands_for_the_command_maps_entry_point_in_both_runners() -> None:
    """{ENTRY}: a command the map gives an entry point runs it; one without (mcp, the
    Python port's alone) or unknown is a one-line error in both runners, not a guess."""
    bash = implementation("bash")
    assert bash.argv(Suite("next", "next")) == [str(REPO / "dev-tools" / "snapshot-next.sh")]
    script = 'for c in "$@"; do conformance_entry_point "$c" && echo "$ENTRY"; done; :'
    got = _bash_runner(script, "next", "mcp", "no-such-command")
    assert got == (
        b"snapshot-next.sh\n"
        b"commands.txt: no entry point for 'mcp'\n"
        b"commands.txt: no entry point for 'no-such-command'\n"
    )
    for command in ("mcp", "no-such-command"):
        with pytest.raises(LookupError, match=f"commands.txt: no entry point for '{command}'"):
            bash.argv(Suite(command, command))


def test_a_third_implementation_plugs_in_as_one_dispatcher_command() -> None:
    """`conformance.py run --command TEMPLATE`: the Python port as a stranger would plug it
    in (one dispatcher, {COMMAND} the logical command), over a spread of the corpus."""
    ids = [case.id for case in sample_cases(CASES, 2)]
    template = f"{sys.executable} -m datarim_snapshot {{COMMAND}}"
    done = subprocess.run(
        [sys.executable, str(REPO / "tests" / "python" / "conformance.py"), "run"]
        + ["--command", template, "--name", "python", *ids],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == f"{len(ids)} passed, 0 failed, 0 skipped"


def test_the_runner_cli_fails_a_failing_implementation() -> None:
    ids = [case.id for case in sample_cases(CASES, 1)]
    done = subprocess.run(
        [sys.executable, str(REPO / "tests" / "python" / "conformance.py"), "run"]
        + ["--command", "false", *ids],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1] == f"0 passed, {len(ids)} failed, 0 skipped"


def test_the_python_runner_runs_the_bash_mapping_as_bats_does() -> None:
    """bash.map through this runner (as bless.py runs it): a spread of cases passes."""
    runner = command_runner(implementation("bash"))
    for case in sample_cases(CASES, 2):
        assert mismatches(case, run_case(case, runner), "bash") == [], case.id


# Where an implementation differs on purpose (README): expect/<entry>.<impl> replaces
# expect/<entry> for that implementation run through its mapping, in both runners.


def _case_with(path: Path, files: dict[str, str]) -> Case:
    (path / "expect").mkdir(parents=True)
    (path / "args").write_text("--help\n")
    for name, text in {"exit": "2\n", "tree": "", **files}.items():
        (path / "expect" / name).write_text(text)
    return Case(Suite("write", "write"), path.name, path)


def test_an_override_is_used_for_its_implementation_only(tmp_path: Path) -> None:
    case = _case_with(
        tmp_path / "usage-help",
        {"stdout": "Usage: w\n", "exit.python": "0\n", "stdout.python": "Usage: d w\n"},
    )
    cli_run = Outcome(0, b"Usage: d w\n", b"", "")
    script_run = Outcome(2, b"Usage: w\n", b"", "")
    assert mismatches(case, cli_run, "python") == []
    assert mismatches(case, script_run, "bash") == []
    assert mismatches(case, script_run) == []  # the API run: no implementation's overrides
    assert len(mismatches(case, cli_run)) == len(mismatches(case, script_run, "python")) == 2
    # The bats runner picks the same files.
    script = 'conformance_expected "$1" "$2" p; printf "%s\\n" "${p##*/}"'
    for impl, entry, name in [
        ("python", "exit", "exit.python"),
        ("python", "stdout", "stdout.python"),
        ("python", "stderr", "stderr"),
        ("bash", "exit", "exit"),
        ("bash", "stdout", "stdout"),
    ]:
        env = {"CONFORMANCE_IMPL": impl}
        assert _bash_runner(script, str(case.path), entry, env=env).decode() == name + "\n"


def test_an_override_must_differ_from_what_it_replaces(tmp_path: Path) -> None:
    case = _case_with(
        tmp_path / "c",
        {"stdout": "x\n", "exit.python": "2\n", "stdout.python": "x\n", "stderr.python": ""},
    )
    assert override_problems(case, {"bash", "python"}) == [
        "write/c: expect/exit.python is redundant: same as expect/exit",
        "write/c: expect/stderr.python is redundant: same as expect/stderr",
        "write/c: expect/stdout.python is redundant: same as expect/stdout",
    ]
    (case.path / "expect" / "exit.python").write_text("256\n")
    (case.path / "expect" / "stdout.other").write_text("y\n")
    assert override_problems(case, {"bash", "python"}) == [
        "write/c: expect/exit.python is no exit status (0-255)",
        "write/c: expect/stderr.python is redundant: same as expect/stderr",
        "write/c: expect/stdout.other: no impl/other.map",
        "write/c: expect/stdout.python is redundant: same as expect/stdout",
    ]


def test_the_python_command_answers_help_in_the_cli_convention() -> None:
    """Every subcommand's -h/--help case: the shared expectation is the script's usage (and
    its exit code); the Python command's override is the same text naming
    `datarim-snapshot <subcommand>`, exit 0; no other case has an override."""
    with_override, asking_help = set(), set()
    for case in CASES:
        expect = case.path / "expect"
        if any((expect / f"{entry}.python").exists() for entry in ("exit", "stdout", "stderr")):
            with_override.add(case.id)
        args = (case.path / "args").read_text().split("\n")
        if args[0] not in ("-h", "--help"):
            continue
        asking_help.add(case.id)
        stdout = (expect / "stdout.python").read_bytes()
        assert stdout.startswith(b"Usage: datarim-snapshot %s " % case.suite.command.encode())
        want_exit = (
            (expect / "exit.python") if (expect / "exit.python").exists() else expect / "exit"
        )
        assert want_exit.read_text() == "0\n"
        assert (expect / "stdout").read_bytes().partition(b"\n\n")[2] == (
            stdout.partition(b"\n\n")[2]
        )
    assert with_override == asking_help
    assert {case.split("/")[0] for case in asking_help} == {
        suite.name for suite in load_suites()
    }  # every subcommand the corpus has a suite for


def test_bless_writes_the_overrides_of_an_implementation_only_where_they_differ(
    tmp_path: Path,
) -> None:
    """bless.py --override python: what write_overrides records for write/usage-help from
    the Python command is the corpus's override; from bash, nothing (and it removes them)."""
    source = next(case for case in CASES if case.id == "write/usage-help")
    shutil.copytree(source.path, tmp_path / "usage-help")
    case = Case(source.suite, source.name, tmp_path / "usage-help")
    expect = case.path / "expect"
    for name in ("exit.python", "stdout.python"):
        (expect / name).unlink()
    python = run_case(case, python_command_runner())
    assert write_overrides(case, python, "python") == ["exit.python", "stdout.python"]
    for name in ("exit.python", "stdout.python"):
        assert (expect / name).read_bytes() == (source.path / "expect" / name).read_bytes()
    assert (
        write_overrides(case, run_case(case, command_runner(implementation("bash"))), "python")
        == []
    )
    assert sorted(path.name for path in expect.iterdir()) == ["exit", "stdout", "tree"]


def test_old_form_suites_convert_to_a_logical_command(tmp_path: Path) -> None:
    """SUITE files still in the old form (bash=<path>, python=<subcommand>) run meanwhile
    and convert with `conformance.py convert`: SUITE names the command, the maps gain it."""
    suites, impls = tmp_path / "suites", tmp_path / "impl"
    (suites / "stop-hook").mkdir(parents=True)
    (suites / "stop-hook" / "SUITE").write_text("bash=dev-tools/stop-hook.sh\npython=stop-hook\n")
    (suites / "write").mkdir()
    (suites / "write" / "SUITE").write_text("command=write\n")
    impls.mkdir()
    (impls / "bash.map").write_text("# bash\nwrite={REPO}/dev-tools/snapshot-writer-wrapper.sh\n")
    (impls / "python.map").write_text("# python\nwrite={PYTHON} -m datarim_snapshot write\n")
    old = load_suites(suites)[0]
    assert (old.command, old.legacy["bash"]) == ("stop-hook", "{REPO}/dev-tools/stop-hook.sh")
    bash_map = implementation(str(impls / "bash.map"))
    assert bash_map.argv(old) == [str(REPO / "dev-tools" / "stop-hook.sh")]
    assert len(convert_suites(suites, impls)) == 3
    assert (suites / "stop-hook" / "SUITE").read_text() == "command=stop-hook\n"
    assert (impls / "bash.map").read_text() == (
        "# bash\nstop-hook={REPO}/dev-tools/stop-hook.sh\n"
        "write={REPO}/dev-tools/snapshot-writer-wrapper.sh\n"
    )
    assert (impls / "python.map").read_text() == (
        "# python\nstop-hook={PYTHON} -m datarim_snapshot stop-hook\n"
        "write={PYTHON} -m datarim_snapshot write\n"
    )
    assert convert_suites(suites, impls) == []


def test_git_keeps_every_corpus_byte_as_committed() -> None:
    """.gitattributes: no corpus file is open to line-ending conversion (autocrlf)."""
    corpus = REPO / "tests" / "conformance"
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    files = sorted(str(p.relative_to(REPO)) for p in corpus.rglob("*") if p.is_file())
    done = subprocess.run(
        ["git", "-C", str(REPO), "check-attr", "--stdin", "-z", "text"],
        input="\0".join(files).encode(),
        capture_output=True,
        check=True,
    )
    fields = done.stdout.split(b"\0")[:-1]
    values = dict(zip(fields[0::3], fields[2::3]))
    assert len(values) == len(files) > 1000
    assert {path.decode() for path, value in values.items() if value != b"unset"} == set()
