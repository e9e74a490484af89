"""install-hooks beyond the corpus: an independent reading of what a merge must mean,
both implementations on random settings files, and each one's default hook commands.

The corpus pins bytes. Here the bytes are checked against a model that knows
nothing of the splice: the merged file, read as JSON, is the old one plus one
group for each event that did not run our command, every other value as it was;
the old text survives in the new one (only an empty container's inside is
replaced); a second run changes nothing; and the two implementations agree byte
for byte on files of every shape and spacing hypothesis can make.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conformance import decode_escapes
from fuzzkit import FUZZ, run_bash, run_python
from hypothesis import given
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "dev-tools" / "install-hooks.sh"
SUITE = REPO / "tests" / "conformance" / "suites" / "install-hooks"
TEMPLATE = "/opt/datarim/dev-tools/{hook}.sh"
EVENTS = [
    ("SessionStart", "clear|compact|resume|fork", "session-start-hook", 10),
    ("UserPromptSubmit", "", "prompt-hook", 10),
    ("Stop", "", "stop-hook", 30),
]
# Gemini CLI: exact-string matchers (so none), BeforeAgent and AfterAgent, ms.
GEMINI_EVENTS = [
    ("SessionStart", "", "session-start-hook", 10000),
    ("BeforeAgent", "", "prompt-hook", 10000),
    ("AfterAgent", "", "stop-hook", 30000),
]


def expected_merge(old: dict[str, Any], template: str, runtime: str = "claude") -> dict[str, Any]:
    """What the merged file must hold, read as JSON (the spec of docs/agent-runtimes.md)."""
    if runtime == "copilot":
        return expected_copilot_merge(old, template)
    new = copy.deepcopy(old)
    hooks = new.setdefault("hooks", {})
    for event, matcher, hook, timeout in GEMINI_EVENTS if runtime == "gemini" else EVENTS:
        command = template.replace("{hook}", hook)
        groups = hooks.setdefault(event, [])
        present = any(
            isinstance(h, dict) and h.get("command") == command
            for g in groups
            if isinstance(g, dict) and isinstance(g.get("hooks"), list)
            for h in g["hooks"]
        )
        if not present:
            group: dict[str, Any] = {"matcher": matcher} if matcher else {}
            group["hooks"] = [{"type": "command", "command": command, "timeout": timeout}]
            groups.append(group)
    return new


def expected_copilot_merge(old: dict[str, Any], template: str) -> dict[str, Any]:
    """GitHub Copilot CLI: each event holds its hooks ({type, bash, timeoutSec});
    the SessionStart and Stop ones tell the hook it runs in Copilot, and
    PreCompact runs the SessionStart one too (it keeps the resume for the
    prompt after the compaction)."""
    new = copy.deepcopy(old)
    hooks = new.setdefault("hooks", {})
    for event, _, hook, timeout in [*EVENTS, ("PreCompact", "", "session-start-hook", 10)]:
        command = template.replace("{hook}", hook)
        if event != "UserPromptSubmit":
            command = "DATARIM_HOOK_RUNTIME=copilot " + command
        entries = hooks.setdefault(event, [])
        if not any(isinstance(h, dict) and h.get("bash") == command for h in entries):
            entries.append({"type": "command", "bash": command, "timeoutSec": timeout})
    return new


def _merge(
    impl: str, path: Path, template: str = TEMPLATE, runtime: str = "claude"
) -> tuple[int, bytes, bytes]:
    argv = ["--runtime", runtime, "--file", str(path), "--hook-command", template]
    if impl == "bash":
        return run_bash(SCRIPT, argv, path.parent)
    return run_python("install-hooks", argv, path.parent)


def _merged_cases() -> list[Path]:
    return sorted(p for p in SUITE.glob("*/expect/files/ws/settings.json"))


@pytest.mark.parametrize("merged", _merged_cases(), ids=lambda p: p.parts[-5])
def test_every_merge_in_the_corpus_means_what_it_must(merged: Path) -> None:
    case = merged.parents[3]
    args = (case / "args").read_text().split("\n")
    template = decode_escapes(args[args.index("--hook-command") + 1])
    runtime = args[args.index("--runtime") + 1]
    old_path = case / "root" / "settings.json"
    old_bytes = old_path.read_bytes() if old_path.exists() else b"{}\n"
    new_bytes = merged.read_bytes()
    # parse_int=float: a number of 5000 digits is past what int() takes by default.
    new, old = json.loads(new_bytes, parse_int=float), json.loads(old_bytes, parse_int=float)
    assert new == expected_merge(old, template, runtime)
    # Only additions, but for the inside of an empty container, which is replaced.
    ops = difflib.SequenceMatcher(None, old_bytes, new_bytes, autojunk=False).get_opcodes()
    for tag, i1, i2, _, _ in ops:
        assert tag in ("equal", "insert") or old_bytes[i1:i2].strip() == b"", (
            tag,
            old_bytes[i1:i2],
        )


@pytest.mark.parametrize("impl", ["bash", "python"])
@pytest.mark.parametrize("merged", _merged_cases(), ids=lambda p: p.parts[-5])
def test_a_second_run_changes_nothing(impl: str, merged: Path, tmp_path: Path) -> None:
    case = merged.parents[3]
    args = (case / "args").read_text().split("\n")
    template = decode_escapes(args[args.index("--hook-command") + 1])
    runtime = args[args.index("--runtime") + 1]
    path = tmp_path / "settings.json"
    shutil.copyfile(merged, path)
    code, out, err = _merge(impl, path, template, runtime)
    assert (code, err) == (0, b"")
    assert out == f"install-hooks: the hooks are already in {path}; nothing changed\n".encode()
    assert path.read_bytes() == merged.read_bytes()
    assert os.listdir(tmp_path) == ["settings.json"]


# Random settings files: values, "hooks" of every shape, every spacing.
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=6))
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
_handler = st.fixed_dictionaries(
    {
        "type": st.just("command"),
        "command": st.sampled_from(["n", TEMPLATE.replace("{hook}", "stop-hook")]),
    }
)
# GitHub Copilot CLI's entries: the hook itself, its command under "bash".
_copilot_hook = st.fixed_dictionaries(
    {
        "type": st.just("command"),
        "bash": st.sampled_from(
            ["n", "DATARIM_HOOK_RUNTIME=copilot " + TEMPLATE.replace("{hook}", "stop-hook")]
        ),
    }
)
_group = st.one_of(
    st.fixed_dictionaries({"hooks": st.lists(_handler, max_size=2)}), _copilot_hook, _values
)
_hooks = st.one_of(
    st.dictionaries(
        st.sampled_from(["SessionStart", "UserPromptSubmit", "Stop", "PreToolUse"]),
        st.one_of(st.lists(_group, max_size=2), _values),
        max_size=4,
    ),
    _values,
)
_settings = st.builds(
    lambda other, hooks, with_hooks: {**other, **({"hooks": hooks} if with_hooks else {})},
    st.dictionaries(st.text(max_size=5).filter(lambda k: k != "hooks"), _values, max_size=3),
    _hooks,
    st.booleans(),
)
_layout = st.sampled_from(
    [
        {"indent": 2},
        {"indent": 4},
        {"indent": "\t"},
        {"indent": None},
        {"separators": (",", ":")},
        {"indent": 1, "ensure_ascii": False},
    ]
)


@FUZZ
@given(
    settings=_settings,
    layout=_layout,
    crlf=st.booleans(),
    tail=st.sampled_from(["", "\n", " \n\n"]),
    runtime=st.sampled_from(["claude", "copilot"]),
)
def test_both_implementations_agree_on_random_files(
    tmp_path_factory: pytest.TempPathFactory,
    settings: dict[str, Any],
    layout: dict[str, Any],
    crlf: bool,
    tail: str,
    runtime: str,
) -> None:
    text = json.dumps(settings, **layout) + tail
    if crlf:
        text = text.replace("\n", "\r\n")
    base = tmp_path_factory.mktemp("fuzz")
    results = {}
    for impl in ("bash", "python"):
        path = base / impl / "settings.json"
        path.parent.mkdir()
        path.write_text(text, encoding="utf-8", newline="")
        code, out, err = _merge(impl, path, runtime=runtime)
        results[impl] = (
            code,
            out.replace(str(base / impl).encode(), b"{BASE}"),
            err,
            path.read_bytes(),
        )
    assert results["bash"] == results["python"]
    code, _, err, new = results["bash"]
    hooks = settings.get("hooks", {})
    well_shaped = isinstance(hooks, dict) and all(
        isinstance(hooks[e], list) for e, *_ in EVENTS if e in hooks
    )
    assert code == (0 if well_shaped else 1), err
    if code == 0:
        assert json.loads(new) == expected_merge(settings, TEMPLATE, runtime)
        again = _merge("python", base / "python" / "settings.json", runtime=runtime)
        assert again[0] == 0 and b"nothing changed" in again[1]
    else:
        assert new == text.encode()


def _commands(path: Path) -> list[str]:
    hooks = json.loads(path.read_text())["hooks"]
    return [hooks[event][-1]["hooks"][0]["command"] for event, *_ in EVENTS]


def test_the_bash_default_runs_this_checkouts_scripts(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    code, _, err = run_bash(SCRIPT, ["--runtime", "claude", "--file", str(path)], tmp_path)
    assert (code, err) == (0, b"")
    tools = os.path.realpath(REPO / "dev-tools")
    assert _commands(path) == [f"{tools}/{hook}.sh" for _, _, hook, _ in EVENTS]


def test_the_python_default_runs_its_own_command(tmp_path: Path) -> None:
    path = tmp_path / "hooks.json"
    code, _, err = run_python(
        "install-hooks", ["--runtime", "codex", "--file", str(path)], tmp_path
    )
    assert (code, err) == (0, b"")
    entry = os.path.join(os.path.dirname(sys.executable), "datarim-snapshot")
    assert os.access(entry, os.X_OK)
    assert _commands(path) == [f"{entry} {hook}" for _, _, hook, _ in EVENTS]


def test_a_checkout_path_with_blanks_and_quotes_is_quoted_and_runs(tmp_path: Path) -> None:
    """The command a runtime runs through a shell is one word whatever the path."""
    checkout = tmp_path / "it's a checkout"
    for part in ("dev-tools", "scripts"):
        shutil.copytree(REPO / part, checkout / part, ignore=shutil.ignore_patterns("__pycache__"))
    path = tmp_path / "settings.json"
    code, _, err = run_bash(
        checkout / "dev-tools" / "install-hooks.sh",
        ["--runtime", "claude", "--file", str(path)],
        tmp_path,
    )
    assert (code, err) == (0, b"")
    stop = _commands(path)[2]
    assert stop == "'" + str(checkout).replace("'", "'\"'\"'") + "/dev-tools'/stop-hook.sh"
    state = tmp_path / "state"
    run = subprocess.run(
        ["sh", "-c", stop + " --help"],
        capture_output=True,
        env={"PATH": os.environ["PATH"]},
        check=False,
    )
    assert run.returncode == 0 and run.stdout.startswith(b"Usage: stop-hook")
    assert not state.exists()


def _installer(impl: str, runtime: str, path: Path, template: str) -> subprocess.Popen[bytes]:
    argv = ["--runtime", runtime, "--file", str(path), "--hook-command", template]
    if impl == "bash":
        command = [str(SCRIPT), *argv]
    else:
        command = [sys.executable, "-m", "datarim_snapshot", "install-hooks", *argv]
    env = {"PATH": os.environ["PATH"], "HOME": str(path.parent), "LC_ALL": "C.UTF-8"}
    return subprocess.Popen(
        command, cwd=path.parent, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def _all_commands(path: Path) -> list[str]:
    hooks = json.loads(path.read_text())["hooks"]
    return [
        hook["command"] for event, *_ in EVENTS for group in hooks[event] for hook in group["hooks"]
    ]


def test_concurrent_installers_never_lose_an_entry(tmp_path: Path) -> None:
    """24 installers of both languages at once (two terminals, a script): into one
    file, and into three files with both runtimes. Each template is installed by
    two of them; every one ends in the file exactly once, each installer says
    "added" or "already there" truthfully (one "added" per template), the other
    bytes stay, and no lock or temp file is left."""
    files = [tmp_path / "one" / "settings.json"] + [
        tmp_path / "three" / f"{name}.json" for name in ("a", "b", "c")
    ]
    for path in files:
        path.parent.mkdir(exist_ok=True)
        path.write_text('{\n  "model": "x"\n}\n')
    plan = []
    for i in range(24):
        path = files[0] if i < 12 else files[1 + i % 3]
        template = f"/opt/t{i % 6}/{{hook}}.sh" if i < 12 else f"/opt/u{i % 6}/{{hook}}.sh"
        impl, runtime = "bash" if i % 2 else "python", "codex" if i % 4 < 2 else "claude"
        plan.append((impl, runtime, path, template))
    procs = [_installer(*step) for step in plan]
    results = [(*proc.communicate(timeout=120), proc.returncode) for proc in procs]
    said: dict[tuple[Path, str], list[bytes]] = {}
    for (_, _, path, template), (stdout, stderr, code) in zip(plan, results):
        assert (code, stderr) == (0, b""), (path, template, stderr)
        said.setdefault((path, template), []).append(stdout)
    for (path, template), lines in said.items():
        events = "SessionStart, UserPromptSubmit and Stop"
        added = f"install-hooks: added the {events} hooks to {path}\n"
        already = f"install-hooks: the hooks are already in {path}; nothing changed\n"
        assert sorted(lines) == sorted([added.encode(), already.encode()]), (path, template)
    for path in files:
        want = sorted(
            template.replace("{hook}", hook)
            for (target, template) in said
            if target == path
            for _, _, hook, _ in EVENTS
        )
        assert sorted(_all_commands(path)) == want, path
        assert json.loads(path.read_text())["model"] == "x"
        assert sorted(p.name for p in path.parent.iterdir()) == sorted(
            f.name for f in files if f.parent == path.parent
        )
