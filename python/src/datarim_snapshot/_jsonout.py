"""Bash twin: json_string in scripts/lib/datarim-rules.awk.

The one JSON shape both implementations print for --json: compact, UTF-8 unescaped, one line.

Strings are escaped exactly as json_string in scripts/lib/datarim-rules.awk does.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def dumps(value: Any) -> bytes:
    """Compact JSON (`{"a":1,"b":"x"}`), non-ASCII kept raw, plus a final newline."""
    import json  # here: json loads re, which a command without --json never needs

    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
