"""What the fuzzers share (docs/testing.md): the example budget, a workspace's state
before and after a call, and how to run a call through each implementation."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Callable, NamedTuple

from datarim_snapshot import _cli as cli
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# make test: a few dozen examples per property; make fuzz: 2000.
EXAMPLES = int(os.environ.get("DATARIM_FUZZ_EXAMPLES", "40"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
Outcome = tuple[int, bytes, bytes]  # exit code, stdout, stderr
TreeState = dict[str, tuple[str, bytes]]  # tree_state(base)


def tree_state(base: Path) -> dict[str, tuple[str, bytes]]:
    """Every entry below base: its mode and, for a file, its bytes (captured_at blanked,
    since a write without --captured-at stamps the clock, and base as {BASE}, since
    a value may name a path below it); a symlink: its target."""
    seen = {}
    for dirpath, dirnames, filenames in os.walk(base):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            info = os.lstat(path)
            data = b""
            if stat.S_ISREG(info.st_mode):
                data = re.sub(
                    rb"\ncaptured_at: [^\n]*", b"\ncaptured_at: -", Path(path).read_bytes()
                ).replace(str(base).encode(), b"{BASE}")
            elif stat.S_ISLNK(info.st_mode):
                data = os.readlink(path).replace(str(base), "{BASE}").encode()
            seen[os.path.relpath(path, base)] = (stat.filemode(info.st_mode), data)
    return seen


def run_bash(script: Path, argv: list[str], cwd: Path) -> Outcome:
    env = {"PATH": os.environ["PATH"], "HOME": str(cwd), "LC_ALL": "C.UTF-8", "TZ": "UTC"}
    proc = subprocess.run(
        [str(script), *argv], cwd=cwd, env=env, capture_output=True, timeout=60,
        stdin=subprocess.DEVNULL,  # the same empty standard input run_python gives
    )  # fmt: skip
    return proc.returncode, proc.stdout, proc.stderr


def run_python(command: str, argv: list[str], cwd: Path) -> Outcome:
    """`datarim-snapshot <command> argv`, in this process, from cwd."""
    saved, saved_stdin = os.getcwd(), sys.stdin
    out, err = io.BytesIO(), io.BytesIO()
    try:
        os.chdir(cwd)
        # An empty standard input, as run_bash gives: pytest's own refuses every
        # read, and a fuzzed `-` value would then differ for that reason alone.
        sys.stdin = io.TextIOWrapper(io.BytesIO())
        code = cli.main([command, *argv], out, err)
    finally:
        sys.stdin = saved_stdin
        os.chdir(saved)
    return code, out.getvalue(), err.getvalue()


class Writer(NamedTuple):
    """A writer as the fuzzers call it: its bash script, its `datarim-snapshot`
    command, the program name its messages open with, and its datarim/ folder."""

    script: Path
    command: str
    program: str
    area: str  # "snapshots" or "sessions"


def through_both_writers(
    base: Path,
    argv: list[str],
    writer: Writer,
    sandbox: Callable[[Path], Path],
    check: Callable[[Path, bytes, bytes, dict[str, str]], None],
) -> Outcome:
    """argv ("{IN}" standing for base/in) through both implementations of writer, each
    in a fresh sandbox(base), which makes base and returns where the writer runs.
    Each call is judged: what refused() asks of every call; for a write, nothing
    removed, nothing changed outside datarim/<area>/, and check(base, stdout, stderr
    without the new knowledge base notice, {artefact path below base: its ID}).
    Asserts both gave the same code, output and tree; returns the outcome, base in it
    as {BASE}."""
    results = []
    for run in (partial(run_bash, writer.script), partial(run_python, writer.command)):
        # One path for both: a value naming a file of it ("{IN}/body") may be
        # written into the artefact, whose bytes (and size_bytes) must then agree.
        shutil.rmtree(base, ignore_errors=True)
        cwd = sandbox(base)
        before = tree_state(base)
        code, out, err = outcome = run([a.replace("{IN}", str(base / "in")) for a in argv], cwd)
        if not refused(writer.program, before, base, outcome):
            after = tree_state(base)
            written = _written(writer.area, before, after)
            check(
                base, out, without_new_kb_notice(writer.program, err, before, after, base), written
            )
        out, err = (stream.replace(str(base).encode(), b"{BASE}") for stream in (out, err))
        results.append(((code, out, err), tree_state(base)))
    assert results[0] == results[1], argv
    return results[1][0]


def _written(area: str, before: TreeState, after: TreeState) -> dict[str, str]:
    """The artefacts a write changed, {path: ID}; asserts it removed nothing and
    changed nothing but directories up to datarim/<area>/ and files in it named
    <ID>.<kind>.md."""
    assert not set(before) - set(after), "a write removed an entry"
    artefact = rf"(.*/)?datarim(/{area}(/(?P<id>[^/]+)\.{area[:-1]}\.md)?)?"
    written = {}
    for rel in (p for p in after if after[p] != before.get(p)):
        match = re.fullmatch(artefact, rel)
        assert match, f"a write touched {rel}, outside datarim/{area}/"
        if match.group("id") is None:
            assert after[rel][0].startswith("d")
        else:
            written[rel] = match.group("id")
    return written


def refused(
    program: str, before: dict[str, tuple[str, bytes]], base: Path, outcome: Outcome
) -> bool:
    """Checks what every writer owes on any input (an exit code it documents, no
    traceback) and, for a refusal, that nothing changed and one line (or --help's
    usage; after missing flags, the line and the usage) was printed. True when the
    call was refused."""
    code, out, err = outcome
    assert code in (0, 1, 2), code
    assert b"Traceback" not in err
    if code == 0:
        return False
    assert tree_state(base) == before, "a refused write changed the workspace"
    usage = f"Usage: {USAGE_NAMES.get(program, program)} ".encode()
    if out:  # --help: the usage on stdout, exit 2
        assert code == 2 and err == b"" and out.startswith(usage)
        return True
    line, _, rest = err.partition(b"\n")
    assert line.startswith(f"{program}: ".encode())
    if b": missing required flag(s):" in line:  # the usage follows (spec §8)
        assert code == 2 and rest.startswith(usage)
    else:
        assert rest == b""
    return True


# What makes a datarim/ a knowledge base (spec §8).
KB_MARKERS = ("tasks.md", "backlog.md", "activeContext.md", "tasks", "snapshots", "sessions")


def without_new_kb_notice(
    program: str,
    err: bytes,
    before: dict[str, tuple[str, bytes]],
    after: dict[str, tuple[str, bytes]],
    base: Path,
) -> bytes:
    """A successful write's stderr without the notice that opens it when the write
    started a knowledge base (its datarim/ held none of KB_MARKERS before); asserts
    the notice is there then. What is left must be checked by the caller."""
    artefact = r"((?:.*/)?datarim)/(?:snapshots|sessions)/[^/]+\.(?:snapshot|session)\.md"
    for rel in after:
        match = re.fullmatch(artefact, rel)
        if match is None or after[rel] == before.get(rel):
            continue
        datarim = match.group(1)
        if any(f"{datarim}/{marker}" in before for marker in KB_MARKERS):
            continue
        where = os.path.realpath(base / datarim)
        notice = f"{program}: created a new knowledge base in {where} (is --root right?)\n"
        assert err.startswith(notice.encode()), err
        err = err[len(notice) :]
    return err


# The name a writer's usage text opens with: the reference's function names (spec §8).
USAGE_NAMES = {
    "snapshot-writer": "write_stage_snapshot",
    "session-handoff-writer": "write_session_handoff",
}


def writer_workspace(base: Path, area: str, inputs: dict[str, bytes]) -> Path:
    """base/ws: a knowledge base with datarim/<area>/, a sub/ directory and a link to it;
    base/in holds the input files. Returns base/ws/a/b, where the fuzzed writer runs
    (so that --root . and ../.. mean two different places)."""
    (base / "ws" / "datarim" / area).mkdir(parents=True)
    (base / "ws" / "datarim" / "activeContext.md").write_bytes(b"# context\n")
    (base / "ws" / "sub").mkdir()
    (base / "ws" / "a" / "b").mkdir(parents=True)
    (base / "ws" / "link").symlink_to(base / "ws" / "sub")
    (base / "in").mkdir()
    for name, data in inputs.items():
        (base / "in" / name).write_bytes(data)
    return base / "ws" / "a" / "b"


def mutate_lines(lines: list[bytes], i: int, j: int, op: str, value: bytes) -> None:
    """One line mutation, in place: dup, del or swap lines i and j, or (op "value")
    give line i's "key: value" field another value."""
    if op == "dup":
        lines.insert(i, lines[i])
    elif op == "del":
        del lines[i]
    elif op == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif b": " in lines[i]:
        lines[i] = lines[i].split(b": ", 1)[0] + b": " + value


