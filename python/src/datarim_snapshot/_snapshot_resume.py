"""Bash twin: scripts/lib/snapshot-resume.sh (+ resume-render.awk).

Snapshot-first resume (spec §4): resume-task and render-replay-prompt.

A task's replay prompt when its snapshot is valid, else its legacy context
(spec §1, in the fallback order). Without a task ID, the task is the only
one listed under ``## Active Tasks`` in ``datarim/activeContext.md``.
"""

from __future__ import annotations

import os

from . import _git_drift as git_drift
from . import _jsonout as jsonout
from ._errors import (
    DatarimError,
    InvalidTaskIdError,
    MalformedError,
    UsageError,
    arguments_named,
)
from ._flags import parse_flags
from ._inputs import read_prefix
from ._records import Record
from ._replay_render import render_replay_prompt
from ._roots import kb_file_ok, reader_root
from ._rules import bad_task, first_word, pattern, task_id_ok
from ._snapshot_validator import read_snapshot
from ._task_list import active_entries, task_listed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Union

    from ._console import Console
    from ._snapshot_validator import SnapshotFields

    PathLike = Union[str, "os.PathLike[str]"]

REPLAY = "render-replay-prompt"
RESUME = "resume-task"
LEGACY_DOCUMENTS = (
    "datarim/tasks/{task}-task-description.md",
    "datarim/tasks/{task}-init-task.md",
    "datarim/activeContext.md",
)


class LegacyDocument(Record):
    __slots__ = ("path", "data")

    def __init__(self, path: str, data: bytes) -> None:
        self.path = path  # relative to the workspace root
        self.data = data  # the file's bytes up to the first NUL

    @property
    def text(self) -> str:
        """Invalid UTF-8 becomes U+FFFD, so every format carries the same text."""
        return self.data.decode("utf-8", "replace")


def active_tasks(root: str) -> list[str]:
    """The IDs of the active tasks (task_list.active_entries)."""
    return [task for task, _ in active_entries(root)]


def active_context_unreadable(root: str) -> bool:
    """Something stands at datarim/activeContext.md that cannot be read as a file
    (no read permission, a directory, a symlink, which no reader follows): it
    lists no task, but not because it names none."""
    path = os.path.join(root, "datarim", "activeContext.md")
    if not os.path.lexists(path):
        return False
    return not kb_file_ok(root, "datarim/activeContext.md")


def pick_task(root: str, task_flag: str | None) -> str:
    """The task named by --task, else the one active task; UsageError (3) otherwise."""
    if task_flag:
        if not task_id_ok(task_flag):
            raise InvalidTaskIdError(bad_task(task_flag), code=3)
        return task_flag
    active = active_tasks(root)
    if len(active) == 1:
        return active[0]
    if not active and active_context_unreadable(root):
        raise UsageError("no --task given and datarim/activeContext.md cannot be read", code=3)
    # The list the tasks came from (spec §8.1): tasks.md when there is no activeContext.md.
    listed = "datarim/activeContext.md"
    tasks_md = "datarim/tasks.md"
    if not os.path.lexists(os.path.join(root, listed)) and os.path.exists(
        os.path.join(root, tasks_md)
    ):
        listed = tasks_md
    if not active:
        raise UsageError(f"no --task given and no active task in {listed}", code=3)
    raise UsageError(
        f"no --task given and {len(active)} active tasks in {listed} "
        f"({' '.join(active)}); pass --task <ID>",
        code=3,
    )


def option_command(option: bytes) -> bytes:
    """The command of an options item: the text before the first " | "."""
    return option.split(b" | ", 1)[0]


def recommended_cta(task: str, recommended_next: bytes, options: Sequence[bytes]) -> bytes:
    """The first option whose command's first word is recommended_next's, verbatim;
    else recommended_next, followed by " <task>" when it is a command alone (the
    reference may record the whole command, "/dr-design TUNE-0032", which names
    its task already: spec §8)."""
    want = first_word(recommended_next)
    for option in options:
        if first_word(option_command(option)) == want:
            return option
    if b" " in recommended_next:
        return recommended_next
    return recommended_next + b" " + task.encode()


