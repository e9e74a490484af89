#!/usr/bin/env python3
"""`make bench`: how fast the writers and validators are, as medians over repeated runs.

Prints figures only; nothing here passes or fails. Machines are shared and noisy, so
read medians and ratios, not single runs. The reference's writer is timed beside ours,
in the same rounds, in the scale rows at the end (bench_scale.writer_rows), never
taken as a fixed figure.

The Python commands run from compiled bytecode, as after any pip install (pip
compiles the package) or any earlier run (Python caches what it compiles, unless
PYTHONDONTWRITEBYTECODE is set): the bench compiles the package first. One row
shows a command whose sources are compiled anew on every call.
"""

from __future__ import annotations

import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "python" / "src" / "datarim_snapshot"
WRITER = REPO / "dev-tools" / "snapshot-writer-wrapper.sh"
CHECKER = REPO / "dev-tools" / "check-stage-snapshot-on-exit.sh"
FLOOR = REPO / "tests" / "bench" / "bench-floor.sh"
RUNS = int(os.environ.get("BENCH_RUNS", "30"))


def writer_args(root: Path, body: Path, task: str = "BENCH-0001") -> list[str]:
    return [
        "--root", str(root), "--task", task, "--stage", "do", "--command", "/dr-do",
        "--captured-by", "agent", "--recommended-next", "/dr-qa", "--body-file", str(body),
        "--options-file", str(body.parent / "options.txt"),
    ]  # fmt: skip


def median_ms(action, runs: int = RUNS) -> float:  # type: ignore[no-untyped-def]
    action()  # warm caches
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def run(argv: list[str], env: dict[str, str] | None = None) -> None:
    """Runs argv to completion; its stderr is shown only when it fails."""
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    if done.returncode:
        raise SystemExit(f"{argv[0]} exited {done.returncode}: {done.stderr.decode()}")


def uncompiled_copy(scratch: Path) -> dict[str, str]:
    """The environment of a Python command that compiles its sources on every call:
    a copy of the package without bytecode, laid out as in the wheel, first on the path."""
    copy = scratch / "uncompiled" / "datarim_snapshot"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "text"))
    shutil.copytree(REPO / "scripts" / "lib" / "text", copy / "text")
    return {**os.environ, "PYTHONPATH": str(copy.parent), "PYTHONDONTWRITEBYTECODE": "1"}


def race(argvs: list[list[str]]) -> float:
    start = time.perf_counter()
    procs = [subprocess.Popen(a, stdout=subprocess.DEVNULL) for a in argvs]
    codes = [p.wait() for p in procs]
    if any(codes):
        raise SystemExit(f"a racing writer failed: {codes}")
    return (time.perf_counter() - start) * 1000


STOP_ANSWER = (
    """**BENCH-0001 · Bench task**

Plan verified: 3 steps, 2 risks; gates green.
"""
    + "Stage summary line, the kind a stage answer is made of.\n" * 60
    + """
---

**Следующий шаг — BENCH-0001** (L2, in_progress)

1. `/dr-qa BENCH-0001` — **рекомендуется** — coverage and gates
2. `/dr-do BENCH-0001` — if something is left
3. `/dr-status` — backlog overview

---
"""
)


