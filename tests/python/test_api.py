"""The typed Python API: what a caller imports, the paths it returns, the codes its errors carry."""

from __future__ import annotations

import calendar
import io
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

# The API by name, as a caller imports it: the same names as __all__ on purpose.
from datarim_snapshot import (
    Emission,
    InvalidTaskIdError,
    LockBusyError,
    MalformedError,
    MissingError,
    RefusedError,
    UsageError,
    check_snapshot_bytes,
    read_stage_snapshot,
    render_snapshot,
    replay_prompt,
    validate_stage_snapshot,
    write_session_handoff,
    write_stage_snapshot,
)
from datarim_snapshot import (
    _cli as cli,
)


def _write(root: Path, **overrides: object) -> str:
    body = root / "body.md"
    if not body.exists():
        body.write_text("Stage summary.\n", encoding="utf-8")
    args: dict[str, object] = dict(
        root=str(root), task="TUNE-0254", stage="plan", command="/dr-plan",
        captured_by="agent", recommended_next="/dr-verify", body_file=str(body),
    )  # fmt: skip
    args.update(overrides)
    return write_stage_snapshot(**args)  # type: ignore[arg-type]


def test_write_returns_the_path_and_stamps_now_in_utc(tmp_path: Path) -> None:
    before = time.time()
    path = _write(tmp_path)
    assert path == str(tmp_path.resolve() / "datarim" / "snapshots" / "TUNE-0254.snapshot.md")
    stamp = re.search(r"^captured_at: (\S+)$", Path(path).read_text(), re.M)
    assert stamp is not None
    seconds = calendar.timegm(time.strptime(stamp.group(1), "%Y-%m-%dT%H:%M:%SZ"))
    # Whole seconds, from a clock that may be the kernel's coarse one (a few ms
    # behind time.time() across a second's boundary): compare whole seconds.
    assert int(before) - 1 <= seconds <= time.time() + 1
    assert validate_stage_snapshot("TUNE-0254", str(tmp_path)) == str(
        tmp_path / "datarim" / "snapshots" / "TUNE-0254.snapshot.md"
    )


def test_errors_carry_the_shell_exit_codes(tmp_path: Path) -> None:
    with pytest.raises(RefusedError) as refused:
        _write(tmp_path, stage="later")
    assert refused.value.code == 1
    with pytest.raises(UsageError) as usage:
        _write(tmp_path, body="text as well as a file")
    assert usage.value.code == 2
    (tmp_path / "datarim" / "snapshots" / ".lock.TUNE-0254").mkdir(parents=True)
    with pytest.raises(LockBusyError) as busy:
        _write(tmp_path, lock_timeout=0)
    assert busy.value.code == 3
    with pytest.raises(MissingError) as missing:
        validate_stage_snapshot("TUNE-0254", str(tmp_path))
    assert missing.value.code == 1
    with pytest.raises(UsageError) as bad_id:
        validate_stage_snapshot("tune-0254", str(tmp_path))
    assert bad_id.value.code == 3


def test_a_bad_task_id_is_one_error_class_for_writer_and_readers(tmp_path: Path) -> None:
    with pytest.raises(InvalidTaskIdError) as written:
        _write(tmp_path, task="../etc")
    with pytest.raises(InvalidTaskIdError) as replayed:
        replay_prompt("../etc", tmp_path)
    with pytest.raises(InvalidTaskIdError) as read:
        read_stage_snapshot("tune-0254", tmp_path)
    # Still what each raised before: a writer's refusal (1), a reader's bad call (3).
    assert isinstance(written.value, RefusedError) and written.value.code == 1
    assert isinstance(replayed.value, UsageError) and replayed.value.code == 3
    assert read.value.code == 3


def test_the_environment_changes_no_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATARIM_DISABLE_SNAPSHOT", "1")
    monkeypatch.setenv("DATARIM_SNAPSHOT_REDACT", "0")
    monkeypatch.setenv("DR_SNAPSHOT_LOCK_TIMEOUT", "soon")
    path = _write(tmp_path, body="DB_PASSWORD=hunter2\n", body_file=None)
    assert Path(path).read_text().endswith("DB_PASSWORD=[REDACTED]\n")


