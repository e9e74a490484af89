"""The conformance corpus (tests/conformance/README.md): loads it, checks it, and runs it
on any implementation named by a mapping (tests/conformance/impl/<impl>.map) or by one
command template. Twin of tests/bats/conformance.bash, which reads the same mappings and
decodes the same escapes.

    python tests/python/conformance.py run [--impl NAME|FILE.map | --command TEMPLATE]
                                           [--name IMPL] [<suite>[/<case>] ...]
    python tests/python/conformance.py check     the corpus itself, before any implementation
    python tests/python/conformance.py convert   old SUITE files (bash=/python=) to command=
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "conformance"
SUITES = CORPUS / "suites"
IMPLS = CORPUS / "impl"
FIXTURES = CORPUS / "fixtures"
CORPUS_ENTRIES = {"README.md", "known-failures.txt", "suites", "fixtures", "impl", "escapes"}
ESCAPES = CORPUS / "escapes"
CASE_ENTRIES = {
    "args",
    "env",
    "stdin",
    "stdin-from",
    "umask",
    "cwd",
    "root",
    "setup",
    "in",
    "expect",
    "ignore",
}
EXPECT_ENTRIES = {"exit", "stdout", "stderr", "files", "tree"}
# expect/<entry>.<impl>: what one implementation, run through its mapping, must give
# instead of expect/<entry> (README "Where an implementation differs on purpose").
OVERRIDABLE = ("exit", "stdout", "stderr")
NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
RUN_TIMEOUT = 60
# The dispatcher a mapping names for an old-form SUITE's python= line.
PYTHON_DISPATCHER = "{PYTHON} -m datarim_snapshot"
# The command map (docs/commands.md): {ENTRY} in a template is the command's entry
# point there, so bash.map is one line and a new command needs none.
COMMAND_MAP = "commands.txt"


def entry_point(command: str) -> str:
    """The command map's entry point for <command> ({ENTRY}); LookupError if none.
    The map is read by the package's own reader (cli.command_map)."""
    from datarim_snapshot import _cli as cli

    found = cli.command_map().get(command)
    if found is None or found.script == "-":
        raise LookupError(f"{COMMAND_MAP}: no entry point for {command!r}")
    return found.script


@dataclass
class Suite:
    name: str
    command: str  # the logical command (SUITE's command=, or an old form's python=)
    # Old form only (bash=<path>, python=<subcommand>): what each mapping would say.
    legacy: dict[str, str] = field(default_factory=dict)


@dataclass
class Case:
    suite: Suite
    name: str
    path: Path

    @property
    def id(self) -> str:
        return f"{self.suite.name}/{self.name}"


@dataclass
class Implementation:
    """An implementation under test: a command template per logical command, or one
    dispatcher template under `*` (README "Plugging in an implementation")."""

    name: str
    templates: dict[str, str]

    def template(self, suite: Suite) -> str | None:
        found = self.templates.get(suite.command) or suite.legacy.get(self.name)
        return found or self.templates.get("*")

    def argv(self, suite: Suite) -> list[str]:
        template = self.template(suite)
        if template is None:
            raise LookupError(f"{self.name}: no command for {suite.command!r}")
        words = template.split()
        if "{ENTRY}" in template:
            entry = entry_point(suite.command)
            words = [word.replace("{ENTRY}", entry) for word in words]
        return [
            word.replace("{REPO}", str(REPO))
            .replace("{PYTHON}", sys.executable)
            .replace("{COMMAND}", suite.command)
            for word in words
        ]


@dataclass
class Outcome:
    exit: int
    stdout: bytes
    stderr: bytes
    tree: str
    files: dict[str, bytes] = field(default_factory=dict)
    before: dict[str, bytes] = field(default_factory=dict)


ESCAPE = re.compile(r"\\\\|\\n|\\r|\\t|\\x[0-9a-fA-F]{2}")
SIMPLE_ESCAPES = {"\\\\": "\\", "\\n": "\n", "\\r": "\r", "\\t": "\t"}