def stop_hook_rows(base: Path) -> list[tuple[str, str, str]]:
    """The Stop hook runs after every reply (docs/agent-runtimes.md "Speed"): its cost
    on a plain turn (no turn record pending: the common case), on a /dr-<stage> turn
    whose answer has no CTA block, and on one that writes the snapshot, against one
    write and one emit of the same language. Every action runs once a round, round
    after round, so that the medians and their ratios share the machine's load."""
    import json

    root = base / "hooks-ws"
    (root / "datarim").mkdir(parents=True)
    (root / "datarim" / "tasks.md").write_text("# Tasks\n")
    state = base / "hooks-state"
    body = base / "hooks-body.md"
    body.write_text(STOP_ANSWER.split("\n---\n")[0] + "\n")
    (base / "hooks-options.txt").write_text("/dr-qa BENCH-0001 | coverage\n/dr-status | escape\n")
    answer = base / "hooks-answer.md"
    answer.write_text(STOP_ANSWER)
    env = {**os.environ, "DATARIM_STATE_DIR": str(state), "DATARIM_SNAPSHOT_GIT": "0"}

    def payload(event: str, **members: object) -> bytes:
        base_members = {"session_id": "bench-1", "transcript_path": "/nowhere", "cwd": str(root)}
        return json.dumps({**base_members, "hook_event_name": event, **members}).encode()

    plain_stop = payload("Stop", stop_hook_active=False, last_assistant_message=body.read_text())
    cta_stop = payload("Stop", stop_hook_active=False, last_assistant_message=STOP_ANSWER)
    plain_prompt = payload("UserPromptSubmit", prompt="thanks, go on")
    stage_prompt = payload("UserPromptSubmit", prompt="/dr-plan BENCH-0001")

    def record() -> None:
        (state / "turns").mkdir(parents=True, exist_ok=True)
        (state / "turns" / "bench-1").write_text("stage=plan\ntask=BENCH-0001\nturn=\n")

    def clear() -> None:
        for name in os.listdir(state / "turns") if (state / "turns").is_dir() else []:
            os.unlink(state / "turns" / name)

    def call(argv: list[str], stdin: bytes = b"") -> None:
        done = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=root)
        if done.returncode or done.stdout or done.stderr:
            raise SystemExit(f"{argv} failed: {done.returncode} {done.stderr.decode()}")

    entry = Path(sys.executable).parent / "datarim-snapshot"
    py = [str(entry)] if entry.exists() else [sys.executable, "-m", "datarim_snapshot"]
    dev = REPO / "dev-tools"
    options = str(base / "hooks-options.txt")
    write_args = ["--root", str(root), "--task", "BENCH-0001", "--stage", "do", "--command",
                  "/dr-do", "--captured-by", "agent", "--recommended-next", "/dr-qa",
                  "--body-file", str(body), "--options-file", options]  # fmt: skip
    emit_args = ["--root", str(root), "--task", "BENCH-0001", "--stage", "plan", "--command",
                 "/dr-plan", "--response-file", str(answer)]  # fmt: skip
    actions: dict[str, tuple[Callable[[], None], Callable[[], None]]] = {}  # (setup, timed)
    for lang, stop, prompt, writer, emitter in (
        ("bash", [str(dev / "stop-hook.sh")], [str(dev / "prompt-hook.sh")],
         [str(WRITER)], [str(dev / "emit-stage-snapshot.sh")]),
        ("python", [*py, "stop-hook"], [*py, "prompt-hook"], [*py, "write"], [*py, "emit"]),
    ):  # fmt: skip
        actions[f"{lang} write"] = (clear, partial(call, [*writer, *write_args]))
        actions[f"{lang} emit"] = (clear, partial(call, [*emitter, *emit_args]))
        actions[f"{lang} stop, plain turn"] = (clear, partial(call, stop, plain_stop))
        actions[f"{lang} stop, stage turn, no CTA"] = (record, partial(call, stop, plain_stop))
        actions[f"{lang} stop, stage turn, CTA"] = (record, partial(call, stop, cta_stop))
        actions[f"{lang} prompt, plain"] = (record, partial(call, prompt, plain_prompt))
        actions[f"{lang} prompt, stage command"] = (clear, partial(call, prompt, stage_prompt))
    samples: dict[str, list[float]] = {name: [] for name in actions}
    for round_number in range(RUNS + 1):
        for name, (setup, action) in actions.items():
            setup()
            start = time.perf_counter()
            action()
            if round_number:  # the first round warms caches
                samples[name].append((time.perf_counter() - start) * 1000)
    ms = {name: statistics.median(values) for name, values in samples.items()}
    if not (root / "datarim" / "snapshots" / "BENCH-0001.snapshot.md").is_file():
        raise SystemExit("the Stop hook wrote no snapshot")
    rows = []
    for lang in ("bash", "python"):
        write_ms, emit_ms = ms[f"{lang} write"], ms[f"{lang} emit"]
        against = {"write": write_ms, "emit": emit_ms}
        rows.append((f"{lang} write (reference for the hooks)", f"{write_ms:.1f} ms", ""))
        rows.append((f"{lang} emit", f"{emit_ms:.1f} ms", f"{emit_ms / write_ms:.2f}x write"))
        for label, name, base_name in (
            ("Stop hook, plain turn", "stop, plain turn", "write"),
            ("Stop hook, stage turn, no CTA", "stop, stage turn, no CTA", "write"),
            ("Stop hook, stage turn, CTA", "stop, stage turn, CTA", "emit"),
            ("prompt hook, plain", "prompt, plain", "write"),
            ("prompt hook, stage command", "prompt, stage command", "write"),
        ):
            value = ms[f"{lang} {name}"]
            ratio = f"{value / against[base_name]:.2f}x {base_name}"
            rows.append((f"  {lang} {label}", f"{value:.1f} ms", ratio))
    return rows


