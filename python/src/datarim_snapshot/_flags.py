"""Bash twin: scripts/lib/datarim-flags.sh.

The `--flag value` command-line grammar shared by every entry point (dr_parse_flags),
the checkers' command line, and whole seconds from the environment.
"""

from __future__ import annotations

import os

from ._errors import DatarimError, HelpRequested, RefusedError, UsageError, VersionRequested


class MissingFlagsError(UsageError):
    """Required flags are missing: a writer prints its usage after the message (spec §8)."""


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from ._console import Console


def parse_flags(spec: str, required: str, argv: Sequence[str]) -> dict[str, str]:
    """Parse argv left to right.

    spec lists the flags, a value flag with a trailing "=" ("--root= --hint"),
    one that may repeat with "=+" (its values joined by line ends, in order);
    "@--task" in spec makes a bare argument, wherever it stands, the value of
    --task. required lists value flags that must be present; an empty value is
    a UsageError like a missing one. -h/--help raises HelpRequested, --version
    VersionRequested: the first of them given ends the parse. Returns {"root": value,
    "hint": "1", ...} keyed by flag name with dashes as underscores.
    """
    value_flags = {f[:-1] for f in spec.split() if f.endswith("=")}
    repeated_flags = {f[:-2] for f in spec.split() if f.endswith("=+")}
    bool_flags = {f for f in spec.split() if not f.endswith(("=", "=+")) and not f.startswith("@")}
    positional = next((f[1:] for f in spec.split() if f.startswith("@")), None)
    argv = list(argv)
    found: dict[str, str] = {}
    seen: list[str] = []
    i = 0
    while i < len(argv):
        flag = argv[i]
        if flag in ("-h", "--help"):
            raise HelpRequested("help")
        if flag == "--version":
            raise VersionRequested("version")
        if positional is not None and not flag.startswith("-"):
            # A bare argument: read it as its flag's value, on the next turn.
            argv.insert(i, positional)
            continue
        if flag in repeated_flags:
            if i + 1 >= len(argv) or argv[i + 1].startswith("--"):
                raise UsageError(f"flag needs a value: {flag}")
            if not argv[i + 1]:
                raise UsageError(f"flag has an empty value: {flag}")
            if "\n" in argv[i + 1]:
                raise UsageError(f"flag value holds a line break: {flag}")
            key = flag[2:].replace("-", "_")
            found[key] = found[key] + "\n" + argv[i + 1] if key in found else argv[i + 1]
            i += 2
            continue
        if flag in value_flags:
            if i + 1 >= len(argv) or argv[i + 1].startswith("--"):
                raise UsageError(f"flag needs a value: {flag}")
            value = argv[i + 1]
            if not value:  # `--task "$ID"` with an empty $ID: a caller's bug, never "not given"
                raise UsageError(f"flag has an empty value: {flag}")
            i += 2
        elif flag in bool_flags:
            value = "1"
            i += 1
        elif flag.startswith("-"):
            raise UsageError(f"unknown flag: {flag}")
        else:
            raise UsageError(f"unexpected argument: {flag}")
        if flag in seen:
            raise UsageError(f"flag given twice: {flag}")
        seen.append(flag)
        found[flag[2:].replace("-", "_")] = value
    missing = [f for f in required.split() if f not in seen]
    if missing:
        raise MissingFlagsError("missing required flag(s): " + " ".join(missing))
    return found


def writer_arguments(
    disabled_by: str, required: str, optional: str, argv: Sequence[str]
) -> dict[str, Any] | None:
    """How a writer command starts: None when the environment variable
    disabled_by is "1" (that write is off: the command exits 0 having done
    nothing), else the flags given (parse_flags, the required value flags and
    the optional spec) by parameter name (--captured-by: captured_by), a switch
    as True, to pass on as keywords (Any: mypy would hold a dict of str against
    every other parameter too)."""
    if os.environ.get(disabled_by) == "1":
        return None
    spec = " ".join(f"{flag}=" for flag in required.split()) + " " + optional
    switches = {f[2:].replace("-", "_") for f in optional.split() if not f.endswith(("=", "=+"))}
    flags = parse_flags(spec, required, argv)
    return {name: True if name in switches else value for name, value in flags.items()}


def seconds_env(name: str, default: int) -> int:
    """A whole number of seconds from the environment (unset or empty: default)."""
    value = os.environ.get(name, "")
    if value == "":
        return default
    if not value.isascii() or not value.isdigit() or len(value) > 9:
        raise UsageError(f"{name} must be a whole number of seconds")
    return int(value)


DESCRIPTORS_NEEDED = 16


def check_descriptors() -> None:
    """RefusedError when the limit of open files (ulimit -n) is below 16: a write
    opens its lock's owner file, temp files and pipes (dr_descriptors_ok: bash
    took a failed open for another writer's lock). Said before anything is made."""
    try:
        limit = os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):
        return
    if 0 <= limit < DESCRIPTORS_NEEDED:
        raise RefusedError(
            f"too few file descriptors: the limit is {limit} (ulimit -n),"
            f" a write needs {DESCRIPTORS_NEEDED}"
        )


def run_checker(
    argv: Sequence[str],
    console: Console,
    id_flag: str,
    validate: Callable[[str, str | None], object],
    run_self_test: Callable[[Console], int],
) -> int:
    """A validator's command line: <id_flag> <ID> [--root <dir>], --validate-frontmatter
    (accepted, changes nothing), --self-test, -h/--help, --version. 0 valid, 1 missing,
    2 malformed, 3 usage (cli.READER); nothing on stdout, one line on stderr."""
    name = id_flag[2:]
    flags = parse_flags(f"{id_flag}= --root= --validate-frontmatter --self-test", "", argv)
    if flags.get("self_test"):
        return run_self_test(console)
    if name not in flags:
        raise UsageError(f"missing required flag(s): {id_flag}", code=3)
    validate(flags[name], flags.get("root"))
    return 0


def self_test(
    console: Console,
    program: str,
    write: Callable[[str], str],
    check: Callable[[str], object],
) -> int:
    """A validator's --self-test: in a scratch root, write(scratch) writes an
    artefact and returns its path; check(path) must pass it, refuse it as
    malformed (2) once a byte is appended, and as missing (1) once it is gone."""
    import shutil
    import tempfile

    scratch = tempfile.mkdtemp()
    try:
        path = write(scratch)
        check(path)
        with open(path, "ab") as handle:
            handle.write(b"x")
        ok = _fails_with(lambda: check(path), 2)
        os.unlink(path)
        ok = ok and _fails_with(lambda: check(path), 1)
    except (DatarimError, OSError):
        ok = False
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if not ok:
        console.error(program, "self-test failed")
        return 2
    console.write(f"{program}: self-test passed\n".encode())
    return 0


def _fails_with(check: Callable[[], object], code: int) -> bool:
    try:
        check()
    except DatarimError as exc:
        return exc.code == code
    return False
