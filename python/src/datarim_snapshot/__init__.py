"""Stage snapshots, replay prompts and session handoff for datarim agent pipelines.

The Python port of the bash suite in scripts/ and dev-tools/: the same
contract, the same bytes, the same exit codes.
"""

from __future__ import annotations

from .emit import Emission, emit_stage_snapshot
from .errors import (
    DatarimError,
    HelpRequested,
    LockBusyError,
    MalformedError,
    MissingError,
    RefusedError,
    UsageError,
)
from .redact import redact
from .resume import replay_prompt, resume_output
from .session import SessionSaved, render_session_block, write_session_handoff
from .session_format import check_session_bytes
from .session_replay import replay_session
from .session_validate import check_session_file, validate_session_handoff
from .snapshot import render_snapshot, write_stage_snapshot
from .validate import (
    StageSnapshot,
    check_snapshot_bytes,
    check_snapshot_file,
    find_root,
    read_stage_snapshot,
    validate_stage_snapshot,
)

__all__ = [
    "DatarimError",
    "Emission",
    "HelpRequested",
    "LockBusyError",
    "MalformedError",
    "MissingError",
    "RefusedError",
    "SessionSaved",
    "StageSnapshot",
    "UsageError",
    "check_session_bytes",
    "check_session_file",
    "check_snapshot_bytes",
    "check_snapshot_file",
    "emit_stage_snapshot",
    "find_root",
    "read_stage_snapshot",
    "redact",
    "render_session_block",
    "render_snapshot",
    "replay_prompt",
    "replay_session",
    "resume_output",
    "validate_session_handoff",
    "validate_stage_snapshot",
    "write_session_handoff",
    "write_stage_snapshot",
]
__version__ = "0.1.0"
