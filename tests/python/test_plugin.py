"""The repository as a Claude Code marketplace and plugin, and as a Gemini CLI
extension (spec §9, docs/agent-runtimes.md).

One tree serves them all, and holds the hook scripts and scripts/lib once:

    plugins/                             the Claude Code plugin (Qwen Code converts it):
    plugins/.claude-plugin/plugin.json   its manifest
    plugins/datarim-snapshots/           the Gemini CLI extension, and the real files:
                                         gemini-extension.json, hooks/hooks.json,
                                         dev-tools/<hook>.sh, scripts/lib/
    scripts/lib, dev-tools/<hook>.sh     symlinks into plugins/datarim-snapshots

What `claude plugin validate` checks, and the installs, run in the end-to-end
suite with the real CLIs; here, without them: the manifests, that the hooks are
the ones install-hooks installs, run scripts that exist and need no Python,
that no installer meets a link, and that each installed folder runs a turn on
its own.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from datarim_snapshot._install_hooks import GEMINI_EVENTS, splice

REPO = Path(__file__).resolve().parents[2]
MARKETPLACE = REPO / ".claude-plugin"
PLUGIN = REPO / "plugins"
EXTENSION = PLUGIN / "datarim-snapshots"
HOOKS = ("session-start-hook", "prompt-hook", "stop-hook")
COMMAND = re.compile(r'"\$\{CLAUDE_PLUGIN_ROOT\}"/datarim-snapshots/dev-tools/([a-z-]+\.sh)')
GEMINI_COMMAND = re.compile(r'"\$\{extensionPath\}"/dev-tools/([a-z-]+\.sh)')
ANSWER = (REPO / "tests/conformance/suites/emit/writes-plain-block/in/answer.md").read_text()


def _load(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _json(name: str) -> dict[str, object]:
    if name == "marketplace.json":
        return _load(MARKETPLACE / name)
    return _load(PLUGIN / ".claude-plugin" / name)


def test_the_marketplace_lists_the_plugin_in_its_folder() -> None:
    market, plugin = _json("marketplace.json"), _json("plugin.json")
    assert isinstance(market["name"], str) and market["name"]
    owner = market["owner"]
    assert isinstance(owner, dict) and owner["name"]
    entries = market["plugins"]
    assert isinstance(entries, list) and len(entries) == 1
    assert entries[0]["name"] == plugin["name"]
    # Only what the hooks run is copied into the operator's plugin cache, not
    # the repository (its tests alone are thousands of files).
    assert entries[0]["source"] == "./plugins"


def test_the_plugin_version_is_the_packages() -> None:
    pyproject = (REPO / "python" / "pyproject.toml").read_text()
    version = re.search(r'^version = "([^"]+)"', pyproject, re.M)
    assert version and _json("plugin.json")["version"] == version.group(1)
    assert _load(EXTENSION / "gemini-extension.json")["version"] == version.group(1)


def test_the_plugin_hooks_are_what_install_hooks_installs() -> None:
    """One definition of the three hooks: the plugin's equal install-hooks' output
    for the template "${CLAUDE_PLUGIN_ROOT}"/datarim-snapshots/dev-tools/{hook}.sh."""
    template = '"${CLAUDE_PLUGIN_ROOT}"/datarim-snapshots/dev-tools/{hook}.sh'
    added, merged = splice(None, [template.replace("{hook}", h) for h in HOOKS])
    assert added == ["SessionStart", "UserPromptSubmit", "Stop"]
    assert _json("plugin.json")["hooks"] == json.loads(merged)["hooks"]


def test_every_hook_command_runs_a_script_of_this_checkout_without_python() -> None:
    hooks = _json("plugin.json")["hooks"]
    assert isinstance(hooks, dict)
    for groups in hooks.values():
        for group in groups:
            for handler in group["hooks"]:
                found = COMMAND.fullmatch(handler["command"])
                assert found, handler["command"]
                script = EXTENSION / "dev-tools" / found.group(1)
                assert script.is_file() and os.access(script, os.X_OK)
                assert b"python" not in script.read_bytes().lower()
                # As Claude Code runs it: through a shell, the root in the environment.
                env = {"PATH": "/usr/bin:/bin", "CLAUDE_PLUGIN_ROOT": str(PLUGIN)}
                run = subprocess.run(
                    ["sh", "-c", handler["command"] + " --help"],
                    env=env,
                    capture_output=True,
                    check=False,
                    timeout=60,
                )
                assert run.returncode == 0 and run.stdout.startswith(b"Usage: "), run


def _tracked_mode(path: str) -> str:
    listed = subprocess.run(
        ["git", "ls-files", "-s", "--", path],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return listed.split(" ", 1)[0]


def test_the_checkouts_scripts_lib_and_hook_scripts_are_links_into_the_extension() -> None:
    """The files live once: scripts/lib and dev-tools/<hook>.sh, which the /dr-*
    commands, install-hooks and make install use, are tracked symlinks (mode
    120000) to the extension's real files, relative, so any clone has them."""
    links = {"scripts/lib": EXTENSION / "scripts" / "lib"}
    links.update({f"dev-tools/{h}.sh": EXTENSION / "dev-tools" / f"{h}.sh" for h in HOOKS})
    for name, real in links.items():
        link = REPO / name
        assert link.is_symlink() and not os.path.isabs(os.readlink(link)), name
        assert link.resolve() == real.resolve() and not real.is_symlink(), name
        assert _tracked_mode(name) == "120000", name


