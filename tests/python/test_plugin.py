"""The repository as a Claude Code marketplace and plugin, and as a Gemini CLI
extension (spec §9, docs/agent-runtimes.md).

What `claude plugin validate` checks runs in the end-to-end suite with the real
CLI; here, without it: the manifests, that the plugin's hooks are the ones
install-hooks installs, run scripts that exist, and need no Python, and that
the plugin and extension folders hold nothing but links to the hooks' scripts.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from datarim_snapshot._install_hooks import GEMINI_EVENTS, splice

REPO = Path(__file__).resolve().parents[2]
MARKETPLACE = REPO / ".claude-plugin"
PLUGIN = REPO / "plugins" / "claude"
EXTENSION = REPO / "plugins" / "gemini"
COMMAND = re.compile(r'"\$\{CLAUDE_PLUGIN_ROOT\}"/dev-tools/([a-z-]+\.sh)')
GEMINI_COMMAND = re.compile(r'"\$\{extensionPath\}"/dev-tools/([a-z-]+\.sh)')


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
    assert entries[0]["source"] == "./plugins/claude"


def test_the_plugin_version_is_the_packages() -> None:
    pyproject = (REPO / "python" / "pyproject.toml").read_text()
    version = re.search(r'^version = "([^"]+)"', pyproject, re.M)
    assert version and _json("plugin.json")["version"] == version.group(1)
    assert _load(EXTENSION / "gemini-extension.json")["version"] == version.group(1)


def test_the_plugin_hooks_are_what_install_hooks_installs() -> None:
    """One definition of the three hooks: the plugin's equal install-hooks' output
    for the template "${CLAUDE_PLUGIN_ROOT}"/dev-tools/{hook}.sh."""
    template = '"${CLAUDE_PLUGIN_ROOT}"/dev-tools/{hook}.sh'
    commands = [
        template.replace("{hook}", h) for h in ("session-start-hook", "prompt-hook", "stop-hook")
    ]
    added, merged = splice(None, commands)
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
                script = PLUGIN / "dev-tools" / found.group(1)
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


HOOK_SCRIPTS = {f"dev-tools/{h}.sh" for h in ("session-start-hook", "prompt-hook", "stop-hook")}


def _files(root: Path, under: str) -> set[str]:
    return {str(p.relative_to(root)) for p in (root / under).rglob("*") if not p.is_dir()}


def test_the_plugin_and_extension_folders_hold_exact_copies_of_what_the_hooks_run() -> None:
    """plugins/claude and plugins/gemini carry the three hook scripts and all of
    scripts/lib (what they load), copied by `make plugins`: byte for byte and
    mode for mode the repository's, and nothing else beside the manifests.
    (Copies: Qwen Code drops links when it installs the plugin.)"""
    wanted = HOOK_SCRIPTS | _files(REPO, "scripts/lib")
    for folder, manifests in (
        (PLUGIN, {str(Path(".claude-plugin", "plugin.json"))}),
        (EXTENSION, {"gemini-extension.json", "hooks/hooks.json"}),
    ):
        held = {str(p.relative_to(folder)) for p in folder.rglob("*") if not p.is_dir()}
        assert held == wanted | manifests, f"{folder}: run make plugins"
        for name in wanted:
            copy, source = folder / name, REPO / name
            assert not copy.is_symlink(), copy
            assert copy.read_bytes() == source.read_bytes(), f"{copy} differs: run make plugins"
            assert os.access(copy, os.X_OK) == os.access(source, os.X_OK), copy


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
