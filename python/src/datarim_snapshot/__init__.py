"""Bash twin: scripts/ and dev-tools/ as a whole.

Stage snapshots, replay prompts and session handoff for datarim agent pipelines.

The Python port of the bash suite in scripts/ and dev-tools/: the same
contract, the same bytes, the same exit codes. The API is shaped like the
command line: ``write_stage_snapshot`` is ``datarim-snapshot write``,
``read_stage_snapshot`` is ``show``, ``replay_prompt`` is ``replay``; it takes
text or bytes and ``str`` or ``os.PathLike`` paths, returns ``str`` results
and raises only DatarimError subclasses, whose messages name arguments.
docs/api.md is the reference.
"""

from __future__ import annotations

TYPE_CHECKING = False

# Names load on first use: `datarim-snapshot <subcommand>` imports only what it runs.
_EXPORTS = {
    "DatarimError": "errors",
    "Emission": "snapshot_emit",
    "HelpRequested": "errors",
    "InvalidTaskIdError": "errors",
    "LockBusyError": "errors",
    "MalformedError": "errors",
    "MissingError": "errors",
    "RefusedError": "errors",
    "RootChoice": "roots",
    "SessionSaved": "session_handoff_writer",
    "StageSnapshot": "snapshot_validator",
    "UsageError": "errors",
    "VersionRequested": "errors",
    "check_session_bytes": "session_format",
    "check_session_file": "session_handoff_validator",
    "check_snapshot_bytes": "snapshot_validator",
    "check_snapshot_file": "snapshot_validator",
    "discover_root": "roots",
    "emit_stage_snapshot": "snapshot_emit",
    "find_root": "snapshot_validator",
    "read_stage_snapshot": "snapshot_validator",
    "redact": "redaction",
    "render_session_block": "session_handoff_writer",
    "render_snapshot": "snapshot_writer",
    "replay_prompt": "snapshot_resume",
    "replay_session": "session_replay",
    "resume_output": "snapshot_resume",
    "validate_session_handoff": "session_handoff_validator",
    "validate_stage_snapshot": "snapshot_validator",
    "write_session_handoff": "session_handoff_writer",
    "write_stage_snapshot": "snapshot_writer",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'datarim_snapshot' has no attribute {name!r}")
    from importlib import import_module  # here: a command never needs it

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    # The names load lazily: without this, dir() and help() would show none
    # of them until first used.
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})


if TYPE_CHECKING:
    from typing import Any

    from .errors import (
        DatarimError,
        HelpRequested,
        InvalidTaskIdError,
        LockBusyError,
        MalformedError,
        MissingError,
        RefusedError,
        UsageError,
        VersionRequested,
    )
    from .redaction import redact
    from .roots import RootChoice, discover_root
    from .session_format import check_session_bytes
    from .session_handoff_validator import check_session_file, validate_session_handoff
    from .session_handoff_writer import SessionSaved, render_session_block, write_session_handoff
    from .session_replay import replay_session
    from .snapshot_emit import Emission, emit_stage_snapshot
    from .snapshot_resume import replay_prompt, resume_output
    from .snapshot_validator import (
        StageSnapshot,
        check_snapshot_bytes,
        check_snapshot_file,
        find_root,
        read_stage_snapshot,
        validate_stage_snapshot,
    )
    from .snapshot_writer import render_snapshot, write_stage_snapshot

__all__ = [
    "DatarimError",
    "Emission",
    "HelpRequested",
    "InvalidTaskIdError",
    "LockBusyError",
    "MalformedError",
    "MissingError",
    "RefusedError",
    "RootChoice",
    "SessionSaved",
    "StageSnapshot",
    "UsageError",
    "VersionRequested",
    "check_session_bytes",
    "check_session_file",
    "check_snapshot_bytes",
    "check_snapshot_file",
    "discover_root",
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
__version__ = "0.2.0"  # the product version: scripts/lib/text/version.txt