def decode_escapes(text: str) -> str:
    """\\\\ \\n \\r \\t \\xHH (two hex digits) as in args and env lines; any other backslash
    stands for itself; \\xHH >= 0x80 is that raw byte (a surrogate escape, as os.fsdecode)."""

    def one(match: re.Match[str]) -> str:
        token = match.group(0)
        if token in SIMPLE_ESCAPES:
            return SIMPLE_ESCAPES[token]
        return os.fsdecode(bytes([int(token[2:], 16)]))

    return ESCAPE.sub(one, text)


def _lines(path: Path) -> list[str]:
    """A file's lines split at \\n only (not at \\r or U+2028), raw bytes kept as surrogate
    escapes, as `read -r` gives them; a final line without \\n counts."""
    lines = os.fsdecode(path.read_bytes()).split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _one_line(path: Path) -> str:
    """A one-line entry (cwd, umask, stdin-from): its first line, blanks around it dropped."""
    lines = _lines(path)
    return lines[0].strip(" \t") if lines else ""


def read_suite(directory: Path) -> Suite:
    conf: dict[str, str] = {}
    for line in _lines(directory / "SUITE"):
        if line.strip():
            key, _, value = line.partition("=")
            conf[key.strip()] = value.strip()
    if "command" in conf:
        return Suite(directory.name, conf["command"])
    legacy = {}
    if "bash" in conf:
        legacy["bash"] = "{REPO}/" + conf["bash"]
    if "python" in conf:
        legacy["python"] = f"{PYTHON_DISPATCHER} {conf['python']}"
    return Suite(directory.name, conf.get("python", ""), legacy)


def load_suites(suites: Path = SUITES) -> list[Suite]:
    return [read_suite(d) for d in sorted(suites.iterdir()) if (d / "SUITE").is_file()]


def load_cases() -> list[Case]:
    cases = []
    for suite in load_suites():
        for directory in sorted((SUITES / suite.name).iterdir()):
            if directory.is_dir():
                cases.append(Case(suite, directory.name, directory))
    return cases


def find_case(case_id: str) -> Case | None:
    for case in load_cases():
        if case.id == case_id:
            return case
    return None


def select_cases(patterns: list[str]) -> list[Case]:
    """The cases named `<suite>` or `<suite>/<case>` (all when none are named)."""
    cases = load_cases()
    if not patterns:
        return cases
    return [c for c in cases if c.suite.name in patterns or c.id in patterns]


def read_mapping(path: Path, name: str | None = None) -> Implementation:
    """A mapping file: `<logical command>=<command template>` lines, `#` comments."""
    templates = {}
    for line in _lines(path):
        if line.strip() and not line.lstrip().startswith("#"):
            command, _, template = line.partition("=")
            templates[command.strip()] = template.strip()
    return Implementation(name or path.name.removesuffix(".map"), templates)


def implementation(spec: str) -> Implementation:
    """`bash`, `python` (tests/conformance/impl/<name>.map) or a path to a mapping file."""
    path = Path(spec) if spec.endswith(".map") else IMPLS / f"{spec}.map"
    return read_mapping(path)


def mappings() -> list[Implementation]:
    return [read_mapping(path) for path in sorted(IMPLS.glob("*.map"))]


def _escape_problems(case: Case, entry: str, text: str) -> list[str]:
    problems = []
    if re.search(r"\\x00", text):
        problems.append(f"{case.id}: {entry}: \\x00 (no argument or value can hold a NUL)")
    return problems


