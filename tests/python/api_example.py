"""A caller of the Python API as an outside project writes one: lint runs
`mypy --strict` on it alone (the package seen through py.typed), and
tests/python/test_api_reference.py runs it.

    python tests/python/api_example.py <workspace>
"""

from __future__ import annotations

import sys
from pathlib import Path

from datarim_snapshot import (
    DatarimError,
    InvalidTaskIdError,
    StageSnapshot,
    read_stage_snapshot,
    replay_prompt,
    write_stage_snapshot,
)


def save_plan(workspace: Path, task: str, summary: str) -> StageSnapshot:
    """Writes the plan stage's snapshot from text and reads it back."""
    write_stage_snapshot(
        workspace, task, "plan", "/dr-plan", "agent", "/dr-do",
        body=summary, options=[f"/dr-do {task} — build it"],
    )  # fmt: skip
    _, snapshot = read_stage_snapshot(task, workspace)
    return snapshot


def main(argv: list[str]) -> int:
    workspace = Path(argv[1])
    snapshot = save_plan(workspace, "TUNE-0032", "Plan ready.\n")
    next_command: str = snapshot.recommended_next
    options: tuple[str, ...] = snapshot.options
    prompt: str = replay_prompt("TUNE-0032", workspace)
    print(next_command, len(options), prompt.splitlines()[0])
    try:
        save_plan(workspace, "not-a-task", "x")
    except InvalidTaskIdError as error:
        print(f"refused ({error.code}): {error.message[:12]}")
    except DatarimError:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
