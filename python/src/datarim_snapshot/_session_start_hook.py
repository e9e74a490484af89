"""Bash twin: scripts/lib/session-start-hook.sh.

Claude Code SessionStart hook.

After /clear, a compaction, a resumed or forked session, hands the agent its
active task's resume text (see snapshot_resume.py), or with several active
tasks the list to choose from. It never blocks a session: on any failure,
and for sources other than clear, compact, resume and fork, it prints nothing and
exits 0. Under DATARIM_HOOK_RUNTIME=copilot (GitHub Copilot CLI) it prints
{"additionalContext": ...}, keeps it for the next prompt on a PreCompact
payload (printing nothing), and takes the source "new" right after a stage turn
(fresh_task).
"""

from __future__ import annotations

import os
import sys

from ._errors import DatarimError, MissingError, UsageError
from ._flags import seconds_env
from ._hook_payload import load_payload, usable
from ._texts import first_word_answer

# The resume machinery (snapshot_resume, the validator, the task list, git)
# loads only for a source that resumes: most sessions start with "startup",
# and the hook then prints nothing after reading the payload alone.

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from ._console import Console

PAYLOAD_LIMIT = 65536
SOURCES = ("clear", "compact", "resume", "fork")
# How recent a stage turn's snapshot must be for a new Copilot session to resume
# it (see fresh_task).
FRESH_SECONDS = 1800


def parse_payload(data: bytes) -> tuple[str, str, str] | None:
    """(source, cwd, session_id) of a hook payload, or None unless it is one strict
    JSON object (load_payload) whose last "source" (or, without one,
    "hook_event_name" "PreCompact", given as the source) and "cwd" members are
    strings without control characters; session_id is "" when it is no such
    string. The same verdicts as scripts/lib/hook-payload.awk."""
    payload = load_payload(data)
    if payload is None:
        return None
    source, cwd = payload.get("source"), payload.get("cwd")
    if not (isinstance(source, str) and source and usable(source)):
        # A PreCompact payload (GitHub Copilot CLI's) has no source: its event
        # name stands for one.
        event = payload.get("hook_event_name")
        source = "PreCompact" if event == "PreCompact" else ""
    if not (source and isinstance(cwd, str) and usable(cwd)):
        return None
    session = payload.get("session_id")
    return source, cwd, session if isinstance(session, str) and usable(session) else ""


def session_start(argv: Sequence[str], stdin: Any) -> bytes | None:
    """The hook's output, or None to print nothing."""
    if argv or os.environ.get("DATARIM_DISABLE_RESUME_HOOK") == "1":
        return None
    budget = seconds_env("DATARIM_RESUME_BUDGET", 9000)
    data = stdin.read(PAYLOAD_LIMIT + 1)
    if len(data) > PAYLOAD_LIMIT:
        return None
    fields = parse_payload(data)
    if fields is None:
        return None
    source, cwd, session = fields
    copilot = os.environ.get("DATARIM_HOOK_RUNTIME") == "copilot"
    if source not in SOURCES and not (copilot and source in ("new", "PreCompact")):
        return None
    if copilot and source != "PreCompact":
        # Copilot runs the next prompt's hook while this one runs: a resume kept
        # at its PreCompact goes before that hook can hand it over beside this text.
        drop_pending(session)
    if not cwd.startswith("/") or not os.path.isdir(cwd):
        return None
    from ._roots import discover_root, foreign_datarim
    from ._snapshot_resume import resume_output

    root = discover_root(cwd).path
    if not os.path.isdir(os.path.join(root, "datarim")) or foreign_datarim(root):
        return None
    if source == "new":
        fresh = fresh_task(root)
        if fresh is None:
            return None
        task = fresh
    else:
        chosen = session_task(root)
        if chosen is None:
            return keep_pending(source, session, choice_output(root, budget))
        task = chosen
    # A legacy document is read no further than the budget can reach: a
    # character is at most 4 bytes, and the cut lands before the last one read.
    return keep_pending(
        source, session, resume_output("hook", root, task, budget, read_limit=budget * 4 + 8)
    )


def keep_pending(source: str, session: str, output: bytes | None) -> bytes | None:
    """output; after /clear also kept as the session's pending resume for its next
    prompt hook: Gemini CLI drops a SessionStart hook's context after an
    interactive /clear, and its BeforeAgent hands it over instead (prompt_hook.py);
    a UserPromptSubmit (a CLI that took the context) just removes it. GitHub
    Copilot CLI gives no hook context back after a compaction but the next
    prompt's: its PreCompact keeps output in Copilot's form (prompt_hook.py
    prints it) and prints nothing; its SessionStart removes the session's
    pending resume first (drop_pending). Nothing kept without a state
    directory or a session ID fit to name a file."""
    if output and source in ("clear", "PreCompact"):
        from . import _hook_state as hook_state

        state = hook_state.state_dir()
        if state is not None and hook_state.session_ok(session):
            kept = output if source == "clear" else copilot_output(output)
            hook_state.write_resume(state, session, kept)
    return None if source == "PreCompact" else output