def test_no_installer_meets_a_link_and_claude_code_finds_no_second_hooks_file() -> None:
    """Claude Code and Qwen Code install plugins/, Gemini CLI installs
    plugins/datarim-snapshots. A link in either would not survive: Qwen Code
    drops one that leaves the folder, Gemini CLI keeps it, made absolute, into
    the clone. And Claude Code loads <plugin>/hooks/hooks.json beside
    plugin.json's hooks: the Gemini file there would run in Claude Code, which
    is why the extension is a folder of the plugin, not the plugin itself."""
    assert [p for p in PLUGIN.rglob("*") if p.is_symlink()] == []
    assert sorted(p.name for p in PLUGIN.iterdir()) == [".claude-plugin", "datarim-snapshots"]
    assert sorted(p.name for p in (PLUGIN / ".claude-plugin").iterdir()) == ["plugin.json"]
    held = sorted(p.name for p in EXTENSION.iterdir())
    assert held == ["dev-tools", "gemini-extension.json", "hooks", "scripts"]
    assert sorted(p.name for p in (EXTENSION / "hooks").iterdir()) == ["hooks.json"]
    assert sorted(p.name for p in (EXTENSION / "dev-tools").iterdir()) == sorted(
        f"{h}.sh" for h in HOOKS
    )
    assert sorted(p.name for p in (EXTENSION / "scripts").iterdir()) == ["lib"]


def _hook(command: str, root: dict[str, str], env: dict[str, str], payload: object) -> bytes:
    """One hook run as a CLI runs it: the command through a shell, with the
    installed folder's path substituted (Gemini) or in the environment (Claude)."""
    for variable, path in root.items():
        command = command.replace("${" + variable + "}", path)
    run = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload).encode(),
        env={**env, **root},
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert (run.returncode, run.stderr) == (0, b""), run
    return run.stdout


def _commands(hooks: object, events: tuple[str, str, str]) -> list[str]:
    assert isinstance(hooks, dict)
    return [hooks[event][0]["hooks"][0]["command"] for event in events]