def test_text_bytes_and_paths_in_str_fields_out(tmp_path: Path) -> None:
    options = ["/dr-do TUNE-0254 — build it", "/dr-plan TUNE-0254 — plan again"]
    for body in ("готово\n", "готово\n".encode()):
        _write(tmp_path, body=body, body_file=None, options=options)
        path, snapshot = read_stage_snapshot("TUNE-0254", tmp_path)
        assert Path(path) == tmp_path / "datarim" / "snapshots" / "TUNE-0254.snapshot.md"
        assert snapshot.body == "готово\n" and snapshot.options == tuple(options)
        assert snapshot.stage == "plan" and snapshot.recommended_next == "/dr-verify"
    _write(tmp_path, body=None, body_file=tmp_path / "body.md", options="/dr-qa TUNE-0254\n")
    assert read_stage_snapshot("TUNE-0254", tmp_path)[1].options == ("/dr-qa TUNE-0254",)
    assert replay_prompt("TUNE-0254", tmp_path, option="/dr-qa").startswith("/dr-qa TUNE-0254\n")


def test_messages_name_arguments_not_flags(tmp_path: Path) -> None:
    refusals: dict[str, dict[str, object]] = {
        "body is not valid UTF-8": dict(body=b"\xff", body_file=None),
        "body holds a NUL byte": dict(body="a\0b", body_file=None),
        "body_file is not a readable file": dict(body_file=tmp_path / "none"),
        "invalid stage (want one of:": dict(stage="later"),
        "invalid recommended_next: ": dict(recommended_next="dr-do"),
        "options line 1 holds a control character": dict(options="a\x01\n"),
        "options item 2 holds a line break": dict(options=["/dr-do", "a\nb"]),
    }
    for message, overrides in refusals.items():
        with pytest.raises(RefusedError) as refused:
            _write(tmp_path, **overrides)
        assert str(refused.value).startswith(message), refused.value
        assert "--" not in refused.value.message
    _write(tmp_path)
    with pytest.raises(UsageError, match="^option 9 matches no option of TUNE-0254"):
        replay_prompt("TUNE-0254", tmp_path, option="9")


def test_render_and_check_round_trip_in_memory() -> None:
    data = render_snapshot(
        "TUNE-0254", "qa", "/dr-qa", "operator", "/dr-archive", "2026-05-21T13:45:00Z",
        b"/dr-archive TUNE-0254 | finalise\n", "готово\n".encode(),
    )  # fmt: skip
    check_snapshot_bytes(data, "TUNE-0254")
    with pytest.raises(MalformedError) as wrong:
        check_snapshot_bytes(data, "TUNE-0255")
    assert wrong.value.code == 2
    assert "does not match the file name" in wrong.value.message


def test_secrets_are_saved_redacted_unless_switched_off(tmp_path: Path) -> None:
    (tmp_path / "body.md").write_text("Deployed with DB_PASSWORD=hunter2 set.\n")
    saved = Path(str(_write(tmp_path))).read_bytes()
    assert saved.endswith(b"Deployed with DB_PASSWORD=[REDACTED] set.\n")
    saved = Path(_write(tmp_path, redact=False)).read_bytes()
    assert saved.endswith(b"Deployed with DB_PASSWORD=hunter2 set.\n")
    args = ("TUNE-0254", "do", "/dr-do", "agent", "/dr-qa", "2026-05-21T13:45:00Z", None)
    body = b"token ghp_16C7e42F292c6912E7710c838347Ae178B4a\n"
    assert render_snapshot(*args, body).endswith(b"token [REDACTED]\n")
    assert render_snapshot(*args, body, redact=False).endswith(body)


