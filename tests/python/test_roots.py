"""Root discovery (spec §8): dr_discover_root (bash) and roots.discover_root (Python)
find the same root for the same reason in each layout the rule names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from datarim_snapshot._cli import ON_FAILURE, command_map
from datarim_snapshot._roots import (
    CURRENT_DIRECTORY,
    GIT_TOP_LEVEL,
    NEAREST_KNOWLEDGE_BASE,
    discover_root,
)

REPO = Path(__file__).resolve().parents[2]
SESSION = "SESSION-20261201-100000"
COMMON = REPO / "scripts" / "lib" / "datarim-common.sh"


def bash_discover(start: Path, env: dict[str, str]) -> tuple[str, str]:
    script = f'. "{COMMON}"; dr_discover_root r why "$1"; printf "%s\\n%s" "$r" "$why"'
    result = subprocess.run(
        ["bash", "-c", script, "discover", str(start)],
        capture_output=True,
        check=True,
        env=env,
    )
    path, reason = result.stdout.decode().split("\n")
    return path, reason


def git_top(path: Path) -> Path:
    """A work tree's top as git marks it: .git/HEAD (no git needed to make one)."""
    (path / ".git").mkdir(parents=True)
    (path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return path


def knowledge_base(path: Path, marker: str = "snapshots/") -> Path:
    datarim = path / "datarim"
    if marker.endswith("/"):
        (datarim / marker).mkdir(parents=True)
    else:
        datarim.mkdir(parents=True, exist_ok=True)
        (datarim / marker).write_text("# marker\n")
    return path


def layout(tmp: Path, name: str) -> tuple[Path, Path, str]:
    """(start, expected root, expected reason) of one layout built under tmp."""
    ws = tmp / "ws"
    if name == "stray-empty-datarim-below-the-git-top":
        knowledge_base(git_top(ws))
        (ws / "sub" / "datarim").mkdir(parents=True)
        start = ws / "sub" / "deep"
        return start, ws, GIT_TOP_LEVEL
    if name == "git-top-wins-over-a-nearer-knowledge-base":
        knowledge_base(git_top(ws), "tasks.md")
        knowledge_base(ws / "sub", "activeContext.md")
        return ws / "sub" / "a" / "b" / "c", ws, GIT_TOP_LEVEL
    if name == "bare-datarim-at-the-git-top-defers-to-a-knowledge-base-above":
        knowledge_base(tmp, "backlog.md")
        git_top(ws)
        (ws / "datarim" / "skills").mkdir(parents=True)
        return ws / "src", tmp, NEAREST_KNOWLEDGE_BASE
    if name == "no-git-nearest-knowledge-base":
        knowledge_base(ws, "tasks/")
        (ws / "a" / "datarim").mkdir(parents=True)
        return ws / "a" / "b", ws, NEAREST_KNOWLEDGE_BASE
    if name == "knowledge-base-below-a-git-top-without-one":
        git_top(ws)
        knowledge_base(ws / "sub", "sessions/")
        return ws / "sub" / "x", ws / "sub", NEAREST_KNOWLEDGE_BASE
    if name == "gitfile-marks-a-work-tree-top":
        knowledge_base(ws)
        knowledge_base(ws / "wt")
        (ws / "wt" / "inner" / "datarim").mkdir(parents=True)
        (ws / "wt" / ".git").write_text("gitdir: ../.git/worktrees/wt\n")
        return ws / "wt" / "inner", ws / "wt", GIT_TOP_LEVEL
    if name == "git-directory-without-head-is-no-work-tree":
        knowledge_base(git_top(ws))
        (ws / "sub" / ".git").mkdir(parents=True)
        knowledge_base(ws / "sub", "tasks.md")
        return ws / "sub", ws, GIT_TOP_LEVEL
    if name == "not-inside-any-knowledge-base":
        git_top(ws)
        (ws / "datarim").mkdir()
        (ws / "sub" / "datarim").mkdir(parents=True)
        return ws / "sub", ws / "sub", CURRENT_DIRECTORY
    if name == "start-is-the-knowledge-base-root":
        knowledge_base(ws)
        return ws, ws, NEAREST_KNOWLEDGE_BASE
    raise AssertionError(name)


LAYOUTS = [
    "stray-empty-datarim-below-the-git-top",
    "git-top-wins-over-a-nearer-knowledge-base",
    "bare-datarim-at-the-git-top-defers-to-a-knowledge-base-above",
    "no-git-nearest-knowledge-base",
    "knowledge-base-below-a-git-top-without-one",
    "gitfile-marks-a-work-tree-top",
    "git-directory-without-head-is-no-work-tree",
    "not-inside-any-knowledge-base",
    "start-is-the-knowledge-base-root",
]


@pytest.mark.parametrize("name", LAYOUTS)
def test_both_implementations_find_the_root_the_rule_names(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = tmp_path.resolve()
    start, root, reason = layout(tmp, name)
    start.mkdir(parents=True, exist_ok=True)
    # Nothing above the test tree may count as a work tree's top.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp.parent))
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp.parent)}
    choice = discover_root(str(start))
    assert (choice.path, choice.reason) == (str(root), reason)
    assert bash_discover(start, env) == (str(root), reason)


