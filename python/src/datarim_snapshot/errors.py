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


def quietly(action: Callable[..., object], *args: object) -> None:
    """action(*args), an OSError ignored (contextlib.suppress would cost an import)."""
    try:  # noqa: SIM105
        action(*args)
    except OSError:
        pass
