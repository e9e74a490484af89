"""doctor, both implementations (docs/doctor.md): the same bytes and exit code for
every workspace below, text and --json, and in each the fact that workspace is
about. The corpus (tests/conformance/suites/doctor) pins the main reports byte
for byte; this file adds what a case cannot hold: a PATH of the test's own, a
settings file over 1 MiB, a log of megabytes, names that are no UTF-8.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCTORS = {
    "bash": [str(REPO / "dev-tools" / "doctor.sh")],
    "python": [sys.executable, "-m", "datarim_snapshot", "doctor"],
}
BODY = "the body\n"


def _env(base: Path, **extra: str) -> dict[str, str]:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(base / "home"),
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "GIT_CEILING_DIRECTORIES": str(base),
    }
    env.update(extra)
    return env


def _doctor(base: Path, *args: str, cwd: str = "ws", **extra: str) -> tuple[int, bytes, bytes]:
    """Runs both doctors; asserts they agree; returns the one outcome."""
    outcomes = []
    for command in DOCTORS.values():
        done = subprocess.run(
            [*command, *args],
            cwd=base / cwd,
            env=_env(base, **extra),
            capture_output=True,
            timeout=60,
            check=False,
        )
        outcomes.append((done.returncode, done.stdout, done.stderr))
    assert outcomes[0] == outcomes[1]
    return outcomes[0]


def _both_forms(
    base: Path, *args: str, cwd: str = "ws", **extra: str
) -> tuple[int, str, dict[str, Any]]:
    code, out, err = _doctor(base, *args, cwd=cwd, **extra)
    json_code, json_out, json_err = _doctor(base, "--json", *args, cwd=cwd, **extra)
    assert (err, json_err, json_code) == (b"", b"", code)
    return code, out.decode(), json.loads(json_out)


def _write(path: Path, data: str | bytes, mode: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)
    if mode is not None:
        path.chmod(mode)
    return path


def _snapshot(base: Path, task: str, stage: str = "plan") -> None:
    body = _write(base / "in" / "body.md", BODY)
    subprocess.run(
        [
            str(REPO / "dev-tools" / "snapshot-writer-wrapper.sh"),
            "--root",
            str(base / "ws"),
            "--task",
            task,
            "--stage",
            stage,
            "--command",
            f"/dr-{stage}",
            "--captured-by",
            "agent",
            "--recommended-next",
            "/dr-do",
            "--body-file",
            str(body),
            "--captured-at",
            "2026-05-21T13:45:00Z",
        ],  # fmt: skip
        check=True,
        capture_output=True,
    )


def _active(base: Path, *tasks: str) -> None:
    lines = "".join(f"- **{task}** — a task\n" for task in tasks)
    _write(base / "ws" / "datarim" / "activeContext.md", f"# Context\n\n## Active Tasks\n{lines}")


@pytest.fixture
def base(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir()
    return tmp_path


def test_a_healthy_workspace(base: Path) -> None:
    _snapshot(base, "TUNE-0254")
    _active(base, "TUNE-0254")
    script = _write(base / "suite" / "dev-tools" / "session-start-hook.sh", "#!/bin/sh\n", 0o755)
    hooks = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": str(script)}]}]}}
    _write(base / "home" / ".claude" / "settings.json", json.dumps(hooks))
    code, out, facts = _both_forms(base)
    assert code == 0 and out.endswith("result: healthy\n")
    assert "TUNE-0254; the SessionStart hook resumes it from its snapshot" in out
    assert f"claude {base}/home/.claude/settings.json: SessionStart session-start-hook\n" in out
    assert facts["healthy"] is True and facts["problems"] == []


def test_no_knowledge_base_is_to_fix(base: Path) -> None:
    code, out, facts = _both_forms(base)
    assert code == 1
    assert out.startswith(f"root: {base}/ws (no knowledge base at the git top level or upwards:")
    assert facts["root"] == {"path": f"{base}/ws", "reason": "current-directory"}
    assert facts["problems"] == [f"no knowledge base in {base}/ws/datarim: nothing here resumes"]


def test_the_git_top_level_is_named_as_the_reason(base: Path) -> None:
    subprocess.run(["git", "init", "-q", str(base / "ws")], check=True)
    _write(base / "ws" / "datarim" / "tasks.md", "# Tasks\n")
    (base / "ws" / "deep" / "er").mkdir(parents=True)
    _write(base / "ws" / "deep" / "datarim" / "notes.md", "a bare datarim/ is no knowledge base\n")
    code, out, facts = _both_forms(base, cwd="ws/deep/er")
    assert facts["root"] == {"path": f"{base}/ws", "reason": "git-top-level"}
    assert out.startswith(f"root: {base}/ws (the git top level, whose datarim/ is a knowledge base")


@pytest.mark.parametrize(
    ("setup", "words"),
    [
        (
            lambda b: _active(b),
            'datarim/activeContext.md lists no task under "## Active Tasks"',
        ),
        (
            lambda b: _write(b / "ws" / "datarim" / "tasks.md", "x\n"),
            "there is no datarim/activeContext.md",
        ),
    ],
)
def test_why_the_session_start_hook_stays_silent(
    base: Path, setup: Callable[[Path], object], words: str
) -> None:
    setup(base)
    code, out, facts = _both_forms(base)
    assert code == 0, out
    assert "the SessionStart hook stays silent: " + words in out


def test_several_active_tasks_are_listed_for_the_operator_to_choose(base: Path) -> None:
    _active(base, "TUNE-0254", "TUNE-0031")
    code, out, facts = _both_forms(base)
    assert code == 0, out
    assert facts["active_tasks"]["tasks"] == ["TUNE-0254", "TUNE-0031"]
    assert "the SessionStart hook lists the 2 active tasks with their snapshots" in out


def test_an_active_task_without_a_snapshot_resumes_its_legacy_context(base: Path) -> None:
    _active(base, "TUNE-0254")
    code, out, facts = _both_forms(base)
    assert code == 0
    after = "after /clear, a compaction, a resume or a fork"
    assert f"resumes it from its legacy context {after}" in out
    assert "(its snapshot is missing)" in out


def test_an_invalid_snapshot_names_its_rule_and_the_legacy_context_resumes(base: Path) -> None:
    _snapshot(base, "TUNE-0254")
    _active(base, "TUNE-0254")
    path = base / "ws" / "datarim" / "snapshots" / "TUNE-0254.snapshot.md"
    path.write_bytes(path.read_bytes() + b"x")
    code, out, facts = _both_forms(base)
    assert code == 1
    assert "resumes it from its legacy context after /clear" in out
    assert "(its snapshot is invalid)" in out
    assert "  TUNE-0254.snapshot.md: invalid: size_bytes is " in out


def test_settings_files_the_doctor_cannot_read(base: Path) -> None:
    _write(base / "ws" / "datarim" / "tasks.md", "x\n")
    _write(base / "home" / ".claude" / "settings.json", '{"a": 1, "a": 2}')
    _write(base / "ws" / ".claude" / "settings.json", b"{" + b" " * 1048576 + b"}")
    (base / "ws" / ".claude" / "settings.local.json").mkdir(parents=True)
    _write(base / "ws" / ".codex" / "hooks.json", "\ufeff{}")
    code, out, facts = _both_forms(base)
    assert code == 1
    assert "settings.json: cannot be read: repeats a name in an object" in out
    assert "settings.json: cannot be read: over 1 MiB, not read" in out
    assert "settings.local.json: cannot be read: not a regular file" in out
    assert ".codex/hooks.json: cannot be read: not one strict JSON object" in out


def test_hook_commands_that_would_not_run(base: Path) -> None:
    _write(base / "ws" / "datarim" / "tasks.md", "x\n")
    _write(base / "bin" / "datarim-snapshot", "#!/bin/sh\n", 0o755)
    blocked = _write(base / "suite dir" / "dev-tools" / "stop-hook.sh", "#!/bin/sh\n", 0o644)
    commands = [
        ("SessionStart", "datarim-snapshot session-start-hook"),  # on PATH (below)
        ("UserPromptSubmit", "relative/../datarim-snapshot prompt-hook"),  # relative: not checked
        ("Stop", f"'{blocked}'"),  # quoted, not executable
        ("Stop", '"${CLAUDE_PLUGIN_ROOT}"/dev-tools/stop-hook.sh'),  # a variable: not checked
        ("SessionStart", "~/gone/dev-tools/prompt-hook.sh"),  # missing, and on the wrong event
        ("Stop", "python -m datarim_snapshot stop-hook"),  # not a form doctor reads as ours
        ("Stop", "datarim-snapshot\tstop-hook"),  # a control character: never ours
    ]
    hooks: dict[str, list[object]] = {}
    for event, command in commands:
        hooks.setdefault(event, []).append({"hooks": [{"type": "command", "command": command}]})
    hooks["Stop"].append({"hooks": [{"type": "command", "command": 42}]})
    settings = {"enabledPlugins": {"datarim-snapshots@here": False}, "hooks": hooks}
    _write(base / "home" / ".claude" / "settings.json", json.dumps(settings))
    path = f"{base}/bin:{os.environ['PATH']}"
    code, out, facts = _both_forms(base, PATH=path)
    assert code == 1
    found = facts["hooks"][0]["found"]
    assert [(h["event"], h["hook"], h["problem"]) for h in found] == [
        ("SessionStart", "session-start-hook", None),
        ("SessionStart", "prompt-hook", f"{base}/home/gone/dev-tools/prompt-hook.sh is missing"),
        ("UserPromptSubmit", "prompt-hook", None),
        ("Stop", "stop-hook", f"{blocked} is not executable"),
        ("Stop", "stop-hook", None),
    ]
    assert "plugin datarim-snapshots@here disabled" in out
    # Without our PATH, the bare command is not found.
    _, bare, _ = _doctor(base)
    assert b"SessionStart session-start-hook (datarim-snapshot is not on PATH)" in bare


def test_a_hook_on_another_event(base: Path) -> None:
    _write(base / "ws" / "datarim" / "tasks.md", "x\n")
    script = _write(base / "suite" / "dev-tools" / "stop-hook.sh", "#!/bin/sh\n", 0o755)
    hooks = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": str(script)}]}]}}
    _write(base / "ws" / ".codex" / "hooks.json", json.dumps(hooks))
    code, out, facts = _both_forms(base, CODEX_HOME=str(base / "codex"))
    assert code == 1
    assert f"codex {base}/codex/hooks.json: absent\n" in out
    assert "SessionStart stop-hook (it runs on SessionStart; stop-hook belongs to Stop)" in out


def test_copilot_hooks_that_do_not_set_the_runtime(base: Path) -> None:
    _write(base / "ws" / "datarim" / "tasks.md", "x\n")
    _write(base / "bin" / "datarim-snapshot", "#!/bin/sh\n", 0o755)
    commands = [
        ("SessionStart", "DATARIM_HOOK_RUNTIME='copilot' datarim-snapshot session-start-hook"),
        ("UserPromptSubmit", "datarim-snapshot prompt-hook"),  # needs none
        ("Stop", "DATARIM_HOOK_RUNTIME=claude datarim-snapshot stop-hook"),
        ("PreCompact", "LANG=C datarim-snapshot session-start-hook"),
    ]
    hooks = {event: [{"type": "command", "bash": command}] for event, command in commands}
    _write(base / "home" / ".copilot" / "settings.json", json.dumps({"hooks": hooks}))
    code, out, facts = _both_forms(base, PATH=f"{base}/bin:{os.environ['PATH']}")
    assert code == 1
    fault = "without DATARIM_HOOK_RUNTIME=copilot it would read Copilot's payload as Claude Code's"
    copilot = [entry for entry in facts["hooks"] if entry["runtime"] == "copilot"][0]
    assert [(h["event"], h["problem"]) for h in copilot["found"]] == [
        ("SessionStart", None),
        ("UserPromptSubmit", None),
        ("Stop", fault),
        ("PreCompact", fault),
    ]


# (root below base, its rules with {root} and {base} filled in, enabled there)
ENABLEMENT_RULES = [
    ("ws", ["!{root}/*"], False),  # `gemini extensions disable --scope workspace` in the root
    ("ws", ["!{base}/home/*"], True),  # user scope, run in the home folder: not above the root
    ("ws", ["!/*", "{base}/*"], True),  # the last rule that matches wins
    ("ws", ["!{root}/"], False),  # the folder alone
    ("ws/below", ["!{base}/ws/"], True),  # ... not one below it
    ("ws", ["!{root}"], True),  # neither a last "*" nor a last "/": it matches no folder
    ("ws2", ["!{base}/ws*"], False),  # a "*" after no "/": {base}/ws2/ too
    ("ws2", ["!{base}/ws/*"], True),  # ... after one: {base}/ws and below
    ("a\nb", ["!{base}/*"], True),  # the text a * stands for holds no line end
    ("a\nb", ["!{root}/*"], False),  # ... a line end in the rule itself matches
    ("a\u2028b", ["!{base}/a*"], True),
    ("a\\b", ["!{base}/a/b/*"], False),  # the CLIs read the root's backslashes as "/"
    ("ws", ["!*"], False),
    ("ws", ["!{root}/*", "{root}/*\u0000"], False),  # U+0000 in a rule: it matches no path
]


@pytest.mark.parametrize(("folder", "rules", "enabled"), ENABLEMENT_RULES)
def test_extension_enablement_rules_for_the_root(
    base: Path, folder: str, rules: list[str], enabled: bool
) -> None:
    root = base / folder
    _write(root / "datarim" / "tasks.md", "x\n")
    for cli in ("gemini", "qwen"):
        extensions = base / "home" / f".{cli}" / "extensions"
        _write(extensions / "datarim-snapshots" / f"{cli}-extension.json", "{}")
        filled = [rule.format(root=root, base=base) for rule in rules]
        text = json.dumps({"datarim-snapshots": {"overrides": filled}})
        _write(extensions / "extension-enablement.json", text)
    code, out, facts = _both_forms(base, "--root", str(root))
    folders = [entry for entry in facts["hooks"] if entry["file"].endswith("/datarim-snapshots")]
    assert [entry["plugins"] for entry in folders] == [
        [{"plugin": "datarim-snapshots", "enabled": enabled}]
    ] * 2
    # A disabled extension is no thing to fix, but with it no hook of ours runs.
    assert code == 0
    assert ("(no hook of this project is installed" in out) is not enabled


def test_an_extension_enablement_file_over_1_mib(base: Path) -> None:
    _write(base / "ws" / "datarim" / "tasks.md", "x\n")
    extensions = base / "home" / ".gemini" / "extensions"
    _write(extensions / "datarim-snapshots" / "gemini-extension.json", "{}")
    _write(extensions / "extension-enablement.json", b"{" + b" " * 1048576 + b"}")
    code, out, facts = _both_forms(base)
    assert code == 1
    why = "extension-enablement.json: over 1 MiB, not read"
    assert f"datarim-snapshots: cannot be read: {why}\n" in out
    assert facts["problems"] == [f"{extensions}/{why}"]


@pytest.mark.parametrize(
    ("log", "shown"),
    [
        (b"", b": empty\n"),
        (b"\n", b", its last line:\n  \n"),
        (b"one\ntwo", b", its last 2 lines:\n  one\n  two\n"),
        (b"bad \xff byte\x00nul\r\n", b", its last line:\n  bad \xef\xbf\xbd byte?nul?\n"),
        (b"x" * 300 + b"\n", b", its last line:\n  " + b"x" * 237 + b"...\n"),
        (b"\xe2\x80\x94" * 100 + b"\n", b", its last line:\n  " + b"\xe2\x80\x94" * 79 + b"...\n"),
        (b"cut" * 40000 + b"\nlast\n", b", its last line:\n  last\n"),
        (b"a\n" * 10 + b"six\n", b", its last 5 lines:\n  a\n  a\n  a\n  a\n  six\n"),
    ],
)
def test_the_hooks_log_as_shown(base: Path, log: bytes, shown: bytes) -> None:
    _write(base / "ws" / "datarim" / "tasks.md", "x\n")
    _write(base / "home" / ".local" / "state" / "datarim" / "hooks.log", log)
    code, out, err = _doctor(base)
    assert code == 0 and err == b""
    assert f"hooks log: {base}/home/.local/state/datarim/hooks.log".encode() + shown in out


def test_no_state_directory(base: Path) -> None:
    _write(base / "ws" / "datarim" / "tasks.md", "x\n")
    _, out, facts = _both_forms(base, HOME="relative", DATARIM_STATE_DIR="")
    assert "hooks log: none (no state directory" in out
    assert facts["hooks_log"] == {"file": None, "state": "no-state-dir", "last": []}
    # Without a home, only the project's own files: no Copilot settings, no user plugin.
    assert [h["runtime"] for h in facts["hooks"]] == [
        "claude",
        "claude",
        "codex",
        "gemini",
        "qwen",
        "opencode",
    ]


def test_file_names_that_are_no_text(base: Path) -> None:
    _snapshot(base, "TUNE-0254")
    snapshots = base / "ws" / "datarim" / "snapshots"
    _write(Path(os.fsdecode(bytes(snapshots) + b"/bad\xff\x01name.snapshot.md")), "x")
    sessions = base / "ws" / "datarim" / "sessions"
    _write(sessions / "SESSION-20261399-000000.session.md", "x")
    _write(sessions / "SESSION-20260521-134500.session.md", "x")
    code, out, facts = _both_forms(base)
    assert code == 1
    assert "  bad\ufffd?name.snapshot.md: ignored: its name is not a task ID" in out
    assert "  SESSION-20261399-000000.session.md: ignored: its name is not a session ID" in out
    assert "  SESSION-20260521-134500.session.md: invalid: " in out


def test_unreadable_artefact_directories(base: Path) -> None:
    _write(base / "ws" / "datarim" / "sessions", "a file where the directory goes\n")
    (base / "elsewhere").mkdir()
    (base / "ws" / "datarim" / "snapshots").symlink_to(base / "elsewhere")
    code, out, facts = _both_forms(base)
    assert code == 1
    assert "snapshots: datarim/snapshots is a symlink: every reader refuses it\n" in out
    assert "sessions: datarim/sessions cannot be read\n" in out


def test_usage(base: Path) -> None:
    refused = _doctor(base, "--root", str(base / "nope"))
    assert refused[0::2] == (2, b"doctor: --root is not a directory\n")
    assert _doctor(base, "--bogus")[0] == 2
    # --help: the script's usage; `datarim-snapshot doctor --help` names the subcommand.
    for impl, name in (("bash", b"doctor"), ("python", b"datarim-snapshot doctor")):
        done = subprocess.run(
            [*DOCTORS[impl], "--help"], cwd=base / "ws", env=_env(base), capture_output=True
        )
        assert (done.returncode, done.stderr) == (0, b"")
        assert done.stdout.startswith(b"Usage: " + name + b" [--root <dir>] [--json]\n")


def test_a_root_given_relative_is_shown_physical(base: Path) -> None:
    _write(base / "real" / "datarim" / "tasks.md", "x\n")
    (base / "ws" / "link").symlink_to(base / "real")
    code, out, facts = _both_forms(base, "--root", "link")
    assert facts["root"] == {"path": f"{base}/real", "reason": "given"}
    assert stat.S_ISDIR(os.stat(base / "ws" / "link").st_mode)


def test_a_snapshot_gone_since_the_folder_was_listed_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file removed between the listing and its read (a writer's rename, an
    archive) is left out of list and doctor, as bash's batch leaves it out,
    instead of being shown as an invalid snapshot that "is missing"."""
    from datarim_snapshot import _doctor, _snapshot_lifecycle

    snapshots = tmp_path / "datarim" / "snapshots"
    snapshots.mkdir(parents=True)
    real_listdir = os.listdir

    def listdir_with_a_vanished_file(path: Any) -> list[Any]:
        names = real_listdir(path)
        if os.fsdecode(path) == str(snapshots):
            gone = "TUNE-0999.snapshot.md"
            names.append(os.fsencode(gone) if isinstance(path, bytes) else gone)
        return names

    monkeypatch.setattr(os, "listdir", listdir_with_a_vanished_file)
    assert _snapshot_lifecycle.list_rows(str(tmp_path)) == []
    report = _doctor.Report()
    assert _doctor._artefacts(str(tmp_path), "snapshot", report)["files"] == []
    assert report.problems == []
