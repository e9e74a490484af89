"""Writes docs/api.md, the Python API reference, from the docstrings.

    python tests/tools/api_reference.py          # rewrites docs/api.md
    python tests/tools/api_reference.py --check  # exit 1 when it is stale

tests/python/test_api_reference.py holds the committed page to this output and
runs the page's examples.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import datarim_snapshot

PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"

# Every name of datarim_snapshot.__all__, once, in the order a reader meets them.
SECTIONS: list[tuple[str, list[str]]] = [
    (
        "Stage snapshots",
        [
            "write_stage_snapshot",
            "read_stage_snapshot",
            "validate_stage_snapshot",
            "replay_prompt",
            "check_snapshot_bytes",
            "check_snapshot_file",
            "find_root",
            "discover_root",
            "render_snapshot",
            "emit_stage_snapshot",
            "resume_output",
            "redact",
        ],
    ),
    (
        "Session handoffs",
        [
            "write_session_handoff",
            "validate_session_handoff",
            "replay_session",
            "render_session_block",
            "check_session_bytes",
            "check_session_file",
        ],
    ),
    ("Results", ["StageSnapshot", "Emission", "SessionSaved", "RootChoice"]),
    (
        "Errors",
        [
            "DatarimError",
            "RefusedError",
            "InvalidTaskIdError",
            "UsageError",
            "MissingError",
            "MalformedError",
            "LockBusyError",
            "HelpRequested",
            "VersionRequested",
        ],
    ),
]

INTRO = """\
# Python API

Generated from the docstrings by `tests/tools/api_reference.py`; do not edit
by hand (`tests/python/test_api_reference.py` fails when this page is stale and
runs its examples, with `workspace` a folder holding `datarim/`).

```python
from datarim_snapshot import write_stage_snapshot, read_stage_snapshot, DatarimError
```

"""


def _docstring(item: object) -> str:
    """The docstring with its examples fenced as Python sessions."""
    lines = (inspect.getdoc(item) or "(undocumented)").splitlines()
    out: list[str] = []
    in_example = False
    for line in lines:
        if line.startswith(">>>") and not in_example:
            out.append("```pycon")
            in_example = True
        elif in_example and not line.strip():
            out.append("```")
            in_example = False
        out.append(line)
    if in_example:
        out.append("```")
    return "\n".join(out)


class _Annotation(str):
    """An annotation as written: the package's are strings (PEP 563), which
    inspect would print quoted."""

    def __repr__(self) -> str:
        return str(self)


def _signature(function: object) -> str:
    signature = inspect.signature(function)  # type: ignore[arg-type]
    parameters = [
        parameter.replace(annotation=_Annotation(parameter.annotation))
        if isinstance(parameter.annotation, str)
        else parameter
        for parameter in signature.parameters.values()
    ]
    returned = signature.return_annotation
    if isinstance(returned, str):
        returned = _Annotation(returned)
    return str(signature.replace(parameters=parameters, return_annotation=returned))


def _entry(name: str) -> str:
    item = getattr(datarim_snapshot, name)
    if inspect.isclass(item):
        bases = ", ".join(base.__name__ for base in item.__bases__ if base is not object)
        heading = (
            f"### class `{name}({bases})`"
            if issubclass(item, Exception)
            else (f"### class `{name}`")
        )
        fields = "".join(
            f"- `{field}: {kind}`\n"
            for field, kind in getattr(item, "__annotations__", {}).items()
            if not field.startswith("_") and field != "code"
        )
        if issubclass(item, Exception):
            fields = f"- exit code `{getattr(item, 'code', '?')}`\n"
        return f"{heading}\n\n{_docstring(item)}\n\n{fields}"
    return f"### `{name}{_signature(item)}`\n\n{_docstring(item)}\n"


def page() -> str:
    listed = [name for _, names in SECTIONS for name in names]
    if sorted(listed) != sorted(datarim_snapshot.__all__):
        missing = sorted(set(datarim_snapshot.__all__) ^ set(listed))
        raise SystemExit(f"api_reference.py SECTIONS and __all__ differ: {missing}")
    parts = [INTRO]
    for title, names in SECTIONS:
        parts.append(f"## {title}\n\n")
        parts.extend(_entry(name) + "\n" for name in names)
    return "".join(parts).rstrip("\n") + "\n"


def main(argv: list[str]) -> int:
    text = page()
    if argv[1:] == ["--check"]:
        if PAGE.read_text("utf-8") != text:
            print("docs/api.md is stale: python tests/tools/api_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
