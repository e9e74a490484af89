"""Bash twin: scripts/lib/hook-payload.awk (+ hook-fields.awk).

The hooks' strict JSON payload reader.

A payload is one strict JSON object (RFC 8259: UTF-8, no BOM, no NaN or Infinity,
nesting at most 64 deep) as json.loads reads it. Kept apart from the hooks
themselves so that a hook pays for json and nothing else.
"""

from __future__ import annotations

from ._rules import utf8_scan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 64


def _reject_constant(name: str) -> Any:
    raise ValueError(f"not JSON: {name}")


def _depth(value: Any) -> int:
    """How deeply containers nest in value (an object holding scalars: 1)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def usable(value: str) -> bool:
    """A string fit for use: no U+0000, lone surrogate or control character."""
    try:
        raw = value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return utf8_scan(raw, ctl=True) == ""


class _Context:
    """What CPython's JSON scanner reads from a JSONDecoder: json.loads' defaults,
    but for integers (parse_int=float: no digit-count limit, which the awk reader
    does not have) and NaN/Infinity, which are refused."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = float
    parse_constant = staticmethod(_reject_constant)


def loads(text: str) -> Any:
    """json.loads(text, parse_constant=<refuse>, parse_int=float): the same values,
    the same ValueError (or RecursionError) for what it refuses. A text the scanner
    takes whole is read by CPython's _json scanner itself, the one json.loads runs,
    which spares a hook the import of json and re (about 5 ms a call, more than
    the parse); anything else goes to json.loads for its verdict."""
    try:
        import _json

        scan = _json.make_scanner(_Context())  # type: ignore[arg-type]
        value, end = scan(text, _skip_blanks(text, 0))
        if _skip_blanks(text, end) == len(text):
            return value
    except Exception:  # the verdict is json.loads', below
        pass
    import json

    return json.loads(text, parse_constant=_reject_constant, parse_int=float)


def _skip_blanks(text: str, at: int) -> int:
    """The first index from at that is no JSON whitespace (space, tab, LF, CR)."""
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def load_payload(data: bytes) -> dict[str, Any] | None:
    """A hook payload as json.loads reads it, or None unless it is one strict JSON
    object (RFC 8259: UTF-8, no BOM, NaN or Infinity, nesting at most 64 deep). The
    same verdicts as the parser of scripts/lib/hook-payload.awk."""
    try:
        payload = loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(payload, dict) or _depth(payload) > MAX_DEPTH:
        return None
    return payload


def usable_string(value: object) -> str | None:
    """value when it is a string fit for use (see usable), else None."""
    return value if isinstance(value, str) and usable(value) else None


def repeats_a_name(data: bytes) -> bool:
    """data, one strict JSON object (load_payload's), has an object naming one
    member twice: json.loads keeps the last, a settings file must not."""
    import json

    repeated: list[bool] = []

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        if len({key for key, _ in items}) != len(items):
            repeated.append(True)
        return dict(items)

    json.loads(data.decode("utf-8"), object_pairs_hook=pairs, parse_int=float)
    return bool(repeated)
