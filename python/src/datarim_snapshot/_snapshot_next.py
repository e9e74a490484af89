"""Bash twin: scripts/lib/snapshot-next.sh.

The recommendation alone, for an orchestrator that takes it as a hint: the
recommended_next of a task's valid snapshot, one line on stdout.
"""

from __future__ import annotations

from ._errors import MissingError, UsageError
from ._flags import parse_flags
from ._roots import reader_root
from ._session_start_hook import session_task
from ._snapshot_resume import pick_task
from ._snapshot_validator import read_snapshot

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._console import Console


def next_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/snapshot-next.sh."""
    flags = parse_flags("--task= @--task --root=", "", argv)
    task = pick_task("", flags["task"]) if flags.get("task") else None
    root = reader_root(flags.get("root"))
    if task is None:
        # When the hook would resume none, pick_task refuses, saying why in
        # resume's words; nothing to recommend is a 1, not a usage error.
        try:
            task = session_task(root) or pick_task(root, None)
        except UsageError as exc:
            raise MissingError(exc.message) from None
    snapshot = read_snapshot(root, task)
    # Printed as it stands: the validator refuses a recommended_next that holds
    # a control character (spec §3), as replay --hint prints it.
    console.write(snapshot.recommended_next + b"\n")
    return 0