def corpus_problems() -> list[str]:
    """What is wrong with the corpus itself: checked before any implementation runs."""
    problems = []
    for entry in CORPUS.iterdir():
        if entry.name not in CORPUS_ENTRIES:
            problems.append(f"tests/conformance: unknown entry {entry.name}")
    maps = mappings()
    for path in IMPLS.iterdir():
        if path.suffix != ".map":
            problems.append(f"impl/{path.name}: a mapping is named <impl>.map")
    for impl in maps:
        for command in impl.templates:
            if command != "*" and not NAME.fullmatch(command):
                problems.append(f"impl/{impl.name}.map: {command!r} is no command name")
    names: set[str] = set()
    for directory in sorted(SUITES.iterdir()):
        if not (directory / "SUITE").is_file():
            problems.append(f"{directory.name}: SUITE is missing")
            continue
        suite = read_suite(directory)
        if suite.name.lower() in names:
            problems.append(f"{suite.name}: duplicate suite name")
        names.add(suite.name.lower())
        if suite.legacy:
            problems.append(
                f"{suite.name}/SUITE: old form (bash=/python=); name the logical command "
                "with command=<name>: python tests/python/conformance.py convert"
            )
        if not NAME.fullmatch(suite.command):
            problems.append(f"{suite.name}/SUITE: {suite.command!r} is no command name")
        for impl in maps:
            template = impl.template(suite)
            if template is None:
                problems.append(f"{suite.name}: impl/{impl.name}.map has no {suite.command!r}")
            elif "{ENTRY}" in template:
                try:
                    entry_point(suite.command)
                except LookupError as error:
                    problems.append(f"{suite.name}: impl/{impl.name}.map: {error}")
        for entry in directory.iterdir():
            if entry.name != "SUITE" and not entry.is_dir():
                problems.append(f"{suite.name}: unknown entry {entry.name}")
    case_names: set[str] = set()
    for case in load_cases():
        if case.id.lower() in case_names:
            problems.append(f"{case.id}: duplicate name")
        case_names.add(case.id.lower())
        problems += case_problems(case, {impl.name for impl in maps})
    problems += [f"{path}: empty directory (git keeps none)" for path in empty_directories()]
    known = {f"{impl.name} {case_id}" for impl in maps for case_id in case_names}
    for line in sorted(known_failures() - known):
        problems.append(f"known-failures.txt: {line!r} names no implementation's case")
    return problems


def empty_directories() -> list[str]:
    """git keeps no empty directory: a case that needs one must make it in its setup."""
    return [
        str(path.relative_to(SUITES))
        for path in sorted(SUITES.rglob("*"))
        if path.is_dir() and not any(path.iterdir())
    ]


def expected(case: Case, entry: str, impl: str | None = None) -> Path:
    """expect/<entry>, or expect/<entry>.<impl> where the case has one for impl."""
    expect = case.path / "expect"
    if impl is not None and entry in OVERRIDABLE and (expect / f"{entry}.{impl}").is_file():
        return expect / f"{entry}.{impl}"
    return expect / entry


def override_problems(case: Case, impls: set[str]) -> list[str]:
    """An override names a known entry and implementation and differs from the shared
    expectation it replaces: one that says the same is redundant."""
    problems = []
    expect = case.path / "expect"
    for path in sorted(expect.iterdir()) if expect.is_dir() else []:
        entry, dot, impl = path.name.partition(".")
        if not dot or entry not in OVERRIDABLE:
            continue
        if impl not in impls:
            problems.append(f"{case.id}: expect/{path.name}: no impl/{impl}.map")
        elif entry == "exit":
            if not EXIT_STATUS.fullmatch(path.read_text()):
                problems.append(f"{case.id}: expect/{path.name} is no exit status (0-255)")
            elif (expect / "exit").is_file() and int(path.read_text()) == int(
                (expect / "exit").read_text()
            ):
                problems.append(f"{case.id}: expect/{path.name} is redundant: same as expect/exit")
        elif path.read_bytes() == _read_optional(expect / entry):
            problems.append(f"{case.id}: expect/{path.name} is redundant: same as expect/{entry}")
    return problems


EXIT_STATUS = re.compile(r"([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])\n?")


