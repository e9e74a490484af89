"""A sample workspace for the tests that need one valid snapshot to read."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


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
