"""A sample workspace for the tests that need one valid snapshot to read, and the one
write the race, crash, network-filesystem and scale tests start in either implementation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
STAMP = "2026-05-21T13:45:00Z"


def writer_command(impl: str) -> list[str]:
    """The snapshot writer's command: the bash entry point or the Python command."""
    if impl == "bash":
        return [str(REPO / "dev-tools" / "snapshot-writer-wrapper.sh")]
    return [sys.executable, "-m", "datarim_snapshot", "write"]


def do_stage_args(root: Path, task: str, body: Path, recommended_next: str = "/dr-qa") -> list[str]:
    """The flags of a /dr-do stage write of task into root, its body from body."""
    return [
        "--root", str(root), "--task", task, "--stage", "do", "--command", "/dr-do",
        "--captured-by", "agent", "--recommended-next", recommended_next,
        "--body-file", str(body),
    ]  # fmt: skip


def do_stage_writer(impl: str, root: Path, body: Path, task: str = "TUNE-0254") -> list[str]:
    """The command line of a /dr-do stage write of task (TUNE-0254; body from body,
    captured at STAMP) through the bash entry point or the Python command."""
    return [*writer_command(impl), *do_stage_args(root, task, body), "--captured-at", STAMP]


def sample_workspace(root: Path, task: str = "TUNE-0254", body: str = "Plan ready.\n") -> Path:
    """Makes root/datarim and writes task's snapshot (a /dr-plan stage recommending
    /dr-do) through the bash writer, its body kept beside root; returns root."""
    (root / "datarim").mkdir(parents=True)
    body_file = root.parent / "body.md"
    body_file.write_text(body)
    subprocess.run(
        [
            str(REPO / "dev-tools" / "snapshot-writer-wrapper.sh"),
            *("--root", str(root), "--task", task, "--stage", "plan", "--command", "/dr-plan"),
            *("--captured-by", "agent", "--recommended-next", "/dr-do"),
            *("--body-file", str(body_file)),
        ],
        check=True,
    )
    return root