def case_problems(case: Case, impls: set[str]) -> list[str]:
    problems = override_problems(case, impls)
    if not NAME.fullmatch(case.name):
        problems.append(f"{case.id}: case names are lower-case words joined by '-'")
    for entry in case.path.iterdir():
        if entry.name not in CASE_ENTRIES:
            problems.append(f"{case.id}: unknown entry {entry.name}")
    expect = case.path / "expect"
    for required in ("exit", "tree"):
        if not (expect / required).is_file():
            problems.append(f"{case.id}: expect/{required} is missing")
    if (expect / "exit").is_file() and not EXIT_STATUS.fullmatch((expect / "exit").read_text()):
        problems.append(f"{case.id}: expect/exit is no exit status (0-255)")
    if expect.is_dir():
        for entry in expect.iterdir():
            if entry.name not in EXPECT_ENTRIES and entry.name.partition(".")[0] not in OVERRIDABLE:
                problems.append(f"{case.id}: unknown entry expect/{entry.name}")
    problems += _shared_expectation_problems(case)
    if not (case.path / "args").is_file():
        problems.append(f"{case.id}: args is missing")
    else:
        problems += _escape_problems(case, "args", (case.path / "args").read_text("latin-1"))
    env = case.path / "env"
    if env.is_file():
        for line in _lines(env):
            if line and not ENV_NAME.fullmatch(line.partition("=")[0]):
                problems.append(f"{case.id}: env: {line!r} is no NAME=value line")
            problems += _escape_problems(case, "env", line)
    return problems


def _shared_expectation_problems(case: Case) -> list[str]:
    """A symlink in expect/files stands for its target's bytes, which must be a regular
    file under fixtures/ (an expectation several cases share, kept once)."""
    problems = []
    files = case.path / "expect" / "files"
    for path in sorted(files.rglob("*")) if files.is_dir() else []:
        if not path.is_symlink():
            continue
        target = path.resolve()
        if not (target.is_file() and target.is_relative_to(FIXTURES.resolve())):
            rel = path.relative_to(case.path)
            problems.append(f"{case.id}: {rel} links to no regular file under fixtures/")
    return problems


def known_failures() -> set[str]:
    path = CORPUS / "known-failures.txt"
    if not path.exists():
        return set()
    return {
        line.strip()
        for line in path.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }


def _substitute(text: str, case: Case, sandbox: Path) -> str:
    return (
        text.replace("{ROOT}", str(sandbox / "ws"))
        .replace("{SANDBOX}", str(sandbox))
        .replace("{CASE}", str(case.path))
    )


def case_args(case: Case, sandbox: Path) -> list[str]:
    return [decode_escapes(_substitute(line, case, sandbox)) for line in _lines(case.path / "args")]


def case_env(case: Case, sandbox: Path) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("CONFORMANCE_PATH", os.environ["PATH"]),
        "HOME": str(sandbox / "home"),
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
    }
    path = case.path / "env"
    if path.exists():
        for line in _lines(path):
            if line:
                name, value = line.split("=", 1)
                env[name] = decode_escapes(_substitute(value, case, sandbox))
    return env


def _read_optional(path: Path, default: bytes = b"") -> bytes:
    return path.read_bytes() if path.exists() else default


def case_stdin_path(case: Case, sandbox: Path) -> str:
    """The file on standard input: the sandbox file `stdin-from` names, else `stdin`,
    else /dev/null (a file, never a pipe, in both runners)."""
    source = case.path / "stdin-from"
    if source.exists():
        return str(sandbox / _one_line(source))
    if (case.path / "stdin").exists():
        return str(case.path / "stdin")
    return os.devnull


def case_stdin(case: Case, sandbox: Path) -> bytes:
    """The bytes of the case's standard input."""
    return Path(case_stdin_path(case, sandbox)).read_bytes()


def ignored_paths(case: Case) -> set[str]:
    """in/ and the case's `ignore` lines: subtrees neither listed nor compared."""
    paths = {"in"}
    path = case.path / "ignore"
    if path.exists():
        paths |= {line.strip().rstrip("/") for line in _lines(path) if line.strip()}
    return paths


