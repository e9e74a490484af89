"""What the fuzzers share (README "Hardening"): the example budget, a workspace's state
before and after a call, and how to run a call through each implementation."""

from __future__ import annotations

import io
import os
import re
import stat
import subprocess
from pathlib import Path

from datarim_snapshot import cli
from hypothesis import HealthCheck, settings

# make test: a few dozen examples per property; make fuzz: 2000.
EXAMPLES = int(os.environ.get("DATARIM_FUZZ_EXAMPLES", "40"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
Outcome = tuple[int, bytes, bytes]  # exit code, stdout, stderr


def tree_state(base: Path) -> dict[str, tuple[str, bytes]]:
    """Every entry below base: its mode and, for a file, its bytes (captured_at blanked,
    since a write without --captured-at stamps the clock); a symlink: its target."""
    seen = {}
    for dirpath, dirnames, filenames in os.walk(base):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            info = os.lstat(path)
            data = b""
            if stat.S_ISREG(info.st_mode):
                data = re.sub(
                    rb"\ncaptured_at: [^\n]*", b"\ncaptured_at: -", Path(path).read_bytes()
                )
            elif stat.S_ISLNK(info.st_mode):
                data = os.readlink(path).replace(str(base), "{BASE}").encode()
            seen[os.path.relpath(path, base)] = (stat.filemode(info.st_mode), data)
    return seen


def run_bash(script: Path, argv: list[str], cwd: Path) -> Outcome:
    env = {"PATH": os.environ["PATH"], "HOME": str(cwd), "LC_ALL": "C.UTF-8", "TZ": "UTC"}
    proc = subprocess.run([str(script), *argv], cwd=cwd, env=env, capture_output=True, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def run_python(command: str, argv: list[str], cwd: Path) -> Outcome:
    """`datarim-snapshot <command> argv`, in this process, from cwd."""
    saved = os.getcwd()
    out, err = io.BytesIO(), io.BytesIO()
    try:
        os.chdir(cwd)
        code = cli.main([command, *argv], out, err)
    finally:
        os.chdir(saved)
    return code, out.getvalue(), err.getvalue()
