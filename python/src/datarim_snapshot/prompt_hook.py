"""Bash twin: scripts/lib/prompt-hook.sh.

The UserPromptSubmit hook of Claude Code and Codex.

Records the turn's stage command for the Stop hook (stop_hook.py), which
captures the snapshot when the turn ends: the transcript is not always written
yet when Stop runs, so the prompt is taken here, as typed. A prompt whose first
word is /dr-<stage> (or Codex's /prompts:dr-<stage> or its skill mention
$dr-<stage>) replaces the session's turn record; any other prompt removes it,
so a record never outlives its turn into a later, plain one. Never blocks a
prompt: prints nothing, exits 0; a failure is one line in the hooks log.
"""

from __future__ import annotations

import os

from . import hook_state

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import BinaryIO

    from .console import Console

HOOK = "prompt-hook"


def prompt_hook(argv: Sequence[str], stdin: BinaryIO) -> None:
    """The hook; its only output is the state it keeps and its log."""
    state = hook_state.state_dir()
    if argv:
        hook_state.drain(stdin)
        if state is not None:
            hook_state.log(state, HOOK, "takes no arguments; nothing recorded")
        return
    disabled = "1" in (
        os.environ.get("DATARIM_DISABLE_SNAPSHOT"),
        os.environ.get("DATARIM_DISABLE_STOP_HOOK"),
    )
    if disabled or state is None:
        hook_state.drain(stdin)
        return
    status, payload = hook_state.read_payload(stdin)
    if payload is None:
        message = hook_state.payload_failure(status)
        hook_state.log(state, HOOK, hook_state.clear_all_turns(state, message))
        return
    kind, session = payload.field("session_id")
    path = hook_state.turn_file(state, session) if kind == "s" else None
    if path is None:
        message = (
            "payload has no usable session_id"
            if kind != "s"
            else "session_id is not a safe file name"
        )
        hook_state.log(state, HOOK, hook_state.clear_all_turns(state, message))
        return
    kind, stage, task = payload.turn_command("prompt")
    if kind == "p":
        hook_state.clear_turn(path)
        return
    if kind != "c":
        hook_state.clear_turn(path)
        hook_state.log(state, HOOK, "payload has no usable prompt; nothing recorded")
        return
    kind, turn = payload.field("turn_id")
    record = hook_state.TurnRecord(stage, task, turn if kind == "s" else "")
    if not hook_state.write_turn(path, record):
        hook_state.clear_turn(path)
        hook_state.log(
            state,
            HOOK,
            f"cannot write the turn record of session {session}; /dr-{stage} not recorded",
        )


def prompt_hook_command(argv: Sequence[str], console: Console) -> int:
    """Same effects as dev-tools/prompt-hook.sh; always exit 0, nothing on stdout or stderr."""
    return hook_state.run_turn_hook(argv, console, HOOK, prompt_hook)