def _prune(sandbox: Path, dirpath: str, dirnames: list[str], ignored: set[str]) -> None:
    rel_dir = os.path.relpath(dirpath, sandbox)
    dirnames[:] = [d for d in dirnames if os.path.normpath(os.path.join(rel_dir, d)) not in ignored]


def list_tree(sandbox: Path, ignored: set[str]) -> str:
    """The manifest of expect/tree: every entry below the sandbox except ignored subtrees."""
    lines = []
    for dirpath, dirnames, filenames in os.walk(sandbox):
        rel_dir = os.path.relpath(dirpath, sandbox)
        _prune(sandbox, dirpath, dirnames, ignored)
        filenames = [
            f for f in filenames if os.path.normpath(os.path.join(rel_dir, f)) not in ignored
        ]
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.normpath(os.path.join(rel_dir, name))
            info = os.lstat(full)
            line = f"{stat.filemode(info.st_mode)} {rel}"
            if stat.S_ISLNK(info.st_mode):
                line += " -> " + os.readlink(full).replace(str(sandbox), "{SANDBOX}")
            lines.append((os.fsencode(rel), line))
    return "".join(line + "\n" for _, line in sorted(lines))


def regular_files(sandbox: Path, ignored: set[str]) -> dict[str, bytes]:
    files = {}
    for dirpath, dirnames, filenames in os.walk(sandbox):
        _prune(sandbox, dirpath, dirnames, ignored)
        for name in filenames:
            full = os.path.join(dirpath, name)
            if os.path.relpath(full, sandbox) in ignored:
                continue
            if stat.S_ISREG(os.lstat(full).st_mode):
                with contextlib.suppress(PermissionError):
                    files[os.path.relpath(full, sandbox)] = Path(full).read_bytes()
    return files


@contextlib.contextmanager
def sandbox_for(case: Case) -> Iterator[Path]:
    old_umask = os.umask(0o022)
    sandbox = Path(tempfile.mkdtemp(prefix="conformance-")).resolve()
    try:
        os.chmod(sandbox, 0o755)
        (sandbox / "ws").mkdir()
        (sandbox / "in").mkdir()
        (sandbox / "home").mkdir()
        if (case.path / "root").is_dir():
            shutil.copytree(case.path / "root", sandbox / "ws", symlinks=True, dirs_exist_ok=True)
        if (case.path / "setup").exists():
            env = dict(
                os.environ, CASE=str(case.path), SANDBOX=str(sandbox), ROOT=str(sandbox / "ws")
            )
            subprocess.run(
                ["bash", str(case.path / "setup")],
                cwd=sandbox,
                env=env,
                check=True,
                stdin=subprocess.DEVNULL,
                timeout=RUN_TIMEOUT,
            )
        yield sandbox
    finally:
        os.umask(old_umask)
        for dirpath, dirnames, _ in os.walk(sandbox):
            for name in dirnames:
                path = os.path.join(dirpath, name)
                if not os.path.islink(path):
                    with contextlib.suppress(OSError):
                        os.chmod(path, 0o755)
        shutil.rmtree(sandbox, ignore_errors=True)


def _umask(case: Case) -> int:
    path = case.path / "umask"
    return int(_one_line(path), 8) if path.exists() else 0o022


def _cwd(case: Case, sandbox: Path) -> Path:
    path = case.path / "cwd"
    return sandbox / _one_line(path) if path.exists() else sandbox / "ws"


Runner = Callable[[Case, Path], "tuple[int, bytes, bytes]"]


def run_subprocess(argv0: list[str]) -> Runner:
    """An implementation given as a command prefix, run with the case's env, cwd, umask, stdin."""
    return command_runner(Implementation("command", {"*": " ".join(argv0)}))