def main() -> int:
    from bench_scale import scale_rows

    if sys.argv[1:] == ["scale"]:  # `tests/bench/bench.py scale`: issue 21's rows only
        compileall.compile_dir(str(PACKAGE), quiet=1)  # as below: no row times compiling
        with tempfile.TemporaryDirectory() as scratch:
            scale = scale_rows(Path(scratch))
        width = max(len(r[0]) for r in scale)
        print("datarim scale bench: medians; each row with its goal")
        for name, value, note in scale:
            print(f"  {name:<{width}}  {value:>10}  {note}")
        return 0
    if sys.argv[1:] == ["hooks"]:  # `tests/bench/bench.py hooks`: these rows only
        with tempfile.TemporaryDirectory() as scratch:
            hook_rows = stop_hook_rows(Path(scratch))
        width = max(len(r[0]) for r in hook_rows)
        print(f"datarim hooks bench: medians of {RUNS} rounds")
        for name, value, note in hook_rows:
            print(f"  {name:<{width}}  {value:>10}  {note}")
        return 0
    from datarim_snapshot import write_stage_snapshot
    from datarim_snapshot._snapshot_writer import render_snapshot

    compileall.compile_dir(str(PACKAGE), quiet=1)
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        root = base / "ws"
        root.mkdir()
        body = base / "body.md"
        body.write_text("Stage summary: plan verified, 3 steps, 2 risks.\n" * 40)
        (base / "options.txt").write_text("/dr-qa BENCH-0001 | coverage\n/dr-status | escape\n")
        python_cmd = [sys.executable, "-m", "datarim_snapshot", "write"]

        # `bash <script>`, as the /dr-* commands start the writer (no env, no PATH search).
        bash_ms = median_ms(lambda: run(["bash", str(WRITER), *writer_args(root, body)]))
        rows.append(("bash writer, one call", f"{bash_ms:.1f} ms", ""))
        # The floor under any bash implementation of the contract (see the script).
        floor_ms = median_ms(lambda: run(["bash", str(FLOOR), str(base)]))
        rows.append(
            ("  floor: bash + the 5 tools, no logic", f"{floor_ms:.1f} ms",
             f"the writer {bash_ms / floor_ms:.2f}x it")
        )  # fmt: skip
        py_ms = median_ms(lambda: run([*python_cmd, *writer_args(root, body)]))
        rows.append(("python -m datarim_snapshot write", f"{py_ms:.1f} ms", ""))
        uncompiled = uncompiled_copy(base)
        raw_ms = median_ms(lambda: run([*python_cmd, *writer_args(root, body)], uncompiled))
        rows.append(
            (
                "  the same, no bytecode cache (compiled each call)",
                f"{raw_ms:.1f} ms",
                f"{raw_ms / py_ms:.2f}x compiled",
            )
        )
        entry = Path(sys.executable).parent / "datarim-snapshot"
        if entry.exists():
            cmd_ms = median_ms(lambda: run([str(entry), "write", *writer_args(root, body)]))
            rows.append(("datarim-snapshot write", f"{cmd_ms:.1f} ms", ""))

        # The same call where the workspace is a git work tree: one `git status` more.
        repo = base / "repo"
        repo.mkdir()
        (repo / "README").write_text("bench\n")
        for git_args in (["init", "-q"], ["add", "README"], ["commit", "-q", "-m", "bench"]):
            subprocess.run(
                ["git", "-C", str(repo), "-c", "user.name=bench", "-c", "user.email=b@example.com",
                 *git_args], check=True, stdout=subprocess.DEVNULL,
            )  # fmt: skip
        git_ms = median_ms(lambda: run([str(WRITER), *writer_args(repo, body)]))
        rows.append(("bash writer, workspace in git", f"{git_ms:.1f} ms", ""))
        # A body quoting secrets: redaction runs in the renderer's own process.
        leaky = base / "leaky.md"
        leaky.write_text(body.read_text() + "token ghp_16C7e42F292c6912E7710c838347Ae178B4a\n" * 5)
        leaky_ms = median_ms(lambda: run([str(WRITER), *writer_args(root, leaky)]))
        rows.append(("bash writer, body with 5 secrets", f"{leaky_ms:.1f} ms", ""))

        def api_write() -> None:
            write_stage_snapshot(
                root=str(root), task="BENCH-0001", stage="do", command="/dr-do",
                captured_by="agent", recommended_next="/dr-qa", body_file=str(body),
                options_file=str(base / "options.txt"),
            )  # fmt: skip

        api_ms = median_ms(api_write, runs=RUNS * 5)
        options = (base / "options.txt").read_bytes()
        body_bytes = body.read_bytes()
        render_us = 1000 * median_ms(
            lambda: render_snapshot(
                "BENCH-0001", "do", "/dr-do", "agent", "/dr-qa", "2026-01-01T00:00:00Z",
                options, body_bytes,
            ),
            runs=RUNS * 20,
        )  # fmt: skip
        fd = os.open(str(base / "fsync-probe"), os.O_WRONLY | os.O_CREAT, 0o600)

        def fsync_once() -> None:
            os.write(fd, b"x")
            os.fsync(fd)

        fsync_ms = median_ms(fsync_once, runs=RUNS * 5)
        os.close(fd)
        rows.append(("python API write_stage_snapshot", f"{api_ms:.2f} ms", ""))
        rows.append(("  of which one fsync", f"{fsync_ms:.2f} ms", ""))
        rows.append(("  render only (no I/O)", f"{render_us:.0f} us", ""))

        check_ms = median_ms(
            lambda: run([str(CHECKER), "--task", "BENCH-0001", "--root", str(root)])
        )
        rows.append(("bash validator, one call", f"{check_ms:.1f} ms", ""))
        pycheck_ms = median_ms(
            lambda: run([sys.executable, "-m", "datarim_snapshot", "check", "--task", "BENCH-0001",
                         "--root", str(root)])
        )  # fmt: skip
        rows.append(("python validator command", f"{pycheck_ms:.1f} ms", ""))
        replay_ms = median_ms(
            lambda: run([sys.executable, "-m", "datarim_snapshot", "replay", "--task", "BENCH-0001",
                         "--root", str(root)])
        )  # fmt: skip
        rows.append(("python replay command", f"{replay_ms:.1f} ms", ""))

        for label, argv0 in (("bash", [str(WRITER)]), ("python", python_cmd)):
            rounds = [
                race([[*argv0, *writer_args(root, body, "RACE-0001")] for _ in range(8)])
                for _ in range(5)
            ]
            rows.append(
                (
                    f"8 {label} writers racing on one task",
                    f"{statistics.median(rounds):.0f} ms",
                    "wall",
                )
            )
        mixed = [
            race([[*(python_cmd if n % 2 else [str(WRITER)]), *writer_args(root, body, "RACE-0002")]
                  for n in range(16)])
            for _ in range(3)
        ]  # fmt: skip
        rows.append(
            ("16 writers (8 bash + 8 python) racing", f"{statistics.median(mixed):.0f} ms", "wall")
        )

        small = base / "small.md"
        small.write_bytes(b"x" * 8192)
        huge = base / "huge.md"
        with open(huge, "wb") as handle:
            chunk = b"a line of a very long stage answer\n" * 30000
            for _ in range(512 * 1024 * 1024 // len(chunk)):
                handle.write(chunk)
        size_mib = huge.stat().st_size / 2**20
        for label, path in (("8 KiB", small), (f"{size_mib:.0f} MiB", huge)):
            ms = median_ms(lambda p=path: run([str(WRITER), *writer_args(root, p)]), runs=RUNS // 2)
            rows.append((f"bash writer, {label} body", f"{ms:.1f} ms", ""))
            ms = median_ms(lambda p=path: run([*python_cmd, *writer_args(root, p)]), runs=RUNS // 2)
            rows.append((f"python command, {label} body", f"{ms:.1f} ms", ""))
        huge.unlink()
        rows.extend(stop_hook_rows(base))
        (base / "scale").mkdir()
        rows.extend(scale_rows(base / "scale"))

    width = max(len(r[0]) for r in rows)
    print(
        f"datarim snapshot bench: medians of {RUNS} runs"
        " (the reference's writer is timed beside ours in the rows from 'reference writer')"
    )
    for name, value, note in rows:
        print(f"  {name:<{width}}  {value:>10}  {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
