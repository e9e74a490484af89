"""The Claude Code plugin in the real CLI (docs/e2e.md): `claude plugin validate`
passes on the repository, and the plugin installed by `claude plugin
marketplace add` + `claude plugin install` from a clean copy of it carries
the hooks: a stage turn writes the snapshot, a resume hands the model its
replay prompt. No settings.json hooks here: only the plugin's.
"""

from __future__ import annotations

import re
from pathlib import Path

from e2ekit import (
    REPO,
    STAGE_ANSWER,
    Claude,
    Sandbox,
    after_the_stage_turn,
    clean_copy,
    hands_over_the_replay,
)

PLUGIN = "datarim-snapshots"
MARKETPLACE = "datarim-snapshots"


def test_plugin_validate_passes_on_the_repository(sandbox: Sandbox) -> None:
    claude = Claude(sandbox)
    # The marketplace at the repository's root ...
    run = claude.cli("plugin", "validate", ".", cwd=REPO)
    output = run.stdout + run.stderr
    assert "Validating marketplace manifest" in output and "✔ Validation passed" in output, str(run)
    assert re.findall(r"\(([A-Z][A-Z_]+)\)", output) == [], str(run)
    # ... and its plugin in plugins/. The one finding is of the separate
    # checks for Anthropic's plugin catalog, which "do not change the result":
    # the plugin has no icon. (The Gemini extension's hooks/hooks.json is one
    # folder down, where Claude Code does not load it: no warning of its events.)
    run = claude.cli("plugin", "validate", "plugins", cwd=REPO)
    output = run.stdout + run.stderr
    assert "Validating plugin manifest" in output and "✔ Validation passed" in output, str(run)
    assert re.findall(r"\(([A-Z][A-Z_]+)\)", output) == ["ICON_MISSING"], str(run)
    sandbox.assert_offline()


def install_plugin(sandbox: Sandbox, claude: Claude) -> Path:
    source = clean_copy(sandbox.root / "marketplace")
    claude.cli("plugin", "marketplace", "add", str(source))
    run = claude.cli("plugin", "install", f"{PLUGIN}@{MARKETPLACE}")
    assert PLUGIN in run.stdout + run.stderr, str(run)
    run = claude.cli("plugin", "list")
    assert f"{PLUGIN}@{MARKETPLACE}" in run.stdout, str(run)
    return source


def test_plugin_hooks_capture_and_resume(sandbox: Sandbox) -> None:
    claude = Claude(sandbox)
    install_plugin(sandbox, claude)
    assert not (sandbox.home / ".claude" / "settings.json").exists() or (
        "stop-hook" not in (sandbox.home / ".claude" / "settings.json").read_text()
    )
    # What Claude Code copied into its cache is the clean tree: no .venv, no .e2e.
    cache = sandbox.home / ".claude" / "plugins"
    copied = [p for p in cache.rglob("plugin.json") if p.parent.name == ".claude-plugin"]
    assert copied, f"no plugin.json under {cache}"
    for manifest in copied:
        root = manifest.parent.parent
        assert (root / "datarim-snapshots" / "dev-tools" / "stop-hook.sh").is_file()
        assert (root / "datarim-snapshots" / "scripts" / "lib" / "stop-hook.sh").is_file()
        # The plugin's folder, not the repository: no tests, no .venv, no .e2e.
        assert sorted(p.name for p in root.iterdir()) == [".claude-plugin", "datarim-snapshots"]
        assert not any(p.is_symlink() for p in root.rglob("*"))

    replay = after_the_stage_turn(claude)
    hands_over_the_replay(claude, claude.resume, replay)
    assert STAGE_ANSWER.strip() in sandbox.snapshot.read_text()
    sandbox.assert_no_hook_failure()
    sandbox.assert_offline()
