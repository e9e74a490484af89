"""The repository as a Claude Code marketplace and plugin (spec §9, docs/agent-runtimes.md).

What `claude plugin validate` checks runs in the end-to-end suite with the real
CLI; here, without it: the two manifests, and that the plugin's hooks are the
ones install-hooks installs, run scripts that exist, and need no Python.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from datarim_snapshot.install_hooks import splice

REPO = Path(__file__).resolve().parents[2]
MANIFESTS = REPO / ".claude-plugin"
COMMAND = re.compile(r'"\$\{CLAUDE_PLUGIN_ROOT\}"/dev-tools/([a-z-]+\.sh)')


def _json(name: str) -> dict[str, object]:
    data = json.loads((MANIFESTS / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_the_marketplace_lists_the_plugin_at_the_repository_root() -> None:
    market, plugin = _json("marketplace.json"), _json("plugin.json")
    assert isinstance(market["name"], str) and market["name"]
    owner = market["owner"]
    assert isinstance(owner, dict) and owner["name"]
    entries = market["plugins"]
    assert isinstance(entries, list) and len(entries) == 1
    assert entries[0]["name"] == plugin["name"]
    assert entries[0]["source"] == "./"


def test_the_plugin_version_is_the_packages() -> None:
    pyproject = (REPO / "python" / "pyproject.toml").read_text()
    version = re.search(r'^version = "([^"]+)"', pyproject, re.M)
    assert version and _json("plugin.json")["version"] == version.group(1)


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
                script = REPO / "dev-tools" / found.group(1)
                assert script.is_file() and os.access(script, os.X_OK)
                assert b"python" not in script.read_bytes().lower()
                # As Claude Code runs it: through a shell, the root in the environment.
                env = {"PATH": "/usr/bin:/bin", "CLAUDE_PLUGIN_ROOT": str(REPO)}
                run = subprocess.run(
                    ["sh", "-c", handler["command"] + " --help"],
                    env=env,
                    capture_output=True,
                    check=False,
                    timeout=60,
                )
                assert run.returncode == 0 and run.stdout.startswith(b"Usage: "), run