def chosen_cta(choice: bytes, options: Sequence[bytes]) -> bytes | None:
    """The operator's override: the first option whose command (or its first word) is choice."""
    for option in options:
        command = option_command(option)
        if choice in (command, first_word(command)):
            return option
    return None


def snapshot_text(cta: bytes, body: bytes, drift: git_drift.Drift | None = None) -> bytes:
    """What a resume hands over for a valid snapshot: the drift notice when the code
    moved on since the snapshot, then the one replay prompt."""
    return git_drift.notice(drift) + render_replay_prompt(cta, body)


def legacy_documents(root: str, task: str, limit: int | None = None) -> list[LegacyDocument]:
    """Each legacy document that is a readable regular file, in the fallback order,
    read whole (or up to limit bytes) and cut at its first NUL."""
    documents = []
    for template in LEGACY_DOCUMENTS:
        rel = template.format(task=task)
        path = os.path.join(root, rel)
        if not kb_file_ok(root, rel):
            continue
        try:
            if limit is None:
                with open(path, "rb") as handle:
                    data = handle.read()
            else:
                data = read_prefix(path, limit)
        except OSError:
            continue
        nul = data.find(b"\0")
        documents.append(LegacyDocument(rel, data if nul < 0 else data[:nul]))
    return documents


def task_documented(root: str, task: str) -> bool:
    """True when one of the task's own legacy documents (its task description or
    init task) is a readable file."""
    return any(kb_file_ok(root, template.format(task=task)) for template in LEGACY_DOCUMENTS[:2])


def legacy_text(task: str, documents: Sequence[LegacyDocument]) -> str:
    """The legacy documents under plain headers, after one line saying why."""
    parts = [f"No valid snapshot for {task}; its legacy context follows.\n"]
    for document in documents:
        text = document.text
        parts.append(f"\n==> {document.path} <==\n")
        parts.append(text)
        if text and not text.endswith("\n"):
            parts.append("\n")
    return "".join(parts)


def snapshot_json(
    task: str,
    snapshot: SnapshotFields,
    cta: bytes,
    text: bytes,
    drift: git_drift.Drift | None = None,
) -> bytes:
    fields: dict[str, object] = {
        "source": "snapshot",
        "task": task,
        "stage": snapshot.stage.decode(),
        "captured_at": snapshot.captured_at.decode(),
        "recommended_next": snapshot.recommended_next.decode(),
        "options": [option.decode() for option in snapshot.options],
        "cta": cta.decode(),
        "truncated": snapshot.truncated,
    }
    if drift is not None and drift is not git_drift.UNCHECKED:
        fields["drift"] = git_drift.drift_json(drift)
    fields["prompt"] = text.decode()
    return jsonout.dumps(fields)


def legacy_json(task: str, documents: Sequence[LegacyDocument]) -> bytes:
    return jsonout.dumps(
        {
            "source": "legacy",
            "task": task,
            "recommended_next": None,
            "options": [],
            "documents": [{"path": d.path, "text": d.text} for d in documents],
        }
    )


def units(text: str) -> int:
    """Characters as Claude Code counts them: UTF-16 code units."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def cut_marker(budget: int) -> str:
    return f"\n\n[datarim: cut to fit the {budget}-character budget of the SessionStart hook]\n"


def cut_to_budget(text: str, budget: int) -> str | None:
    """text cut to at most budget units, on a character boundary, with a visible
    marker; None when even the marker does not fit."""
    if units(text) <= budget:
        return text
    marker = cut_marker(budget)
    room = budget - len(marker)
    if room < 0:
        return None
    used = 0
    keep = 0
    for char in text:
        width = 2 if ord(char) > 0xFFFF else 1
        if used + width > room:
            break
        used += width
        keep += 1
    return text[:keep] + marker


def hook_output(text: str) -> bytes:
    """The SessionStart hook's output: additionalContext carries the resume text."""
    return jsonout.dumps(
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    )


