"""The README's examples, run as written: an example that drifts from the code fails here.

The README marks what it shows with HTML comments (invisible on the page) before a fence:

    <!-- readme-file: ws/answer.md -->       an input file, at that path under ~
    <!-- readme-example: bash -->            a console session: "$ " lines are commands
                                             (a trailing "\\" continues one), the lines up
                                             to the next command are its output
    <!-- readme-example: python -->          a program, run in ~/ws ...
    <!-- readme-output: python -->           ... whose standard output is this block

Each example runs in a sandbox of its own: HOME is a fresh directory holding every
readme-file and `datarim-snapshots`, a symlink to this checkout (the README's "clone in
~/datarim-snapshots"). Output is compared byte for byte, the sandbox's HOME written as
/home/op, the home the README shows; every command must exit 0.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
SHOWN_HOME = "/home/op"
MARKER = re.compile(
    r"^<!-- readme-(file|example|output): (\S+) -->\n```[^\n]*\n(.*?)^```$",
    re.MULTILINE | re.DOTALL,
)


def _marked(text: str) -> list[tuple[str, str, str]]:
    """(kind, name, block text) for every marked fence, in README order."""
    return [(kind, name, body) for kind, name, body in MARKER.findall(text)]


def _blocks(kind: str, name: str | None = None) -> list[str]:
    return [
        body
        for k, n, body in _marked(README.read_text(encoding="utf-8"))
        if k == kind and name in (None, n)
    ]


def _sandbox(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    home = tmp_path.resolve() / "home"
    home.mkdir()
    (home / "datarim-snapshots").symlink_to(REPO)
    for _, path, body in (m for m in _marked(README.read_text(encoding="utf-8")) if m[0] == "file"):
        target = home / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "GIT_CEILING_DIRECTORIES": str(tmp_path.resolve()),
    }
    return home, env


def _session(console: str) -> list[tuple[str, str]]:
    """(command, expected output) pairs of a console block."""
    pairs: list[tuple[str, str]] = []
    lines = console.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        assert line.startswith("$ "), f"console block: output before any command: {line!r}"
        command = line[2:]
        while command.rstrip("\n").endswith("\\"):
            i += 1
            command += lines[i]
        i += 1
        output = ""
        while i < len(lines) and not lines[i].startswith("$ "):
            output += lines[i]
            i += 1
        pairs.append((command.rstrip("\n"), output))
    return pairs


def _run_console(console: str, home: Path, env: dict[str, str]) -> list[tuple[str, str, str]]:
    """Runs the session in one bash (cd and export carry over): (command, expected, got)."""
    pairs = _session(console)
    script = ""
    for n, (command, _) in enumerate(pairs):
        script += f"printf '@@readme {n}@@\\n'\n{{ {command}\n}} 2>&1\n"
        script += "printf '@@status %s@@\\n' \"$?\"\n"
    done = subprocess.run(
        ["bash", "-c", script],
        check=False,
        cwd=home,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
    )
    assert done.stderr == b"", done.stderr.decode(errors="replace")
    got = done.stdout.decode("utf-8").replace(str(home), SHOWN_HOME)
    results: list[tuple[str, str, str]] = []
    for n, (command, expected) in enumerate(pairs):
        part = got.split(f"@@readme {n}@@\n", 1)[1].split("@@status ", 1)
        status = part[1].split("@@", 1)[0]
        results.append(
            (
                command,
                expected,
                part[0] + ("" if status == "0" else f"[exit {status}]\n"),
            )
        )
    return results


def test_the_readme_marks_a_bash_and_a_python_example() -> None:
    assert len(_blocks("example", "bash")) == 1
    assert len(_blocks("example", "python")) == 1
    assert len(_blocks("output", "python")) == 1
    assert _blocks("file"), "the examples show no input file"


def test_the_bash_example_prints_what_the_readme_shows(tmp_path: Path) -> None:
    home, env = _sandbox(tmp_path)
    for command, expected, got in _run_console(_blocks("example", "bash")[0], home, env):
        assert got == expected, f"README command: $ {command}"


def test_the_python_example_prints_what_the_readme_shows(tmp_path: Path) -> None:
    home, env = _sandbox(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", _blocks("example", "python")[0]],
        check=False,
        cwd=home / "ws",
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert done.stdout.decode("utf-8") == _blocks("output", "python")[0]
    assert done.stderr == b""


def test_the_python_example_leaves_a_valid_snapshot(tmp_path: Path) -> None:
    home, env = _sandbox(tmp_path)
    subprocess.run(
        [sys.executable, "-c", _blocks("example", "python")[0]],
        cwd=home / "ws",
        env=env,
        check=True,
        capture_output=True,
        timeout=60,
    )
    assert (home / "ws/datarim/snapshots/TUNE-0040.snapshot.md").is_file()
    check = subprocess.run(
        [
            str(REPO / "dev-tools/check-stage-snapshot-on-exit.sh"),
            "--task",
            "TUNE-0040",
        ],
        check=False,
        cwd=home / "ws",
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert (check.returncode, check.stderr) == (0, b"")
