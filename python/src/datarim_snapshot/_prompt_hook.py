"""Bash twin: scripts/lib/prompt-hook.sh.

The UserPromptSubmit hook of Claude Code and Codex.

Records the turn's stage command for the Stop hook (stop_hook.py), which
captures the snapshot when the turn ends: the transcript is not always written
yet when Stop runs, so the prompt is taken here, as typed. A prompt whose first
word is /dr-<stage> (or Codex's /prompts:dr-<stage> or its skill mention
$dr-<stage>) replaces the session's turn record; any other prompt removes it,
so a record never outlives its turn into a later, plain one. Never blocks a
prompt: exits 0; a failure is one line in the hooks log. Its one output: on
Gemini CLI's BeforeAgent, a /clear's pending resume (hand_over_resume).
"""

from __future__ import annotations

import os

from . import _hook_state as hook_state

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import BinaryIO

    from ._console import Console

HOOK = "prompt-hook"


def prompt_hook(argv: Sequence[str], stdin: BinaryIO) -> bytes | None:
    """The hook; its output is the state it keeps and its log, and on Gemini's
    BeforeAgent a pending resume it hands over (returned, for stdout)."""
    state = hook_state.state_dir()
    if argv:
        hook_state.drain(stdin)
        if state is not None:
            hook_state.log(state, HOOK, "takes no arguments; nothing recorded")
        return None
    if state is None:
        hook_state.drain(stdin)
        return None
    disabled = "1" in (
        os.environ.get("DATARIM_DISABLE_SNAPSHOT"),
        os.environ.get("DATARIM_DISABLE_STOP_HOOK"),
    )
    # Disabled, the hook records nothing; it still hands over a pending resume.
    if disabled and not hook_state.resume_pending(state):
        hook_state.drain(stdin)
        return None
    status, payload = hook_state.read_payload(stdin)
    if payload is None:
        if not disabled:
            message = hook_state.payload_failure(status)
            hook_state.log(state, HOOK, hook_state.clear_all_turns(state, message))
        return None
    kind, session = payload.field("session_id")
    path = hook_state.turn_file(state, session) if kind == "s" else None
    if path is None:
        if not disabled:
            message = (
                "payload has no usable session_id"
                if kind != "s"
                else "session_id is not a safe file name"
            )
            hook_state.log(state, HOOK, hook_state.clear_all_turns(state, message))
        return None
    output = hand_over_resume(state, session, payload)
    if not disabled:
        record_turn(state, session, path, payload)
    return output


# What a SessionStart hook's output begins with, and a BeforeAgent hook's.
_FROM = b'{"hookSpecificOutput":{"hookEventName":"SessionStart",'
_TO = b'{"hookSpecificOutput":{"hookEventName":"BeforeAgent",'


def hand_over_resume(state: str, session: str, payload: hook_state.Payload) -> bytes | None:
    """The session's pending resume (a /clear's, session_start_hook.py), taken
    once: Gemini CLI's BeforeAgent gets it as its additionalContext (Gemini
    drops SessionStart's after an interactive /clear); any other prompt event
    only removes it (those CLIs gave the model SessionStart's context). One kept
    by GitHub Copilot CLI's PreCompact, already in Copilot's form
    ({"additionalContext": ...}), is returned as it is: Copilot gives the prompt
    hook's context to the model."""
    text = hook_state.take_resume(state, session)
    if text is not None and text.startswith(b'{"additionalContext":'):
        return text
    if text is None or payload.field("hook_event_name") != ("s", "BeforeAgent"):
        return None
    return _TO + text[len(_FROM) :] if text.startswith(_FROM) else None


def record_turn(state: str, session: str, path: str, payload: hook_state.Payload) -> None:
    """Replaces the session's turn record with the prompt's stage command, or
    removes it for any other prompt."""
    kind, stage, task = payload.turn_command(payload.first_present("submitted_prompt", "prompt"))
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
    """Same effects as dev-tools/prompt-hook.sh; always exit 0, nothing on stderr,
    on stdout only a pending resume handed to Gemini's BeforeAgent."""
    return hook_state.run_turn_hook(argv, console, HOOK, prompt_hook)