def flag_values(
    draw: st.DrawFn,
    flags: list[str],
    valid: dict[str, list[str]],
    hostile: st.SearchStrategy[str],
) -> list[str]:
    """An argv of flags (in a drawn order) with valid values, but for up to two
    drawn flags: those get a hostile value, or (one time in ten) go missing."""
    wanted_bad = draw(st.integers(0, 2))
    chosen = st.lists(st.sampled_from(list(valid)), min_size=wanted_bad, max_size=wanted_bad)
    bad = set(draw(chosen))
    argv: list[str] = []
    for flag in draw(st.permutations(flags)):
        if flag in bad and draw(st.integers(0, 9)) == 0:
            continue  # a missing flag
        strategy = hostile if flag in bad else st.sampled_from(valid[flag])
        if flag == "--root":
            # "/" is a root a write accepts: it would make the machine's own /datarim,
            # out of the sandbox's sight (and a knowledge base every root discovery finds).
            strategy = strategy.filter(lambda value: value != "/")
        argv += [flag, draw(strategy)]
    return argv


def decoded(data: bytes, cap: int) -> tuple[str | None, list[str]]:
    """data as text (None when it is no UTF-8) and the byte-level reasons the
    contract rejects it: over the cap, not UTF-8, a NUL."""
    found = ["over the cap"] if len(data) > cap else []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, found + ["not UTF-8"]
    if "\0" in text:
        found.append("NUL")
    return text, found


def quote_plain_forms(front: str, scalars: tuple[str, ...], lists: tuple[str, ...]) -> str:
    """The frontmatter lines of spec §8's plain forms, quoted as a YAML reader needs
    them: a value of one of scalars, or an item ("  - ") of one of lists, that does
    not open with a double quote is the rest of its line verbatim, ': ' and ' #'
    included. (A value that does open with one is read as YAML reads it.)"""
    out = []
    current = ""
    for line in front.split("\n"):
        if line and line[0] not in " \t":
            current = line.split(":", 1)[0]
            value = line[len(current) + 2 :]
            if current in scalars and line.startswith(current + ": ") and value[:1] != '"':
                line = f"{current}: {json.dumps(value, ensure_ascii=False)}"
        elif current in lists and line.startswith("  - ") and line[4:5] != '"':
            line = "  - " + json.dumps(line[4:], ensure_ascii=False)
        out.append(line)
    return "\n".join(out)
