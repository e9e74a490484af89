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
    "DatarimError": "_errors",
    "Emission": "_snapshot_emit",
    "HelpRequested": "_errors",
    "InvalidTaskIdError": "_errors",
    "LockBusyError": "_errors",
    "MalformedError": "_errors",
    "MissingError": "_errors",
    "RefusedError": "_errors",
    "RootChoice": "_roots",
    "SessionSaved": "_session_handoff_writer",
    "StageSnapshot": "_snapshot_validator",
    "UsageError": "_errors",
    "VersionRequested": "_errors",
    "check_session_bytes": "_session_format",
    "check_session_file": "_session_handoff_validator",
    "check_snapshot_bytes": "_snapshot_validator",
    "check_snapshot_file": "_snapshot_validator",
    "discover_root": "_roots",
    "emit_stage_snapshot": "_snapshot_emit",
    "find_root": "_snapshot_validator",
    "read_stage_snapshot": "_snapshot_validator",
    "redact": "_redaction",
    "render_session_block": "_session_handoff_writer",
    "render_snapshot": "_snapshot_writer",
    "replay_prompt": "_snapshot_resume",
    "replay_session": "_session_replay",
    "resume_output": "_snapshot_resume",
    "validate_session_handoff": "_session_handoff_validator",
    "validate_stage_snapshot": "_snapshot_validator",
    "write_session_handoff": "_session_handoff_writer",
    "write_stage_snapshot": "_snapshot_writer",
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

    from ._errors import (
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
    from ._redaction import redact
    from ._roots import RootChoice, discover_root
    from ._session_format import check_session_bytes
    from ._session_handoff_validator import check_session_file, validate_session_handoff
    from ._session_handoff_writer import SessionSaved, render_session_block, write_session_handoff
    from ._session_replay import replay_session
    from ._snapshot_emit import Emission, emit_stage_snapshot
    from ._snapshot_resume import replay_prompt, resume_output
    from ._snapshot_validator import (
        StageSnapshot,
        check_snapshot_bytes,
        check_snapshot_file,
        find_root,
        read_stage_snapshot,
        validate_stage_snapshot,
    )
    from ._snapshot_writer import render_snapshot, write_stage_snapshot

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
