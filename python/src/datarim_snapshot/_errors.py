"""Bash twin: dr_err and the exit codes of scripts/lib/datarim-common.sh.

Exceptions of the datarim port; each carries the exit code its shell twin returns.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable


class DatarimError(Exception):
    """A refusal with a one-line message and the exit code of the matching shell script."""

    code: int = 1

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


# One class an exit code and meaning, alike on purpose: callers catch them by class
# (natural twins, issue 20).


class UsageError(DatarimError):
    """Bad command line: missing, unknown or repeated flag, bad environment value."""

    code = 2


class HelpRequested(DatarimError):
    """-h/--help was given; the caller prints the usage text."""

    code = 0


class VersionRequested(DatarimError):
    """--version was given; the caller prints the version (exit 0, every command)."""

    code = 0


class RefusedError(DatarimError):
    """Invalid input or an I/O failure; nothing on disk was changed."""

    code = 1


class LockBusyError(DatarimError):
    """Another writer holds the lock: wait and retry."""

    code = 3


class MissingError(DatarimError):
    """The artefact does not exist."""

    code = 1


class MalformedError(DatarimError):
    """The artefact exists but breaks a rule of the contract."""

    code = 2


class InvalidTaskIdError(RefusedError, UsageError):
    """The task ID breaks the task-ID rule (spec §1), whichever function was
    given it. Both a RefusedError (a writer refuses it: code 1) and a
    UsageError (a reader takes it for a bad call: code 3)."""

    code = 1


# The flags of the command line and the arguments of the Python API that
# stand for them: an API call's error names what its caller wrote.
FLAG_ARGUMENTS = {
    "--body-file": "body_file",
    "--options-file": "options_file",
    "--captured-at": "captured_at",
    "--captured-by": "captured_by",
    "--recommended-next": "recommended_next",
    "--command": "command",
    "--stage": "stage",
    "--task": "task",
    "--root": "root",
    "--option": "option",
}


def argument_message(message: str, renames: dict[str, str] | None = None) -> str:
    """message with each flag it names replaced by its argument (renames first)."""
    import re

    names = {**FLAG_ARGUMENTS, **(renames or {})}
    return re.sub(
        r"(?<![\w-])--[a-z][a-z-]*(?![\w-])", lambda flag: names.get(flag[0], flag[0]), message
    )


class arguments_named:  # noqa: N801 (used as a statement, like contextlib's)
    """A with-block whose DatarimError, re-raised, names arguments, not flags."""

    def __init__(self, renames: dict[str, str] | None = None) -> None:
        self.renames = renames

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, trace: object) -> None:
        if isinstance(exc, DatarimError):
            exc.message = argument_message(exc.message, self.renames)
            exc.args = (exc.message,)


def quietly(action: Callable[..., object], *args: object) -> None:
    """action(*args), an OSError ignored (contextlib.suppress would cost an import)."""
    try:  # noqa: SIM105
        action(*args)
    except OSError:
        pass