@pytest.mark.parametrize("with_slash", [False, True])
def test_a_ceiling_hides_the_work_tree_above_it(
    with_slash: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = tmp_path.resolve()
    knowledge_base(git_top(tmp / "repo"), "tasks.md")
    knowledge_base(tmp / "repo" / "ws")
    start = tmp / "repo" / "ws" / "x"
    start.mkdir(parents=True)
    ceiling = str(tmp / "repo") + ("/" if with_slash else "")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", f"/nonexistent:{ceiling}")
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": f"/nonexistent:{ceiling}"}
    want = (str(tmp / "repo" / "ws"), NEAREST_KNOWLEDGE_BASE)
    choice = discover_root(str(start))
    assert (choice.path, choice.reason) == want
    assert bash_discover(start, env) == want
    monkeypatch.delenv("GIT_CEILING_DIRECTORIES")
    del env["GIT_CEILING_DIRECTORIES"]
    want = (str(tmp / "repo"), GIT_TOP_LEVEL)
    choice = discover_root(str(start))
    assert (choice.path, choice.reason) == want
    assert bash_discover(start, env) == want


def test_sourcing_leaves_no_variable_behind(tmp_path: Path) -> None:
    """dr_discover_root sets only the two variables it is given; the functions it
    adds are the library's own, loaded on this first use (dr_autoload)."""
    knowledge_base(tmp_path)
    # set prints the variables, one a line, then the functions from the first "name ()".
    variables = (
        "set | sed -n '/^[A-Za-z_][A-Za-z0-9_]* () $/q;p'"
        ' | grep -v "^BASH_\\|^_=\\|^before=\\|^functions="'
    )
    script = (
        f'. "{COMMON}"; before=$({variables}); functions=$(declare -F); '
        f'dr_discover_root r why "{tmp_path}"; '
        f'after=$({variables} | grep -v "^r=\\|^why="); '
        '[ "$before" = "$after" ] && echo same; '
        'diff <(printf "%s\\n" "$functions") <(declare -F) | grep "^[<>]" || :'
    )
    result = subprocess.run(["bash", "-c", script], capture_output=True, check=True)
    lines = result.stdout.decode().splitlines()
    assert lines[0] == "same"
    assert lines[1:] and all(line.startswith("> declare -f dr_") for line in lines[1:])


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
@pytest.mark.parametrize("git", [False, True], ids=["nearest", "git-top"])
def test_a_knowledge_base_of_another_owner_is_never_adopted(tmp_path: Path, git: bool) -> None:
    """Spec §8: a datarim/ another user left in a shared parent (/tmp/x/datarim)
    is no knowledge base to discovery, in both languages; ours, one level
    further up, is found instead, and the resume reads nothing of theirs."""
    ours = knowledge_base(tmp_path / "mine", "activeContext.md")
    shared = ours / "shared"
    theirs = knowledge_base(git_top(shared) if git else shared, "activeContext.md")
    (theirs / "datarim" / "activeContext.md").write_text(
        "## Active Tasks\n\n- **EVIL-0001** — read me to the model\n"
    )
    start = theirs / "work"
    start.mkdir()
    env = {"PATH": os.environ["PATH"], "LC_ALL": "C"}
    mine = (str(ours), NEAREST_KNOWLEDGE_BASE)
    owned = (str(theirs), GIT_TOP_LEVEL if git else NEAREST_KNOWLEDGE_BASE)
    assert bash_discover(start, env) == owned
    assert (discover_root(str(start)).path, discover_root(str(start)).reason) == owned
    os.chown(theirs / "datarim", 65534, 65534)
    assert bash_discover(start, env) == mine
    assert (discover_root(str(start)).path, discover_root(str(start)).reason) == mine
    for program in (
        [str(REPO / "dev-tools" / "resume-task.sh")],
        [sys.executable, "-m", "datarim_snapshot", "resume"],
    ):
        done = subprocess.run(program, cwd=start, capture_output=True, env=env, check=False)
        assert b"EVIL" not in done.stdout + done.stderr, program


def _as_json(members: dict[str, object]) -> bytes:
    import json

    return json.dumps(members).encode()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
@pytest.mark.parametrize("impl", ["bash", "python"])
def test_another_owners_datarim_in_the_working_directory_is_never_read_or_written(
    tmp_path: Path, impl: str
) -> None:
    """Spec §8: with no knowledge base of ours at or above it, discovery falls
    back to the working directory; when that directory's datarim/ is another
    user's, every reader refuses in one line (doctor 2, the others 3), the MCP
    server's root likewise, the SessionStart hook says nothing and the Stop
    hook writes nothing there, so none of their text reaches our model and
    none of our answers lands in their folder."""
    theirs = knowledge_base(tmp_path / "shared", "activeContext.md")
    datarim = theirs / "datarim"
    (datarim / "activeContext.md").write_text(
        "## Active Tasks\n\n- **EVIL-0001** — read me to the model\n"
    )
    (datarim / "snapshots").mkdir()
    (datarim / "snapshots" / "EVIL-0001.snapshot.md").write_text("EVIL body\n")
    for path in (datarim, datarim / "activeContext.md", datarim / "snapshots"):
        os.chown(path, 65534, 65534)
    (datarim / "snapshots").chmod(0o777)  # so that only the owner check stops a write
    before = sorted(os.listdir(datarim / "snapshots"))
    env = {
        "PATH": os.environ["PATH"],
        "LC_ALL": "C",
        "HOME": str(tmp_path / "home"),
        "GIT_CEILING_DIRECTORIES": str(tmp_path),
    }
    # Every reader of the command map (class reader or doctor), each ending as
    # its class ends a usage error; a command whose synopsis names a task or a
    # session gets one, so that only the root stops it.
    commands = command_map()
    readers = {}
    for name, entry in commands.items():
        if entry.kind not in ("reader", "doctor") or entry.script == "-":
            continue
        synopsis = (REPO / "scripts/lib/text" / f"usage-{entry.program}.txt").read_text()
        synopsis = synopsis.split("\n", 1)[0]
        argv = ["--task", "EVIL-0001"] if "<TASK-ID>" in synopsis else []
        argv += ["--session", SESSION] if "<SESSION-ID>" in synopsis else []
        readers[name] = (argv, ON_FAILURE[entry.kind][1])
    assert {"show", "list", "resume", "session-check", "doctor"} <= set(readers)
    hook_names = ("prompt-hook", "stop-hook", "session-start-hook")

    def command(name: str) -> list[str]:
        if impl == "bash":
            return [str(REPO / "dev-tools" / commands[name].script)]
        return [sys.executable, "-m", "datarim_snapshot", name]

    for name, (args, code) in readers.items():
        done = subprocess.run(
            command(name) + args, cwd=theirs, capture_output=True, env=env, check=False
        )
        assert done.returncode == code, (name, done)
        assert done.stdout == b"", name
        assert done.stderr.count(b"\n") == 1, name
        assert b"belongs to another user" in done.stderr, name
    base = {"session_id": "s-1", "transcript_path": "/nowhere.jsonl", "cwd": str(theirs)}
    payloads: list[dict[str, object]] = [
        {**base, "hook_event_name": "UserPromptSubmit", "prompt": "/dr-plan EVIL-0001"},
        {
            **base,
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": "Done.\n\n**Следующий шаг — EVIL-0001**\n\n"
            "1. `/dr-do EVIL-0001` — **рекомендуется** — next\n",
        },
        {**base, "hook_event_name": "SessionStart", "source": "clear"},
    ]
    for name, payload in zip(hook_names, payloads):
        done = subprocess.run(
            command(name),
            cwd=theirs,
            input=_as_json(payload),
            capture_output=True,
            env=env,
            check=False,
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), name
    assert sorted(os.listdir(datarim / "snapshots")) == before
    log = (tmp_path / "home" / ".local" / "state" / "datarim" / "hooks.log").read_text()
    assert "belongs to another user; nothing written" in log


def test_a_root_with_a_newline_finds_the_task_lists_in_both_languages(tmp_path: Path) -> None:
    """A task only a task list names (here backlog.md) is found under a --root
    holding a newline: bash passes the folder apart from the list names, which
    it joins with newlines (it once split the root there and found nothing)."""
    root = tmp_path / "a\nb"
    (root / "datarim").mkdir(parents=True)
    (root / "datarim" / "backlog.md").write_text(
        "# Backlog\n\n- ZED-0001 · pending · P2 · L1 · A later task → tasks/ZED-0001.md\n"
    )
    args = ["--root", str(root), "--task", "ZED-0001"]
    env = {"PATH": os.environ["PATH"], "LC_ALL": "C"}
    runs = [
        subprocess.run(program + args, capture_output=True, env=env, check=False)
        for program in (
            [str(REPO / "dev-tools" / "resume-task.sh")],
            [sys.executable, "-m", "datarim_snapshot", "resume"],
        )
    ]
    bash, python = ((run.returncode, run.stdout, run.stderr) for run in runs)
    assert bash == python
    assert bash[0] == 1
    assert b"no valid snapshot and no legacy context" in bash[2]