def _a_turn_then_clear(tmp_path: Path, commands: list[str], root: dict[str, str]) -> None:
    """A stage turn (prompt hook, Stop hook) writes the snapshot; SessionStart
    after /clear hands back its replay; the hooks logged no failure."""
    ws = tmp_path / "ws"
    (ws / "datarim").mkdir(parents=True)
    (ws / "datarim" / "activeContext.md").write_text(
        "# Active context\n\n## Active Tasks\n\n- **TUNE-0032** — a task (Level 3, in_progress)\n"
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"), "LC_ALL": "C.UTF-8"}
    base = {"session_id": "3f2a-9c", "transcript_path": "/nowhere.jsonl", "cwd": str(ws)}
    start, prompt, stop = commands
    out = _hook(
        prompt,
        root,
        env,
        {**base, "hook_event_name": "UserPromptSubmit", "prompt": "/dr-plan TUNE-0032"},
    )
    assert out == b""
    out = _hook(
        stop,
        root,
        env,
        {
            **base,
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": ANSWER,
        },
    )
    assert out == b""
    snapshot = (ws / "datarim" / "snapshots" / "TUNE-0032.snapshot.md").read_text()
    assert "stage: plan\ncommand: /dr-plan\n" in snapshot and snapshot.endswith(ANSWER)
    out = _hook(start, root, env, {**base, "hook_event_name": "SessionStart", "source": "clear"})
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "TUNE-0032 resumes from its plan snapshot" in context
    assert not (tmp_path / "home" / ".local" / "state" / "datarim" / "hooks.log").exists()


def test_the_claude_code_plugin_folder_runs_a_turn_on_its_own(tmp_path: Path) -> None:
    """plugins/ copied alone, as Claude Code copies it into its cache (and Qwen
    Code into its extensions): every file the hooks load is in it."""
    installed = tmp_path / "cache" / "datarim-snapshots"
    shutil.copytree(PLUGIN, installed, symlinks=True)
    events = ("SessionStart", "UserPromptSubmit", "Stop")
    commands = _commands(_json("plugin.json")["hooks"], events)
    _a_turn_then_clear(tmp_path, commands, {"CLAUDE_PLUGIN_ROOT": str(installed)})


def test_the_gemini_extension_folder_runs_a_turn_on_its_own(tmp_path: Path) -> None:
    """plugins/datarim-snapshots copied alone, as `gemini extensions install`
    copies it: its hooks.json's commands find every file they load. (The
    payloads are Claude Code's: what is checked is the folder, not Gemini's
    dialect, which the corpus and the end-to-end suite cover.)"""
    installed = tmp_path / "extensions" / "datarim-snapshots"
    shutil.copytree(EXTENSION, installed, symlinks=True)
    hooks = _load(EXTENSION / "hooks" / "hooks.json")["hooks"]
    commands = _commands(hooks, ("SessionStart", "BeforeAgent", "AfterAgent"))
    _a_turn_then_clear(tmp_path, commands, {"extensionPath": str(installed)})


def test_the_gemini_extension_wires_the_three_hooks() -> None:
    """Exactly what `install-hooks --runtime gemini` installs for its template:
    SessionStart without a matcher (Gemini's are exact strings; the hook passes
    over startup), BeforeAgent the prompt hook, AfterAgent the Stop hook;
    timeouts in ms."""
    manifest = _load(EXTENSION / "gemini-extension.json")
    assert manifest["name"] == "datarim-snapshots"
    template = '"${extensionPath}"/dev-tools/{hook}.sh'
    commands = [template.replace("{hook}", hook) for _, _, hook, _ in GEMINI_EVENTS]
    added, merged = splice(None, commands, GEMINI_EVENTS)
    assert added == ["SessionStart", "BeforeAgent", "AfterAgent"]
    assert (EXTENSION / "hooks" / "hooks.json").read_bytes() == merged
    hooks = _load(EXTENSION / "hooks" / "hooks.json")["hooks"]
    assert isinstance(hooks, dict)
    wired = {
        (event, group.get("matcher"), handler["command"], handler["timeout"])
        for event, groups in hooks.items()
        for group in groups
        for handler in group["hooks"]
    }
    root = '"${extensionPath}"/dev-tools/'
    assert wired == {
        ("SessionStart", None, root + "session-start-hook.sh", 10000),
        ("BeforeAgent", None, root + "prompt-hook.sh", 10000),
        ("AfterAgent", None, root + "stop-hook.sh", 30000),
    }
    for _, _, command, _ in wired:
        found = GEMINI_COMMAND.fullmatch(command)
        assert found and (EXTENSION / "dev-tools" / found.group(1)).is_file()
        run = subprocess.run(
            ["sh", "-c", command.replace("${extensionPath}", str(EXTENSION)) + " --help"],
            env={"PATH": "/usr/bin:/bin"},
            capture_output=True,
            check=False,
            timeout=60,
        )
        assert run.returncode == 0 and run.stdout.startswith(b"Usage: "), run
