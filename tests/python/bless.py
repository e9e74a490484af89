"""Records what the bash implementation does on a case as the case's expectations.

    .venv/bin/python tests/python/bless.py [--impl NAME|FILE.map] <suite>/<case> [...]
    .venv/bin/python tests/python/bless.py --override NAME <suite>/<case> [...]

The implementation is bash (tests/conformance/impl/bash.map) unless --impl names another;
the overrides a case has (expect/<entry>.<impl>) are kept, but for those the new shared
expectations make redundant. --override NAME runs that implementation through its mapping
and records where it differs on purpose: its exit status, stdout and stderr, as
expect/exit.NAME, expect/stdout.NAME and expect/stderr.NAME, only where they differ from
the shared expectations (it removes its overrides that no longer do, and refuses a case
whose tree or files differ). Read every byte it writes before committing: blessing
records behaviour, it does not judge it. The other implementations must then match the
same bytes.
"""

from __future__ import annotations

import sys

from conformance import (
    command_runner,
    find_case,
    implementation,
    run_case,
    write_expectations,
    write_overrides,
)


def main(argv: list[str]) -> int:
    impl, override = "bash", None
    if argv[:1] in (["--impl"], ["--override"]) and len(argv) > 1:
        if argv[0] == "--override":
            override = argv[1]
        impl, argv = argv[1], argv[2:]
    mapping = implementation(impl)
    runner = command_runner(mapping)
    for case_id in argv:
        case = find_case(case_id)
        if case is None:
            print(f"bless: no such case: {case_id}", file=sys.stderr)
            return 2
        outcome = run_case(case, runner)
        if override is None:
            kept = write_expectations(case, outcome)
            print(f"{case_id}: exit {outcome.exit}" + "".join(f", kept {n}" for n in kept))
            continue
        try:
            written = write_overrides(case, outcome, mapping.name)
        except ValueError as exc:
            print(f"bless: {case_id}: {impl} differs beyond exit, stdout, stderr:\n{exc}")
            return 1
        print(f"{case_id}: {impl}: " + (", ".join(written) or "no override (same as shared)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