def resume_output(
    fmt: str, root: str, task: str, budget: int = 0, read_limit: int | None = None
) -> bytes | None:
    """The resume output in fmt (text, json or hook): the replay prompt of a valid
    snapshot, else the legacy documents. None when there is nothing to print (a
    task that exists nowhere included: resume-task says so, spec §4)."""
    invalid = False
    try:
        snapshot: SnapshotFields | None = read_snapshot(root, task)
    except MalformedError:
        snapshot, invalid = None, True
    except DatarimError:
        snapshot = None
    if snapshot is not None:
        cta = recommended_cta(task, snapshot.recommended_next, snapshot.options)
        return snapshot_output(fmt, root, task, snapshot, cta, budget, notices=True)
    if not invalid and not task_documented(root, task) and not task_listed(root, task):
        return None  # a task that exists nowhere gets no other task's context
    documents = legacy_documents(root, task, read_limit)
    if not documents:
        return None
    if fmt == "json":
        return legacy_json(task, documents)
    text = legacy_text(task, documents)
    if fmt == "text":
        return text.encode()
    return hook_text(text, budget)


def snapshot_output(
    fmt: str,
    root: str,
    task: str,
    snapshot: SnapshotFields,
    cta: bytes,
    budget: int = 0,
    notices: bool = False,
) -> bytes | None:
    """The output of a valid snapshot in fmt; with notices (a resume, not a
    replay; the hook always) the missed-turn notice first, and in the hook the
    line that says which stage and time the snapshot is from."""
    drift = git_drift.drift(root, snapshot.extra)
    text = snapshot_text(cta, snapshot.body, drift)
    if notices or fmt == "hook":
        text = missed_notice(root, task, snapshot) + text
    if fmt == "text":
        return text
    if fmt == "json":
        return snapshot_json(task, snapshot, cta, text, drift)
    told = b"datarim: %s resumes from its %s snapshot of %s.\n\n" % (
        task.encode(),
        snapshot.stage,
        snapshot.captured_at,
    )
    return hook_text((told + text).decode(), budget)


RECORD_READ = 256
_MISSED_LINE = rb"(/dr-[a-z][a-z0-9-]*) ([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)"


def record_line(root: str, name: str) -> bytes | None:
    """The first line of datarim/snapshots/<name>, a record the Stop hook keeps
    (.missed.<ID>, .last-task), as bash's read takes it (of the first 256
    bytes, NULs dropped); None when that is no regular file or a symlink."""
    path = os.path.join(root, "datarim", "snapshots", name)
    if os.path.islink(path) or not os.path.isfile(path):
        return None
    try:
        return read_prefix(path, RECORD_READ).split(b"\n", 1)[0].replace(b"\0", b"")
    except OSError:
        return None


def missed_notice(root: str, task: str, snapshot: SnapshotFields) -> bytes:
    """The note that a stage turn after the snapshot left none (the Stop hook's
    datarim/snapshots/.missed.<ID>, "<command> <time>", a time later than the
    snapshot's), else b""."""
    line = record_line(root, f".missed.{task}")
    found = None if line is None else pattern(_MISSED_LINE).fullmatch(line)
    if found is None or found.group(2) <= snapshot.captured_at:
        return b""
    return (
        b"NOTE: the %s turn of %s left no snapshot; the snapshot below is from the %s stage,"
        b" captured %s.\n\n"
        % (found.group(1), found.group(2), snapshot.stage, snapshot.captured_at)
    )


def hook_text(text: str, budget: int) -> bytes | None:
    cut = cut_to_budget(text, budget)
    return None if cut is None else hook_output(cut)