def test_every_exported_name_is_the_api_object_whatever_was_imported_first() -> None:
    # Importing a submodule binds its name on the package; an exported function
    # sharing that name would then resolve to the module. Import every submodule
    # first, in a fresh interpreter, and check each exported name.
    probe = textwrap.dedent(
        """
        import importlib, pkgutil, types
        import datarim_snapshot as pkg
        for info in pkgutil.iter_modules(pkg.__path__):
            if info.name != "__main__":
                importlib.import_module("datarim_snapshot." + info.name)
        bad = [n for n in pkg.__all__ if isinstance(getattr(pkg, n), types.ModuleType)]
        print(",".join(bad))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""


def test_results_are_values_compared_and_printed_field_by_field() -> None:
    data = render_snapshot(
        "TUNE-0254", "qa", "/dr-qa", "operator", "/dr-archive", "2026-05-21T13:45:00Z",
        None, b"body\n",
    )  # fmt: skip
    first, second = check_snapshot_bytes(data, "TUNE-0254"), check_snapshot_bytes(data, "TUNE-0254")
    assert first == second and first is not second
    assert repr(first).startswith("StageSnapshot(task_id='TUNE-0254', stage='qa', command=")
    assert first.git == {} and first.options == ()
    with pytest.raises(AttributeError):
        setattr(second, "truncated", True)  # noqa: B010 (mypy would stop the plain assignment)
    emission = Emission("TUNE-0254", "/dr-qa", ["/dr-qa TUNE-0254"], b"", None)
    assert emission == Emission("TUNE-0254", "/dr-qa", ["/dr-qa TUNE-0254"], b"", None)
    with pytest.raises(AttributeError):
        emission.path = "elsewhere"


def test_help_lists_the_subcommands_on_stdout_and_succeeds() -> None:
    out, err = io.BytesIO(), io.BytesIO()
    for flag in ("--help", "-h"):
        assert cli.main([flag], out, err) == 0
    listing = out.getvalue().decode()
    assert listing.startswith("Usage: datarim-snapshot <subcommand>")
    assert "  write  " in listing and err.getvalue() == b""


def test_the_subcommand_listing_keeps_each_name_apart_from_its_text() -> None:
    err = io.BytesIO()
    assert cli.main([], io.BytesIO(), err) == 2
    lines = err.getvalue().decode().splitlines()[2:]
    assert len(lines) == len(cli.command_map())
    column = lines[0].index("same as dev-tools/")
    for line, (name, entry) in zip(lines, cli.command_map().items()):
        assert line.startswith(f"  {name}  "), line
        if entry.script == "-":  # no bash twin (mcp): said in the same column
            assert line[column - 1 :] == " (Python only)", line
        else:
            assert line.index("same as dev-tools/") == column, line


def test_the_session_writer_reads_no_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATARIM_DISABLE_SESSION_HANDOFF", "1")
    monkeypatch.setenv("DR_SESSION_LOCK_TIMEOUT", "soon")
    (tmp_path / "tasks.txt").write_text("TUNE-0254 | in_progress\n")
    body = "## Layer 1 — Git State\n\n## Layer 5 — Failed Approaches\nnone\n"
    (tmp_path / "body.md").write_text(body)
    saved = write_session_handoff(
        tmp_path, "SESSION-20260521-134500", "agent", "/dr-do", "go on",
        tmp_path / "tasks.txt", tmp_path / "body.md", lock_timeout=5,
    )  # fmt: skip
    assert Path(saved.path).is_file()


def test_dir_and_help_show_the_api_before_any_name_is_loaded() -> None:
    # A fresh interpreter: the names load on first use, so dir() and help()
    # see them only through the package's __dir__.
    probe = textwrap.dedent(
        """
        import pydoc
        import datarim_snapshot as pkg
        names = [name for name in dir(pkg) if not name.startswith("_")]
        print(names == sorted(pkg.__all__))
        page = pydoc.render_doc(pkg, renderer=pydoc.plaintext)
        print("write_stage_snapshot(root" in page, "class StageSnapshot" in page)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.split() == ["True", "True", "True"]