def command_runner(impl: Implementation) -> Runner:
    """The implementation's command for the case's suite, then the case's args; the case's
    env (and nothing else), cwd, umask and standard input (README "The runner contract")."""

    def runner(case: Case, sandbox: Path) -> tuple[int, bytes, bytes]:
        # The child inherits the umask: set here, not in a preexec_fn, which would make
        # every start a full fork of this (large) process instead of a vfork.
        saved_umask = os.umask(_umask(case))
        try:
            with open(case_stdin_path(case, sandbox), "rb") as stdin:
                proc = subprocess.run(
                    impl.argv(case.suite) + case_args(case, sandbox),
                    cwd=_cwd(case, sandbox),
                    env=case_env(case, sandbox),
                    stdin=stdin,
                    capture_output=True,
                    timeout=RUN_TIMEOUT,
                )
        finally:
            os.umask(saved_umask)
        return proc.returncode, proc.stdout, proc.stderr

    return runner


def bash_runner() -> Runner:
    return command_runner(implementation("bash"))


def python_command_runner() -> Runner:
    return command_runner(implementation("python"))


def python_subcommand(suite: Suite) -> str:
    """The datarim-snapshot subcommand python.map names for the suite's command."""
    template = implementation("python").template(suite) or ""
    prefix, _, subcommand = template.rpartition(" ")
    if prefix != PYTHON_DISPATCHER:
        raise LookupError(f"python.map: {suite.command} is no '{PYTHON_DISPATCHER} <subcommand>'")
    return subcommand.replace("{COMMAND}", suite.command)


def python_inprocess_runner() -> Runner:
    """datarim_snapshot._cli.main called in this process with the case's env, cwd, umask, stdin."""

    def runner(case: Case, sandbox: Path) -> tuple[int, bytes, bytes]:
        from datarim_snapshot import _cli as cli

        saved_env = dict(os.environ)
        case_environment = case_env(case, sandbox)
        saved_cwd = os.getcwd()
        saved_umask = os.umask(_umask(case))
        saved_stdin = sys.stdin
        saved_fd0 = os.dup(0)
        out, err = io.BytesIO(), io.BytesIO()
        try:
            os.environ.clear()
            os.environ.update(case_environment)
            os.chdir(_cwd(case, sandbox))
            stdin_bytes = case_stdin(case, sandbox)
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin_bytes), encoding="utf-8")
            # fd 0 holds the same bytes (a file, as bats gives them), for a case
            # that names the standard input by a path (/dev/stdin).
            with tempfile.TemporaryFile() as feed:
                feed.write(stdin_bytes)
                feed.seek(0)
                os.dup2(feed.fileno(), 0)
            argv = [python_subcommand(case.suite), *case_args(case, sandbox)]
            code = cli.main(argv, out, err)
        finally:
            os.dup2(saved_fd0, 0)
            os.close(saved_fd0)
            sys.stdin = saved_stdin
            os.chdir(saved_cwd)
            os.umask(saved_umask)
            os.environ.clear()
            os.environ.update(saved_env)
        return code, out.getvalue(), err.getvalue()

    return runner


def run_case(case: Case, runner: Runner) -> Outcome:
    ignored = ignored_paths(case)
    with sandbox_for(case) as sandbox:
        before = regular_files(sandbox, ignored)
        code, stdout, stderr = runner(case, sandbox)
        outcome = Outcome(
            code,
            _placeholders(stdout, case, sandbox),
            _placeholders(stderr, case, sandbox),
            list_tree(sandbox, ignored),
            regular_files(sandbox, ignored),
            before,
        )
    return outcome


def _placeholders(data: bytes, case: Case, sandbox: Path) -> bytes:
    return (
        data.replace(str(sandbox / "ws").encode(), b"{ROOT}")
        .replace(str(sandbox).encode(), b"{SANDBOX}")
        .replace(str(case.path).encode(), b"{CASE}")
    )


