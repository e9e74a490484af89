"""Loads the conformance corpus (tests/conformance/README.md) and runs it on one implementation."""

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
RUN_TIMEOUT = 60


@dataclass
class Suite:
    name: str
    bash: str
    python: str


@dataclass
class Case:
    suite: Suite
    name: str
    path: Path

    @property
    def id(self) -> str:
        return f"{self.suite.name}/{self.name}"


@dataclass
class Outcome:
    exit: int
    stdout: bytes
    stderr: bytes
    tree: str
    files: dict[str, bytes] = field(default_factory=dict)
    before: dict[str, bytes] = field(default_factory=dict)


def decode_escapes(text: str) -> str:
    """\\\\ \\n \\r \\t \\xHH, as in args and env lines; \\xHH >= 0x80 yields a raw byte."""

    def one(match: re.Match[str]) -> str:
        token = match.group(0)
        simple = {"\\\\": "\\", "\\n": "\n", "\\r": "\r", "\\t": "\t"}
        if token in simple:
            return simple[token]
        return os.fsdecode(bytes([int(token[2:], 16)]))

    return re.sub(r"\\\\|\\n|\\r|\\t|\\x[0-9a-fA-F]{2}", one, text)


def load_suites() -> list[Suite]:
    suites = []
    for directory in sorted(SUITES.iterdir()):
        conf = dict(
            line.split("=", 1)
            for line in (directory / "SUITE").read_text().splitlines()
            if line.strip()
        )
        suites.append(Suite(directory.name, conf["bash"], conf["python"]))
    return suites


def load_cases() -> list[Case]:
    cases = []
    for suite in load_suites():
        for directory in sorted((SUITES / suite.name).iterdir()):
            if directory.is_dir():
                cases.append(Case(suite, directory.name, directory))
    return cases


def corpus_problems() -> list[str]:
    """What is wrong with the corpus itself: checked before any implementation runs."""
    problems = []
    names: set[str] = set()
    for case in load_cases():
        if case.id in names:
            problems.append(f"{case.id}: duplicate name")
        names.add(case.id)
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", case.name):
            problems.append(f"{case.id}: case names are lower-case words joined by '-'")
        for entry in case.path.iterdir():
            if entry.name not in CASE_ENTRIES:
                problems.append(f"{case.id}: unknown entry {entry.name}")
        expect = case.path / "expect"
        for required in ("exit", "tree"):
            if not (expect / required).is_file():
                problems.append(f"{case.id}: expect/{required} is missing")
        if expect.is_dir():
            for entry in expect.iterdir():
                if entry.name not in EXPECT_ENTRIES:
                    problems.append(f"{case.id}: unknown entry expect/{entry.name}")
        if not (case.path / "args").is_file():
            problems.append(f"{case.id}: args is missing")
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
    lines = (case.path / "args").read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [decode_escapes(_substitute(line, case, sandbox)) for line in lines]


def case_env(case: Case, sandbox: Path) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("CONFORMANCE_PATH", os.environ["PATH"]),
        "HOME": str(sandbox / "home"),
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
    }
    path = case.path / "env"
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line:
                name, value = line.split("=", 1)
                env[name] = decode_escapes(_substitute(value, case, sandbox))
    return env


def _read_optional(path: Path, default: bytes = b"") -> bytes:
    return path.read_bytes() if path.exists() else default


def case_stdin(case: Case, sandbox: Path) -> bytes:
    """The bytes of `stdin`, or of the sandbox file named by `stdin-from` (made by setup)."""
    source = case.path / "stdin-from"
    if source.exists():
        return (sandbox / source.read_text().strip()).read_bytes()
    return _read_optional(case.path / "stdin")


def ignored_paths(case: Case) -> set[str]:
    """in/ and the case's `ignore` lines: subtrees neither listed nor compared."""
    paths = {"in"}
    path = case.path / "ignore"
    if path.exists():
        lines = path.read_text().splitlines()
        paths |= {line.strip().rstrip("/") for line in lines if line.strip()}
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
            lines.append((rel.encode(), line))
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
    return int(path.read_text().strip(), 8) if path.exists() else 0o022


def _cwd(case: Case, sandbox: Path) -> Path:
    path = case.path / "cwd"
    return sandbox / path.read_text().strip() if path.exists() else sandbox / "ws"


Runner = Callable[[Case, Path], "tuple[int, bytes, bytes]"]


def run_subprocess(argv0: list[str]) -> Runner:
    """An implementation given as a command prefix, run with the case's env, cwd, umask, stdin."""

    def runner(case: Case, sandbox: Path) -> tuple[int, bytes, bytes]:
        umask = _umask(case)
        proc = subprocess.run(
            argv0 + case_args(case, sandbox),
            cwd=_cwd(case, sandbox),
            env=case_env(case, sandbox),
            input=case_stdin(case, sandbox),
            capture_output=True,
            timeout=RUN_TIMEOUT,
            preexec_fn=lambda: os.umask(umask),
        )
        return proc.returncode, proc.stdout, proc.stderr

    return runner


def bash_runner() -> Runner:
    def runner(case: Case, sandbox: Path) -> tuple[int, bytes, bytes]:
        return run_subprocess([str(REPO / case.suite.bash)])(case, sandbox)

    return runner


def python_command_runner() -> Runner:
    def runner(case: Case, sandbox: Path) -> tuple[int, bytes, bytes]:
        prefix = [sys.executable, "-m", "datarim_snapshot", case.suite.python]
        return run_subprocess(prefix)(case, sandbox)

    return runner


def python_inprocess_runner() -> Runner:
    """datarim_snapshot.cli.main called in this process with the case's env, cwd, umask, stdin."""

    def runner(case: Case, sandbox: Path) -> tuple[int, bytes, bytes]:
        from datarim_snapshot import cli

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
            code = cli.main([case.suite.python, *case_args(case, sandbox)], out, err)
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


def mismatches(case: Case, outcome: Outcome) -> list[str]:
    """Every way the outcome differs from the case's expectations (empty: it passes)."""
    expect = case.path / "expect"
    problems = []
    want_exit = int((expect / "exit").read_text().strip())
    if outcome.exit != want_exit:
        problems.append(f"exit {outcome.exit}, want {want_exit}")
    for stream in ("stdout", "stderr"):
        want = _read_optional(expect / stream)
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


def write_expectations(case: Case, outcome: Outcome) -> None:
    """Records an outcome as the case's expectations (used by bless.py)."""
    expect = case.path / "expect"
    if expect.exists():
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
            target.write_bytes(data)


def find_case(case_id: str) -> Case | None:
    for case in load_cases():
        if case.id == case_id:
            return case
    return None
