"""Bash twin: scripts/lib/datarim-common.sh (usage, dr_err) and the dev-tools/*.sh entry points.

`datarim-snapshot <subcommand>`: twins of the shell entry points, same flags, bytes,
codes, and the one place where a command starts and where its refusal is told.
"""

from __future__ import annotations

import os
import sys

from .console import Console
from .errors import DatarimError, HelpRequested, UsageError, VersionRequested
from .flags import MissingFlagsError
from .texts import usage, version_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import BinaryIO, Callable

# How a command's refusal ends, as its shell twin's does: (the exit code of
# -h/--help, of a usage error, of any other refusal; None: the error's own
# code), and whether "missing required flag(s)" is followed by the usage text.
WRITER = (2, None, None, True)  # write, emit, session-write
READER = (0, 3, None, False)  # checkers, readers: every usage error is 3
PLAIN = (0, None, None, False)
DOCTOR = (0, 2, 1, False)
REVERIFY = (0, 2, 2, False)

# subcommand -> (module, function, the shell entry point it mirrors, the program
# name its messages and usage text carry, how it fails). Modules load on demand
# so a call pays only for what it runs. Hooks never fail: they catch it all.
COMMANDS: dict[str, tuple[str, str, str, str, tuple[int, int | None, int | None, bool]]] = {
    "write": (
        "snapshot_writer", "write_command", "dev-tools/snapshot-writer-wrapper.sh",
        "snapshot-writer", WRITER,
    ),
    "check": (
        "snapshot_validator", "check_command", "dev-tools/check-stage-snapshot-on-exit.sh",
        "check-stage-snapshot", READER,
    ),
    "emit": (
        "snapshot_emit", "emit_command", "dev-tools/emit-stage-snapshot.sh",
        "emit-stage-snapshot", WRITER,
    ),
    "replay": (
        "snapshot_resume", "replay_command", "dev-tools/render-replay-prompt.sh",
        "render-replay-prompt", READER,
    ),
    "resume": (
        "snapshot_resume", "resume_command", "dev-tools/resume-task.sh",
        "resume-task", READER,
    ),
    "session-start-hook": (
        "session_start_hook", "session_start_command", "dev-tools/session-start-hook.sh",
        "session-start-hook", PLAIN,
    ),
    "prompt-hook": (
        "prompt_hook", "prompt_hook_command", "dev-tools/prompt-hook.sh",
        "prompt-hook", PLAIN,
    ),
    "stop-hook": (
        "stop_hook", "stop_hook_command", "dev-tools/stop-hook.sh",
        "stop-hook", PLAIN,
    ),
    "install-hooks": (
        "install_hooks", "install_hooks_command", "dev-tools/install-hooks.sh",
        "install-hooks", PLAIN,
    ),
    "show": (
        "snapshot_lifecycle", "show_command", "dev-tools/snapshot-show.sh",
        "snapshot-show", READER,
    ),
    "list": (
        "snapshot_lifecycle", "list_command", "dev-tools/snapshot-list.sh",
        "snapshot-list", READER,
    ),
    "archive": (
        "snapshot_lifecycle", "archive_command", "dev-tools/snapshot-archive.sh",
        "snapshot-archive", READER,
    ),
    "session-write": (
        "session_handoff_writer", "session_write_command",
        "dev-tools/session-handoff-writer-wrapper.sh", "session-handoff-writer", WRITER,
    ),
    "session-check": (
        "session_handoff_validator", "session_check_command",
        "dev-tools/check-session-handoff.sh", "check-session-handoff", READER,
    ),
    "session-replay": (
        "session_replay", "session_replay_command", "dev-tools/session-replay.sh",
        "session-replay", READER,
    ),
    "doctor": ("doctor", "doctor_command", "dev-tools/doctor.sh", "doctor", DOCTOR),
    "session-reverify": (
        "session_probes", "session_reverify_command",
        "dev-tools/reverify-session-claims.sh", "reverify-session-claims", REVERIFY,
    ),
}  # fmt: skip

BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command SIGPIPE ended

USAGE = "Usage: datarim-snapshot <subcommand> [flags]   (--help after a subcommand for its flags)\n"


def main(
    argv: Sequence[str] | None = None,
    stdout: BinaryIO | None = None,
    stderr: BinaryIO | None = None,
) -> int:
    """Runs one subcommand and returns its exit code; never raises for bad input."""
    args = list(sys.argv[1:] if argv is None else argv)
    console = Console(stdout, stderr)
    if args[:1] == ["--version"]:
        console.write(version_line())
        return _finished(console, "--version", 0)
    if not args or args[0] not in COMMANDS:
        console.err.write(USAGE.encode() + b"Subcommands:\n" + _listing().encode())
        return 2
    module_name, function_name, _, program, failing = COMMANDS[args[0]]
    # __import__ rather than importlib.import_module: the console script has not
    # loaded importlib (about 1 ms); with a fromlist it returns the submodule.
    module = __import__(f"datarim_snapshot.{module_name}", fromlist=[function_name])
    command: Callable[[Sequence[str], Console], int] = getattr(module, function_name)
    try:
        code = command(args[1:], console)
    except DatarimError as exc:
        code = _refused(console, program, failing, exc)
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


def _listing() -> str:
    """One line a subcommand, its name padded to the longest one's."""
    width = max(len(name) for name in COMMANDS) + 2
    return "".join(f"  {name:<{width}}same as {entry[2]}\n" for name, entry in COMMANDS.items())


def _die_of(name: str) -> None:
    """Ends the process by the signal itself, as a shell tool does (bash
    included), so the caller sees 128 + signal and a shell loop stops."""
    import signal  # only on the way out

    number = getattr(signal, name)
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)


_RESTART = (
    b"import sys; sys.path[0] = sys.argv.pop(1); from datarim_snapshot.cli import run; run()"
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
        code = main()
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
    raise SystemExit(code)