def mismatches(case: Case, outcome: Outcome, impl: str | None = None) -> list[str]:
    """Every way the outcome differs from the case's expectations (empty: it passes);
    impl: the name of the implementation run through its mapping, whose overrides
    (expect/<entry>.<impl>) are preferred. None: the shared expectations only."""
    expect = case.path / "expect"
    problems = []
    want_exit = int(expected(case, "exit", impl).read_text().strip())
    if outcome.exit != want_exit:
        problems.append(f"exit {outcome.exit}, want {want_exit}")
    for stream in ("stdout", "stderr"):
        want = _read_optional(expected(case, stream, impl))
        got = getattr(outcome, stream)
        if got != want:
            problems.append(f"{stream} differs:\n  got:  {got!r}\n  want: {want!r}")
    want_tree = (expect / "tree").read_text(encoding="utf-8")
    if outcome.tree != want_tree:
        problems.append(f"tree differs:\n--- got\n{outcome.tree}--- want\n{want_tree}")
    expected_files = {}
    files_dir = expect / "files"
    if files_dir.is_dir():
        for path in files_dir.rglob("*"):
            if path.is_file():
                expected_files[str(path.relative_to(files_dir))] = path.read_bytes()
    for rel, data in sorted(expected_files.items()):
        if rel not in outcome.files:
            problems.append(f"{rel}: missing after the run")
        elif outcome.files[rel] != data:
            problems.append(f"{rel}: bytes differ from expect/files/{rel}")
    for rel, data in sorted(outcome.files.items()):
        if rel in expected_files:
            continue
        if rel not in outcome.before:
            problems.append(f"{rel}: new file not named in expect/files")
        elif outcome.before[rel] != data:
            problems.append(f"{rel}: changed by the run")
    return problems


def write_expectations(case: Case, outcome: Outcome) -> list[str]:
    """Records an outcome as the case's shared expectations (used by bless.py). The
    overrides (expect/<entry>.<impl>) are kept but those now the same as what they
    override, which are removed; returns the names of those kept."""
    expect = case.path / "expect"
    overrides = {}
    shared = _shared_expectations(expect / "files")
    if expect.exists():
        for path in expect.iterdir():
            if path.name.partition(".")[0] in OVERRIDABLE and "." in path.name:
                overrides[path.name] = path.read_bytes()
        shutil.rmtree(expect)
    expect.mkdir()
    (expect / "exit").write_text(f"{outcome.exit}\n")
    for stream in ("stdout", "stderr"):
        data = getattr(outcome, stream)
        if data:
            (expect / stream).write_bytes(data)
    (expect / "tree").write_text(outcome.tree, encoding="utf-8")
    for rel, data in sorted(outcome.files.items()):
        if outcome.before.get(rel) != data:
            target = expect / "files" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            link = shared.get(rel)
            if link is not None and (target.parent / link).read_bytes() == data:
                target.symlink_to(link)
            else:
                target.write_bytes(data)
    for name, data in overrides.items():
        (expect / name).write_bytes(data)
        if override_problems(case, {name.partition(".")[2]}):
            (expect / name).unlink()
    return sorted(name for name in overrides if (expect / name).exists())


def _shared_expectations(files: Path) -> dict[str, str]:
    """expect/files' symlinks (to fixtures/): what each links to, by its relative path."""
    if not files.is_dir():
        return {}
    return {
        str(path.relative_to(files)): os.readlink(path)
        for path in files.rglob("*")
        if path.is_symlink()
    }


def write_overrides(case: Case, outcome: Outcome, impl: str) -> list[str]:
    """Records what impl gave as expect/<entry>.<impl> where it differs from the shared
    expectation, removes its overrides that no longer do, and returns the names written.
    Only exit, stdout and stderr can differ: a different tree or file is a mismatch
    (ValueError), blessed nowhere."""
    problems = [
        problem
        for problem in mismatches(case, outcome)
        if not problem.startswith(("exit ", "stdout ", "stderr "))
    ]
    if problems:
        raise ValueError("\n".join(problems))
    expect = case.path / "expect"
    written = []
    for entry in OVERRIDABLE:
        path = expect / f"{entry}.{impl}"
        got = f"{outcome.exit}\n".encode() if entry == "exit" else getattr(outcome, entry)
        shared = _read_optional(expect / entry)
        same = int(shared) == outcome.exit if entry == "exit" else shared == got
        if same:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(got)
            written.append(path.name)
    return written


