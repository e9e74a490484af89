"""`datarim-snapshot <subcommand>`: twins of the shell entry points, same flags, bytes, codes."""

from __future__ import annotations

import os
import sys

from .console import Console

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import BinaryIO, Callable

# subcommand -> (module, function, the shell entry point it mirrors). Modules
# load on demand so a call pays only for what it runs.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "write": ("commands", "write_command", "dev-tools/snapshot-writer-wrapper.sh"),
    "check": ("commands", "check_command", "dev-tools/check-stage-snapshot-on-exit.sh"),
    "emit": ("emit", "emit_command", "dev-tools/emit-stage-snapshot.sh"),
    "replay": ("resume", "replay_command", "dev-tools/render-replay-prompt.sh"),
    "resume": ("resume", "resume_command", "dev-tools/resume-task.sh"),
    "session-start-hook": ("hook", "session_start_command", "dev-tools/session-start-hook.sh"),
    "prompt-hook": ("prompt_hook", "prompt_hook_command", "dev-tools/prompt-hook.sh"),
    "stop-hook": ("stop_hook", "stop_hook_command", "dev-tools/stop-hook.sh"),
    "install-hooks": ("install_hooks", "install_hooks_command", "dev-tools/install-hooks.sh"),
    "show": ("lifecycle", "show_command", "dev-tools/snapshot-show.sh"),
    "list": ("lifecycle", "list_command", "dev-tools/snapshot-list.sh"),
    "archive": ("lifecycle", "archive_command", "dev-tools/snapshot-archive.sh"),
    "session-write": (
        "session_commands",
        "session_write_command",
        "dev-tools/session-handoff-writer-wrapper.sh",
    ),
    "session-check": (
        "session_commands",
        "session_check_command",
        "dev-tools/check-session-handoff.sh",
    ),
    "session-replay": ("session_commands", "session_replay_command", "dev-tools/session-replay.sh"),
    "doctor": ("doctor", "doctor_command", "dev-tools/doctor.sh"),
    "session-reverify": (
        "session_commands",
        "session_reverify_command",
        "dev-tools/reverify-session-claims.sh",
    ),
}

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
    if not args or args[0] not in COMMANDS:
        listing = "".join(f"  {name:<16}same as {entry[2]}\n" for name, entry in COMMANDS.items())
        console.err.write(USAGE.encode() + b"Subcommands:\n" + listing.encode())
        return 2
    module_name, function_name, _ = COMMANDS[args[0]]
    # __import__ rather than importlib.import_module: the console script has not
    # loaded importlib (about 1 ms); with a fromlist it returns the submodule.
    module = __import__(f"datarim_snapshot.{module_name}", fromlist=[function_name])
    command: Callable[[Sequence[str], Console], int] = getattr(module, function_name)
    code = command(args[1:], console)
    failed = console.flush()
    if failed is None:
        return code
    if isinstance(failed, BrokenPipeError):
        return BROKEN_PIPE  # the reader has gone
    # Not one byte more of stdout: the exit code still says what was done.
    reason = getattr(failed, "strerror", None) or "closed"
    console.err.write(
        f"datarim-snapshot {args[0]}: cannot write to standard output ({reason})\n".encode()
    )
    return code


def _die_of(name: str) -> None:
    """Ends the process by the signal itself, as a shell tool does (bash
    included), so the caller sees 128 + signal and a shell loop stops."""
    import signal  # only on the way out

    number = getattr(signal, name)
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)


def run() -> None:
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