def replay_prompt(task: str, root: PathLike | None = None, option: str | None = None) -> str:
    """The replay prompt of the task's valid snapshot in root (default:
    find_root()), as `datarim-snapshot replay` prints it: the recommended next
    command, or the one of its options that option names (its
    command or its first word), then the snapshot's body.

    Raises InvalidTaskIdError for a bad task ID, UsageError when option names
    no option, MissingError (no snapshot) or MalformedError (an invalid one)
    when the caller must fall back to the task's documents.

    >>> replay_prompt("TUNE-0032", workspace).splitlines()[0]
    '/dr-do TUNE-0032'
    """
    with arguments_named():
        return replayed(task, None if root is None else os.fspath(root), option).decode(
            "utf-8", "surrogateescape"
        )


def replayed(task: str, root: str | None, option: str | None) -> bytes:
    """replay_prompt's bytes, with the command line's messages."""
    if not task_id_ok(task):
        raise InvalidTaskIdError(bad_task(task), code=3)
    root = reader_root(root)
    snapshot = read_snapshot(root, task)
    if option is None:
        cta: bytes | None = recommended_cta(task, snapshot.recommended_next, snapshot.options)
    else:
        cta = chosen_cta(os.fsencode(option), snapshot.options)
    if cta is None:
        raise UsageError(f"--option {option} matches no option of {task}", code=3)
    return snapshot_text(cta, snapshot.body, git_drift.drift(root, snapshot.extra))


def replay_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/render-replay-prompt.sh."""
    flags = parse_flags("--task= --root= --hint --option= --json", "", argv)
    if flags.get("hint") and (flags.get("option") or flags.get("json")):
        raise UsageError(
            "--hint prints recommended_next alone; it takes neither --option nor --json"
        )
    root = reader_root(flags.get("root"))
    task = pick_task(root, flags.get("task"))
    try:
        snapshot = read_snapshot(root, task)
    except DatarimError as exc:
        return exc.code  # the silent fallback: nothing on stdout or stderr
    if flags.get("hint"):
        console.write(snapshot.recommended_next + b"\n")
        return 0
    choice = flags.get("option")
    if choice:
        cta = chosen_cta(os.fsencode(choice), snapshot.options)
        if cta is None:
            names = ", ".join(f'"{option_command(o).decode()}"' for o in snapshot.options)
            raise UsageError(
                f"--option {choice} matches no option of {task}; "
                f"the options are: {names or '(none)'}"
            )
    else:
        cta = recommended_cta(task, snapshot.recommended_next, snapshot.options)
    output = snapshot_output("json" if flags.get("json") else "text", root, task, snapshot, cta)
    console.write(output or b"")
    return 0


def resume_command(argv: Sequence[str], console: Console) -> int:
    """Same flags, bytes and exit codes as dev-tools/resume-task.sh."""
    flags = parse_flags("--task= --root= --json", "", argv)
    root = reader_root(flags.get("root"))
    task = pick_task(root, flags.get("task"))
    fmt = "json" if flags.get("json") else "text"
    why = ""
    try:
        snapshot = read_snapshot(root, task)
    except MalformedError as exc:
        why = exc.message
    except DatarimError:
        pass
    else:
        cta = recommended_cta(task, snapshot.recommended_next, snapshot.options)
        console.write(snapshot_output(fmt, root, task, snapshot, cta, notices=True) or b"")
        return 0
    documents = legacy_documents(root, task)
    # A task that exists nowhere (a mistyped ID) gets no other task's context.
    if not why and not task_documented(root, task) and not task_listed(root, task):
        console.error(
            RESUME,
            f"nothing to resume for {task}: no snapshot, no task document"
            " and no task list names it",
        )
        return 1
    if not documents:
        if why:
            console.error(
                RESUME,
                f"nothing to resume for {task}: its snapshot is invalid ({why})"
                " and there is no legacy context",
            )
        else:
            console.error(
                RESUME, f"nothing to resume for {task}: no valid snapshot and no legacy context"
            )
        return 1
    # An invalid snapshot is not passed over in silence: the operator learns
    # which rule it broke (the replay renderer stays silent, spec §4).
    if why:
        console.error(
            RESUME, f"the snapshot of {task} is invalid ({why}); its legacy context follows"
        )
    text = legacy_json(task, documents) if fmt == "json" else legacy_text(task, documents).encode()
    console.write(text)
    return 0