def full_run() -> bool:
    """DATARIM_TEST_FULL=1 (make test-full): the sampled runs take every case."""
    return os.environ.get("DATARIM_TEST_FULL") == "1"


def every_nth(cases: list[Case], n: int) -> list[Case]:
    """Every n-th case of the corpus order: each suite in proportion to its size."""
    return cases if full_run() else cases[::n]


def sample_cases(cases: list[Case], per_suite: int) -> list[Case]:
    """A fixed spread of each suite's cases (first, last and evenly between)."""
    if full_run():
        return cases
    chosen = []
    for suite in sorted({case.suite.name for case in cases}):
        members = [case for case in cases if case.suite.name == suite]
        if len(members) <= per_suite:
            chosen += members
            continue
        step = (len(members) - 1) / max(per_suite - 1, 1)
        chosen += [members[round(i * step)] for i in range(per_suite)]
    return chosen


def convert_suites(suites: Path = SUITES, impls: Path = IMPLS) -> list[str]:
    """Rewrites old-form SUITE files as command=<name> and adds what their bash= and
    python= lines said to bash.map and python.map. Returns what it changed."""
    changed = []
    for suite in load_suites(suites):
        if not suite.legacy:
            continue
        for impl_name, template in suite.legacy.items():
            path = impls / f"{impl_name}.map"
            if suite.command not in read_mapping(path).templates:
                lines = _lines(path)
                lines.append(f"{suite.command}={template}")
                comments = [line for line in lines if not line or line.startswith("#")]
                entries = sorted(line for line in lines if line and not line.startswith("#"))
                path.write_text("\n".join(comments + entries) + "\n")
                changed.append(f"impl/{impl_name}.map: {suite.command}={template}")
        (suites / suite.name / "SUITE").write_text(f"command={suite.command}\n")
        changed.append(f"{suite.name}/SUITE: command={suite.command}")
    return changed


def run(impl: Implementation, cases: list[Case], out: Callable[[str], None] = print) -> int:
    """Runs the cases on one implementation, a line a case and a closing count; 0 when
    every case passes (a known failure that passes fails the run)."""
    known = known_failures()
    runner = command_runner(impl)
    passed = failed = skipped = 0
    for case in cases:
        problems = mismatches(case, run_case(case, runner), impl.name)
        listed = f"{impl.name} {case.id}" in known
        if listed and problems:
            skipped += 1
            out(f"skip {case.id} (known-failures.txt)")
        elif listed:
            failed += 1
            out(f"FAIL {case.id}: listed in known-failures.txt but passes: unlist it")
        elif problems:
            failed += 1
            out(f"FAIL {case.id}\n  " + "\n  ".join("\n".join(problems).split("\n")))
        else:
            passed += 1
            out(f"ok {case.id}")
    out(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["check"]:
        problems = corpus_problems()
        print("\n".join(problems + [f"corpus: {len(problems)} problem(s)"]))
        return 1 if problems else 0
    if argv[:1] == ["convert"]:
        print("\n".join(convert_suites() or ["nothing to convert"]))
        return 0
    if argv[:1] != ["run"]:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    args = argv[1:]
    impl, name, patterns = implementation("bash"), None, []
    while args:
        flag = args.pop(0)
        if flag in ("--impl", "--command", "--name") and args:
            value = args.pop(0)
            if flag == "--impl":
                impl = implementation(value)
            elif flag == "--command":
                impl = Implementation("command", {"*": value})
            else:
                name = value
        else:
            patterns.append(flag)
    if name:
        impl.name = name
    problems = corpus_problems()
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    return run(impl, select_cases(patterns))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
