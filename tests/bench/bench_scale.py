"""`make bench`'s rows for issue 21, "cost that does not grow with the work": each row
names the figure, its median and the goal it is held against. Nothing passes or
fails here; docs/performance.md quotes the figures.

`tests/bench/bench.py scale` prints these rows alone (BENCH_SCALE_RUNS rounds, 5 by
default; the folders of 10,000 snapshots and the 50,000-file repository take some
seconds to build). Actions compared with each other run one after the other in the
same rounds, so that their medians and ratios share the machine's load.
"""

from __future__ import annotations

import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[2]
DEV = REPO / "dev-tools"
sys.path.insert(0, str(REPO / "tests" / "python"))
from sample import do_stage_args  # noqa: E402

WRITER = DEV / "snapshot-writer-wrapper.sh"
LIBRARY = REPO / "scripts" / "lib" / "snapshot-writer.sh"
FLOOR = REPO / "tests" / "bench" / "bench-floor.sh"
RUNS = int(os.environ.get("BENCH_SCALE_RUNS", "5"))
# The reference implementation (github.com/Arcanada-one/datarim), mirrored as a bare
# git directory; its writer is taken out of it once into .bench/reference/<commit>.
REFERENCE_GIT = Path(
    os.environ.get("DATARIM_REFERENCE_GIT", "/work/.mirror/Arcanada-one+datarim/repo")
)
REFERENCE_FILES = ["dev-tools/snapshot-writer-wrapper.sh", "scripts/lib"]

Row = tuple[str, str, str]


def python_entry() -> list[str]:
    entry = Path(sys.executable).parent / "datarim-snapshot"
    return [str(entry)] if entry.exists() else [sys.executable, "-m", "datarim_snapshot"]


def growth_row(label: str, small: float, big: float, growth: str) -> Row:
    """One action's row on a small and a big input: both times (ms), then the growth."""
    return (label, f"{small:.1f} ms", f"{big:.1f} ms: {growth}")


