"""The `--flag value` command-line grammar shared by every entry point (mirrors dr_parse_flags)."""

from __future__ import annotations

from .errors import HelpRequested, UsageError


class MissingFlagsError(UsageError):
    """Required flags are missing: a writer prints its usage after the message (spec §8)."""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def parse_flags(spec: str, required: str, argv: Sequence[str]) -> dict[str, str]:
    """Parse argv left to right.

    spec lists the flags, a value flag with a trailing "=" ("--root= --hint"),
    one that may repeat with "=+" (its values joined by line ends, in order);
    "@--task" in spec makes a bare argument, wherever it stands, the value of
    --task. required lists value flags that must be present; an empty value is
    a UsageError like a missing one. Returns {"root": value,
    "hint": "1", ...} keyed by flag name with dashes as underscores.
    """
    value_flags = {f[:-1] for f in spec.split() if f.endswith("=")}
    repeated_flags = {f[:-2] for f in spec.split() if f.endswith("=+")}
    bool_flags = {
        f for f in spec.split() if not f.endswith(("=", "=+")) and not f.startswith("@")
    }
    positional = next((f[1:] for f in spec.split() if f.startswith("@")), None)
    argv = list(argv)
    found: dict[str, str] = {}
    seen: list[str] = []
    i = 0
    while i < len(argv):
        flag = argv[i]
        if flag in ("-h", "--help"):
            raise HelpRequested("help")
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
