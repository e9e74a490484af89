"""Bash twin: scripts/lib/datarim-common.sh (usage, dr_err) and the dev-tools/*.sh entry points.

`datarim-snapshot <subcommand>`: twins of the shell entry points, same flags, bytes,
codes, and the one place where a command starts and where its refusal is told.
"""

from __future__ import annotations

import os
import sys

from ._console import Console
from ._errors import DatarimError, HelpRequested, UsageError, VersionRequested
from ._flags import MissingFlagsError
from ._texts import cli_usage, text_bytes, usage, version_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import BinaryIO, Callable

# How a command's refusal ends, as its shell twin's does, by the last field of
# its line in the command map: (the exit code of -h/--help, of a usage error, of
# any other refusal; None: the error's own code), and whether "missing required
# flag(s)" is followed by the usage text. docs/commands.md has the table.
ON_FAILURE: dict[str, tuple[int, int | None, int | None, bool]] = {
    "writer": (2, None, None, True),  # write, emit, session-write
    "reader": (0, 3, None, False),  # checkers, readers: every usage error is 3
    "plain": (0, None, None, False),
    "hook": (0, None, None, False),  # hooks never fail: they catch it all
    "doctor": (0, 2, 1, False),
    "reverify": (0, 2, 2, False),
}


class Command:
    """One line of the command map (scripts/lib/text/commands.txt)."""

    __slots__ = (
        "name", "script", "bash_function", "module", "function", "program", "kind", "failing",
        "what",
    )  # fmt: skip

    def __init__(self, fields: list[str]) -> None:
        (self.name, self.script, self.bash_function, target, self.program, self.kind,
         self.what) = fields  # fmt: skip
        self.module, _, self.function = target.partition(".")
        self.failing = ON_FAILURE[self.kind]


def command_map() -> dict[str, Command]:
    """Every command by name, in the map's order. Modules load on demand, so a
    call pays only for what it runs."""
    commands = {}
    for line in text_bytes("commands.txt").decode("utf-8").splitlines():
        if line and not line.startswith("#"):
            command = Command([field.strip() for field in line.split("|", 6)])
            commands[command.name] = command
    return commands


BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command SIGPIPE ended

USAGE = "Usage: datarim-snapshot <subcommand> [flags]   (--help after a subcommand for its flags)\n"


HELP = (["-h"], ["--help"])


def main(
    argv: Sequence[str] | None = None,
    stdout: BinaryIO | None = None,
    stderr: BinaryIO | None = None,
    *,
    cli_help: bool = False,
) -> int:
    """Runs one subcommand and returns its exit code; never raises for bad input.

    A subcommand's -h/--help prints its shell twin's usage with that script's exit
    code (2 for the writers), byte for byte, unless cli_help: then, as the
    `datarim-snapshot` command does (run()), the usage names `datarim-snapshot
    <subcommand>` and the exit code is 0 (docs/commands.md)."""
    args = list(sys.argv[1:] if argv is None else argv)
    console = Console(stdout, stderr)
    if args[:1] == ["--version"]:
        console.write(version_line())
        return _finished(console, "--version", 0)
    commands = command_map()
    if args[:1] in HELP:
        console.write(USAGE.encode() + b"Subcommands:\n" + _listing(commands).encode())
        return _finished(console, args[0], 0)
    if not args or args[0] not in commands:
        console.err.write(USAGE.encode() + b"Subcommands:\n" + _listing(commands).encode())
        return 2
    entry = commands[args[0]]
    if cli_help and entry.kind == "hook" and args[1:2] in HELP:
        # A hook answers -h/--help as its first word only (texts.first_word_answer),
        # and never fails: a stdout it cannot write gets nothing more (as bash's).
        console.write(cli_usage(entry.program, entry.name))
        console.flush()
        console.failed = None
        return 0
    # __import__ rather than importlib.import_module: the console script has not
    # loaded importlib (about 1 ms); with a fromlist it returns the submodule.
    module = __import__(f"datarim_snapshot.{entry.module}", fromlist=[entry.function])
    command: Callable[[Sequence[str], Console], int] = getattr(module, entry.function)
    try:
        code = command(args[1:], console)
    except DatarimError as exc:
        if cli_help and isinstance(exc, HelpRequested):
            console.write(cli_usage(entry.program, entry.name))
            code = 0
        else:
            code = _refused(console, entry.program, entry.failing, exc)
    return _finished(console, args[0], code)


def _finished(console: Console, what: str, code: int) -> int:
    """Flushes stdout; the exit code, or 141 when the reader has gone."""
    failed = console.flush()
    if failed is None:
        return code
    if isinstance(failed, BrokenPipeError):
        return BROKEN_PIPE  # the reader has gone
    # Not one byte more of stdout: the exit code still says what was done.
    reason = getattr(failed, "strerror", None) or "closed"
    console.err.write(
        f"datarim-snapshot {what}: cannot write to standard output ({reason})\n".encode()
    )
    return code