def drop_pending(session: str) -> None:
    """Removes the session's pending resume: GitHub Copilot CLI's SessionStart
    hands the text over itself, and a resume kept at its PreCompact would
    arrive a second time, through the next prompt's hook."""
    from . import _hook_state as hook_state

    state = hook_state.state_dir()
    if state is not None and hook_state.session_ok(session):
        hook_state.drop_resume(state, session)


def fresh_task(root: str) -> str | None:
    """GitHub Copilot CLI starts a session after /clear as it starts any new one
    (source "new"): such a session resumes only right after a stage turn of
    this workspace, that is when .last-task names an active task whose snapshot
    was captured at most FRESH_SECONDS before now (DATARIM_NOW when it is a
    stamp). That task, or None."""
    from ._hook_state import now
    from ._snapshot_validator import read_snapshot

    task = last_task(root)
    if task is None:
        return None
    try:
        snapshot = read_snapshot(root, task)
    except DatarimError:
        return None
    age = _epoch(now()) - _epoch(snapshot.captured_at.decode("ascii"))
    return task if 0 <= age <= FRESH_SECONDS else None


def _epoch(stamp: str) -> int:
    """Seconds since 1970 of YYYY-MM-DDTHH:MM:SSZ, days from civil as the bash
    twin counts them (whatever the digits: DATARIM_NOW is only checked for its
    shape)."""
    year, month, day = int(stamp[0:4]), int(stamp[5:7]), int(stamp[8:10])
    if month <= 2:
        year -= 1
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    seconds = int(stamp[11:13]) * 3600 + int(stamp[14:16]) * 60 + int(stamp[17:19])
    return (era * 146097 + day_of_era - 719468) * 86400 + seconds


def copilot_output(output: bytes) -> bytes:
    """The hook output as GitHub Copilot CLI reads it: a top-level
    {"additionalContext": ...} (it ignores hookSpecificOutput)."""
    head = b'{"hookSpecificOutput":{"hookEventName":"SessionStart",'
    if output.startswith(head) and output.endswith(b"}}\n"):
        return b"{" + output[len(head) : -2] + b"\n"
    return output


def session_task(root: str) -> str | None:
    """The task a SessionStart after /clear, a compaction, a resumed or forked
    session resumes: the one active task, else the .last-task one of several
    (last_task). None when there is none: the hook then lists the active tasks
    to choose from. snapshot-next names the same task."""
    from ._snapshot_resume import pick_task

    try:
        return pick_task(root, None)
    except UsageError:
        return last_task(root)


def last_task(root: str) -> str | None:
    """The task of the workspace's latest stage turn (datarim/snapshots/.last-task,
    written by the Stop hook) when it is one of several active tasks: that
    turn's session is, as a rule, the one just cleared, and its task wins over
    the list. None when there is none."""
    from ._rules import task_id_ok
    from ._snapshot_resume import active_tasks, record_line

    data = record_line(root, ".last-task")
    if data is None:
        return None
    line = data.decode("latin-1")
    if not task_id_ok(line) or line not in active_tasks(root):
        return None
    return line


def choice_output(root: str, budget: int) -> bytes | None:
    """With several active tasks (the Task Resolution Rule), the hook output that
    lists them, each with its snapshot's stage, time and recommended command, and
    asks the agent to let the operator choose; None with fewer than two."""
    from ._snapshot_resume import hook_text, option_command, recommended_cta
    from ._snapshot_validator import read_snapshot
    from ._task_list import active_entries

    entries = active_entries(root)
    if len(entries) < 2:
        return None
    lines = [
        f"datarim: {len(entries)} tasks are active in this workspace. Ask the operator which"
        " one to resume, then run its recommended command:"
    ]
    for task, title in entries:
        line = f"- {task}{' — ' + title if title else ''}: "
        try:
            snapshot = read_snapshot(root, task)
        except MissingError:
            line += "no snapshot"
        except DatarimError:
            line += "no valid snapshot"
        else:
            cta = recommended_cta(task, snapshot.recommended_next, snapshot.options)
            shown = b"%s snapshot of %s, recommended %s" % (
                snapshot.stage,
                snapshot.captured_at,
                option_command(cta),
            )
            line += shown.decode("utf-8", "replace")
        lines.append(line)
    return hook_text("".join(line + "\n" for line in lines), budget)


def session_start_command(argv: Sequence[str], console: Console) -> int:
    """Same bytes as dev-tools/session-start-hook.sh; always exit 0."""
    try:
        output = first_word_answer("session-start-hook", argv)
        if output is None:
            output = session_start(argv, sys.stdin.buffer)
            if output and os.environ.get("DATARIM_HOOK_RUNTIME") == "copilot":
                output = copilot_output(output)
    except Exception:  # whatever goes wrong, a session is never blocked
        output = None
    if output:
        _write_or_nothing(console, output)
    return 0


def _write_or_nothing(console: Console, data: bytes) -> None:
    """Writes data to stdout; when stdout is full, closed or its reader has gone,
    nothing more is printed and nothing is raised: the hook never fails."""
    console.write(data)
    console.flush()
    console.failed = None