def call(
    argv: list[str],
    stdin: bytes = b"",
    env: dict[str, str] | None = None,
    ok: tuple[int, ...] = (0,),
) -> None:
    done = subprocess.run(argv, input=stdin, capture_output=True, env=env)
    if done.returncode not in ok:
        raise SystemExit(f"{argv[0]} exited {done.returncode}: {done.stderr.decode()[:300]}")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def rounds(
    actions: dict[str, Callable[[], None]], runs: int = RUNS
) -> dict[str, tuple[float, float]]:
    """Runs every action once a round (a first round warms caches); the median wall
    time and the median CPU time of the children, in ms, of each."""
    wall: dict[str, list[float]] = {name: [] for name in actions}
    cpu: dict[str, list[float]] = {name: [] for name in actions}
    for number in range(runs + 1):
        for name, action in actions.items():
            cpu_before = children_cpu()
            start = time.perf_counter()
            action()
            if number:
                wall[name].append((time.perf_counter() - start) * 1000)
                cpu[name].append((children_cpu() - cpu_before) * 1000)
    return {name: (statistics.median(wall[name]), statistics.median(cpu[name])) for name in actions}


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=bench", "-c", "user.email=b@example.com", *args],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def make_repo(repo: Path, files: int) -> None:
    """A git work tree of <files> committed files (200 a folder), its index settled
    (no racily clean entry that git would read again on every status)."""
    repo.mkdir(parents=True)
    for n in range(files):
        folder = repo / "src" / f"d{n // 200}"
        if n % 200 == 0:
            folder.mkdir(parents=True)
        (folder / f"f{n % 200}.txt").write_text(f"{n}\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "bench")
    time.sleep(1.1)
    git(repo, "update-index", "--refresh")
    git(repo, "status", "--porcelain")


def make_snapshots(root: Path, count: int) -> None:
    """<count> snapshots, one in 97 of them invalid (a byte too many)."""
    from datarim_snapshot._snapshot_writer import render_snapshot

    folder = root / "datarim" / "snapshots"
    folder.mkdir(parents=True)
    body = b"Stage summary: plan verified, 3 steps, 2 risks.\n" * 20
    for n in range(count):
        task = f"SCALE-{n:05d}"
        data = render_snapshot(
            task,
            "do",
            "/dr-do",
            "agent",
            "/dr-qa",
            "2026-01-01T00:00:00Z",
            b"/dr-qa SCALE-0001 | coverage\n",
            body,
        )
        (folder / f"{task}.snapshot.md").write_bytes(data + (b"x" if n % 97 == 5 else b""))


def write_args(root: Path, base: Path, task: str = "SCALE-0001") -> list[str]:
    return [
        *do_stage_args(root, task, base / "body.md"),
        "--options-file",
        str(base / "options.txt"),
    ]


def reference_writer(base: Path) -> Path | None:
    """The reference's writer, from the cache or taken out of the mirror; None (the
    row is left out, with a note) where neither is at hand, as in CI."""
    if not (REFERENCE_GIT / "HEAD").exists():
        return None
    commit = subprocess.run(
        ["git", "--git-dir", str(REFERENCE_GIT), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if not commit:
        return None
    cache = REPO / ".bench" / "reference" / commit
    wrapper = cache / REFERENCE_FILES[0]
    if not wrapper.exists():
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "--git-dir", str(REFERENCE_GIT), "archive", commit, *REFERENCE_FILES],
            capture_output=True,
            check=False,
        )
        if archive.returncode:
            return None
        subprocess.run(["tar", "-x", "-C", str(cache)], input=archive.stdout, check=True)
    return wrapper


def writer_rows(base: Path) -> list[Row]:
    """Ours against the reference and against the floor, in the same rounds."""
    root = base / "ref-ws"
    root.mkdir()
    # Each script is started as `bash <script>`, the way the /dr-* commands
    # start either writer: through its `#!/usr/bin/env bash` line, env would
    # add a program start (and a search of PATH) to ours and the floor alone.
    actions: dict[str, Callable[[], None]] = {
        "bash": lambda: call(["bash", str(WRITER), *write_args(root, base)]),
        "floor": lambda: call(["bash", str(FLOOR), str(base)]),
        # What the floor leaves out and no write can: bash reading the code it
        # runs (the libraries sourced, nothing called), over bash alone.
        "sourced": lambda: call(["bash", "-c", '. "$1"', "-", str(LIBRARY)]),
        "bash alone": lambda: call(["bash", "-c", ":"]),
    }
    reference = reference_writer(base)
    if reference is not None:
        ref_root = base / "ref-ref"
        ref_root.mkdir()
        actions["reference"] = lambda: call(["bash", str(reference), *write_args(ref_root, base)])
    ms = rounds(actions, max(RUNS, 15))
    bash_wall, bash_cpu = ms["bash"]
    rows: list[Row] = []
    if reference is None:
        rows.append(("bash writer vs the reference", "-", "left out: no mirror of the reference"))
    else:
        ref_wall, ref_cpu = ms["reference"]
        rows.append(
            ("reference writer (its bash), one call", f"{ref_wall:.1f} ms", f"CPU {ref_cpu:.1f} ms")
        )
        rows.append(
            (
                "bash writer, one call",
                f"{bash_wall:.1f} ms",
                f"{ref_wall / bash_wall:.2f}x faster wall, {ref_cpu / bash_cpu:.2f}x CPU"
                " (goal >= 3.3x)",
            )
        )
    floor_wall, floor_cpu = ms["floor"]
    rows.append(
        (
            "  floor: bash + the 5 tools, no logic",
            f"{floor_wall:.1f} ms",
            f"writer {bash_wall / floor_wall:.2f}x the floor, CPU {bash_cpu / floor_cpu:.2f}x"
            " (goal <= 1.3x)",
        )
    )
    reading = ms["sourced"][0] - ms["bash alone"][0]
    reading_cpu = ms["sourced"][1] - ms["bash alone"][1]
    rows.append(
        (
            "  bash reading the writer's libraries",
            f"{reading:.1f} ms",
            f"CPU {reading_cpu:.1f} ms: the floor with it alone"
            f" {(floor_wall + reading) / floor_wall:.2f}x the floor,"
            f" CPU {(floor_cpu + reading_cpu) / floor_cpu:.2f}x",
        )
    )
    return rows


def folder_rows(base: Path) -> list[Row]:
    """snapshot-list, doctor and one write with 10, 1,000 and 10,000 snapshots."""
    rows: list[Row] = []
    py = python_entry()
    roots = {}
    for count in (10, 1000, 10000):
        roots[count] = base / f"folder-{count}"
        make_snapshots(roots[count], count)
    env = {**os.environ, "DATARIM_SNAPSHOT_GIT": "0", "DATARIM_STATE_DIR": str(base / "state")}
    for count, root in roots.items():
        runs = RUNS if count < 10000 else max(3, RUNS // 2)
        actions: dict[str, Callable[[], None]] = {
            "bash list": partial(
                call, [str(DEV / "snapshot-list.sh"), "--root", str(root)], env=env
            ),
            "bash doctor": partial(
                call, [str(DEV / "doctor.sh"), "--root", str(root)], env=env, ok=(0, 1)
            ),
            "python list": partial(call, [*py, "list", "--root", str(root)], env=env),
            "python doctor": partial(
                call, [*py, "doctor", "--root", str(root)], env=env, ok=(0, 1)
            ),
        }
        ms = rounds(actions, runs)
        goal = {10: "", 1000: " (goal <= 300 ms)", 10000: " (goal <= 2000 ms)"}[count]
        for name, (wall, cpu) in ms.items():
            note = f"CPU {cpu:.0f} ms" + (goal if name.startswith("bash") else "")
            rows.append((f"{name}, {count:,} snapshots", f"{wall:.0f} ms", note))
    writes: dict[str, Callable[[], None]] = {}
    for count in (10, 10000):
        root = roots[count]
        writes[f"bash {count}"] = partial(call, [str(WRITER), *write_args(root, base)], env=env)
        writes[f"python {count}"] = partial(call, [*py, "write", *write_args(root, base)], env=env)
    ms = rounds(writes, max(RUNS, 15))
    for lang in ("bash", "python"):
        small, big = ms[f"{lang} 10"][0], ms[f"{lang} 10000"][0]
        growth = f"{big - small:+.1f} ms (goal: no scan of the folder)"
        rows.append(
            growth_row(f"{lang} write, 10 / 10,000 snapshots in the folder", small, big, growth)
        )
    return rows


def git_rows(base: Path) -> list[Row]:
    """One write in a 10-file, a 10,000-file (the most whose dirtiness a write
    checks) and a 50,000-file git work tree; git off for scale."""
    small, limit = base / "git-10", base / "git-10000"
    big, plain = base / "git-50000", base / "no-git"
    make_repo(small, 10)
    make_repo(limit, 10000)
    make_repo(big, 50000)
    plain.mkdir()
    py = python_entry()
    actions: dict[str, Callable[[], None]] = {}
    trees = (("no git", plain), ("10 files", small), ("10,000 files", limit), ("50,000 files", big))
    for lang, argv in (("bash", [str(WRITER)]), ("python", [*py, "write"])):
        for name, root in trees:
            actions[f"{lang} {name}"] = partial(call, [*argv, *write_args(root, base)])
    actions["python -c pass"] = partial(call, [sys.executable, "-c", "pass"])
    ms = rounds(actions, max(RUNS, 11))
    rows: list[Row] = []
    for lang in ("bash", "python"):
        none, ten, at_limit, many = (ms[f"{lang} {name}"][0] for name, _ in trees)
        rows.append(
            (
                f"{lang} write, no git / 10-file repo",
                f"{none:.1f} ms",
                f"{ten:.1f} ms in git" + (" (goal <= 22 ms in git)" if lang == "python" else ""),
            )
        )
        if lang == "python":
            floor_wall, floor_cpu = ms["python -c pass"]
            ten_cpu = ms["python 10 files"][1]
            rows.append(
                (
                    "  floor: the interpreter, python -c pass",
                    f"{floor_wall:.1f} ms",
                    f"write in git {ten / floor_wall:.2f}x it, CPU {ten_cpu / floor_cpu:.2f}x",
                )
            )
        rows.append(
            (
                f"{lang} write, 10,000-file repo (dirtiness still checked)",
                f"{at_limit:.1f} ms",
                f"{at_limit / ten:.2f}x the 10-file repo",
            )
        )
        rows.append(
            (
                f"{lang} write, 50,000-file repo (git_dirty not checked)",
                f"{many:.1f} ms",
                f"{many / ten:.2f}x the 10-file repo (goal <= 1.5x)",
            )
        )
    # What a dirty check costs in the big repository, by what it looks at: the
    # writer's (the work tree, untracked files included), the work tree's
    # tracked files only, and the index against HEAD (no file of the tree).
    pathspec = ["--", ":(exclude)datarim"]
    checks = {
        "status": ["status", "--porcelain=v2", "--branch", "--no-ahead-behind", *pathspec],
        "status --untracked-files=no": [
            "status", "--porcelain=v2", "--branch", "--no-ahead-behind", "--untracked-files=no",
            *pathspec,
        ],
        "diff-index --quiet HEAD": ["diff-index", "--quiet", "HEAD", *pathspec],
        "diff-index --cached HEAD": ["diff-index", "--cached", "--quiet", "HEAD", *pathspec],
    }  # fmt: skip
    git_ms = rounds(
        {
            n: partial(call, ["git", "-C", str(big), "--no-optional-locks", *a])
            for n, a in checks.items()
        },
        max(RUNS, 11),
    )
    for name, (wall, _) in git_ms.items():
        rows.append((f"  git {name}, 50,000 files", f"{wall:.1f} ms", ""))
    return rows


def session_rows(base: Path) -> list[Row]:
    """The bash session check and replay of a 0.7 KB and a 32 KB session file (one
    block and 45 blocks of the corpus's valid-two-blocks case)."""
    source = (
        REPO
        / "tests"
        / "conformance"
        / "suites"
        / "session-check"
        / "valid-two-blocks"
        / "root"
        / "datarim"
        / "sessions"
        / "SESSION-20260521-134500.session.md"
    )
    text = source.read_text()
    block = text[: text.index("---\nartifact", 4)]
    actions: dict[str, Callable[[], None]] = {}
    sizes = {}
    for blocks in (1, 45):
        root = base / f"session-{blocks}"
        folder = root / "datarim" / "sessions"
        folder.mkdir(parents=True)
        data = "".join(
            block.replace("2026-05-21T13:45:00Z", f"2026-05-21T{10 + n // 60:02d}:{n % 60:02d}:00Z")
            for n in range(blocks)
        ).encode()
        (folder / "SESSION-20260521-134500.session.md").write_bytes(data)
        sizes[blocks] = len(data) / 1024
        args = ["--session", "SESSION-20260521-134500", "--root", str(root)]
        actions[f"check {blocks}"] = partial(call, [str(DEV / "check-session-handoff.sh"), *args])
        actions[f"replay {blocks}"] = partial(call, [str(DEV / "session-replay.sh"), *args])
    ms = rounds(actions, max(RUNS, 11))
    rows: list[Row] = []
    for kind in ("check", "replay"):
        small, big = ms[f"{kind} 1"][0], ms[f"{kind} 45"][0]
        label = f"bash session {kind}, {sizes[1]:.1f} KB / {sizes[45]:.1f} KB"
        rows.append(growth_row(label, small, big, f"{big / small:.2f}x (goal <= 1.5x)"))
    return rows


def race_rows(base: Path) -> list[Row]:
    """8, 32 and 64 bash writers started at once on one task: the makespan."""
    root = base / "race"
    root.mkdir()
    rows: list[Row] = []
    for writers in (8, 32, 64):
        samples = []
        for _ in range(3):
            start = time.perf_counter()
            procs = [
                subprocess.Popen(
                    [str(WRITER), *write_args(root, base, "RACE-0001")],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                for _ in range(writers)
            ]
            codes = [p.wait() for p in procs]
            samples.append((time.perf_counter() - start) * 1000)
            if any(codes):
                raise SystemExit(f"a racing writer failed: {codes}")
        goal = " (goal <= 2000 ms)" if writers == 64 else ""
        rows.append(
            (
                f"{writers} bash writers on one task",
                f"{statistics.median(samples):.0f} ms",
                "makespan" + goal,
            )
        )
    return rows


def waiter_rows(base: Path) -> list[Row]:
    """One bash writer waiting 2 s for a lock a live process (this one) holds: its CPU
    time over its wall time."""
    root = base / "waiter"
    lock = root / "datarim" / "snapshots" / ".lock.WAIT-0001"
    lock.mkdir(parents=True)
    with open(f"/proc/{os.getpid()}/stat") as handle:
        start = handle.read().rsplit(")", 1)[1].split()[19]
    record = f"pid={os.getpid()}\nhost={socket.gethostname()}\nstart={start}\nimpl=python\n"
    (lock / "owner").write_text(record)
    env = {**os.environ, "DR_SNAPSHOT_LOCK_TIMEOUT": "2"}
    shares = []
    for _ in range(3):
        cpu_before = children_cpu()
        began = time.perf_counter()
        call([str(WRITER), *write_args(root, base, "WAIT-0001")], env=env, ok=(3,))
        wall = time.perf_counter() - began
        shares.append(100 * (children_cpu() - cpu_before) / wall)
    return [
        (
            "one bash lock waiter, 2 s",
            f"{statistics.median(shares):.1f} %",
            "of a core (goal <= 4 %)",
        )
    ]


def hook_rows(base: Path) -> list[Row]:
    """The Python SessionStart hook (no active task), against the interpreter's start."""
    root = base / "hook-ws"
    (root / "datarim").mkdir(parents=True)
    (root / "datarim" / "tasks.md").write_text("# Tasks\n")
    payload = (
        b'{"session_id":"bench-1","transcript_path":"/nowhere","cwd":"'
        + str(root).encode()
        + b'","hook_event_name":"SessionStart","source":"startup"}'
    )
    py = python_entry()
    env = {**os.environ, "DATARIM_STATE_DIR": str(base / "hook-state")}
    actions: dict[str, Callable[[], None]] = {
        "hook": partial(call, [*py, "session-start-hook"], payload, env=env),
        "floor": partial(call, [sys.executable, "-c", "pass"]),
    }
    ms = rounds(actions, max(RUNS, 15))
    (hook_wall, hook_cpu), (floor_wall, floor_cpu) = ms["hook"], ms["floor"]
    return [
        ("python SessionStart hook, git on", f"{hook_wall:.1f} ms", "(goal <= 16 ms)"),
        (
            "  floor: the interpreter, python -c pass",
            f"{floor_wall:.1f} ms",
            f"hook {hook_wall / floor_wall:.2f}x it, CPU {hook_cpu / floor_cpu:.2f}x",
        ),
    ]


def scale_rows(base: Path) -> list[Row]:
    (base / "body.md").write_text("Stage summary: plan verified, 3 steps, 2 risks.\n" * 40)
    (base / "options.txt").write_text("/dr-qa SCALE-0001 | coverage\n/dr-status | escape\n")
    rows: list[Row] = []
    for part in (
        writer_rows,
        folder_rows,
        git_rows,
        session_rows,
        race_rows,
        waiter_rows,
        hook_rows,
    ):
        rows.extend(part(base))
    return rows