def _refused(
    console: Console,
    program: str,
    failing: tuple[int, int | None, int | None, bool],
    exc: DatarimError,
) -> int:
    """The one place a command's refusal is told: its usage text for -h/--help,
    the version for --version (exit 0 for every command; both on stdout), else
    one line `program: message` on stderr; returns the exit code."""
    help_code, usage_code, refusal_code, usage_after_missing = failing
    if isinstance(exc, HelpRequested):
        console.write(usage(program))
        return help_code
    if isinstance(exc, VersionRequested):
        console.write(version_line())
        return 0
    console.error(program, exc.message)
    if isinstance(exc, UsageError):
        if usage_after_missing and isinstance(exc, MissingFlagsError):
            console.err.write(usage(program))
        return exc.code if usage_code is None else usage_code
    return exc.code if refusal_code is None else refusal_code


def _listing(commands: dict[str, Command]) -> str:
    """One line a subcommand, its name padded to the longest one's."""
    width = max(len(name) for name in commands) + 2
    return "".join(
        f"  {name:<{width}}same as dev-tools/{entry.script}\n"
        if entry.script != "-"
        else f"  {name:<{width}}(Python only)\n"
        for name, entry in commands.items()
    )


def _die_of(name: str) -> None:
    """Ends the process by the signal itself, as a shell tool does (bash
    included), so the caller sees 128 + signal and a shell loop stops."""
    import signal  # only on the way out

    number = getattr(signal, name)
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)


_RESTART = (
    b"import sys; sys.path[0] = sys.argv.pop(1); from datarim_snapshot._cli import run; run()"
)


def _argument_bytes() -> list[bytes] | None:
    """The command's arguments as the caller passed them: /proc has the bytes;
    elsewhere os.fsencode, which the codec of some locales (Big5, EUC-JP) cannot
    always invert. None when they cannot be had."""
    count = len(sys.argv) - 1
    try:
        with open("/proc/self/cmdline", "rb") as handle:
            words = handle.read().split(b"\0")[:-1]
        if len(words) > count:
            return words[len(words) - count :]
    except OSError:
        pass
    try:
        return [os.fsencode(arg) for arg in sys.argv[1:]]
    except UnicodeError:
        return None


def _restart_in_utf8() -> None:
    """Under a locale whose encoding is not UTF-8 (ISO-8859-1, Shift_JIS, Big5 ...)
    Python reads arguments, the environment and file names in that encoding, and
    what a command prints would depend on it. Start again in UTF-8 mode on the
    same argument bytes: the bytes in and out are then those of every other
    locale, as bash's are in the C locale. Returns when there is nothing to do
    or the new start fails (then this process goes on as it is)."""
    if sys.flags.utf8_mode or sys.getfilesystemencoding() == "utf-8":
        return
    args = _argument_bytes()
    if args is None:
        return
    flags = [
        flag
        for flag, on in (
            ("-E", sys.flags.ignore_environment),
            ("-s", sys.flags.no_user_site),
            ("-S", sys.flags.no_site),
            ("-I", sys.flags.isolated),
        )
        if on
    ]
    try:
        python = os.fsencode(sys.executable)
        # The directory this package was imported from, in place of the working
        # directory that -c (or -m) would put first on sys.path: a project's own
        # datarim_snapshot/ folder must never be imported.
        where = os.fsencode(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        options = [flag.encode() for flag in flags]
        os.execv(python, [python, *options, b"-X", b"utf8", b"-c", _RESTART, where, *args])
    except (OSError, UnicodeError):
        pass


def run() -> None:
    _restart_in_utf8()
    try:
        code = main(cli_help=True)
    except KeyboardInterrupt:
        # Ctrl-C (a writer waiting for a lock, a long read): no traceback. Locks
        # held were released on the way out (held_lock's __exit__); one waited
        # for is not ours and stays as it was.
        _die_of("SIGINT")
        raise SystemExit(130) from None
    if code == BROKEN_PIPE:
        # End the way a shell tool does when its reader has gone (bash included).
        _die_of("SIGPIPE")
    if sys.stdout is not None:  # None when the caller closed it
        try:  # noqa: SIM105 (contextlib would cost every command its import)
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    if _nothing_left_at_exit():
        # The interpreter's own exit, tearing down every module, costs a short
        # command some 3 ms; with both streams flushed nothing else waits for it.
        os._exit(code)
    raise SystemExit(code)


def _nothing_left_at_exit() -> bool:
    """True when the interpreter's exit would do no more than flush stderr (done
    here): no thread to wait for, no atexit function (the mcp server's
    libraries start both), and stderr written out."""
    if "threading" in sys.modules:
        return False
    import atexit  # built in: no file to load

    count = getattr(atexit, "_ncallbacks", None)
    if count is None or count():
        return False
    if sys.stderr is not None:
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            return False
    return True
