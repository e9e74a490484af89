"""Records what the bash implementation does on a case as the case's expectations.

    .venv/bin/python tests/python/bless.py [--impl NAME|FILE.map] <suite>/<case> [...]

The implementation is bash (tests/conformance/impl/bash.map) unless --impl names another.
Read every byte it writes before committing: blessing records behaviour, it does not
judge it. The other implementations must then match the same bytes.
"""

from __future__ import annotations

import sys

from conformance import command_runner, find_case, implementation, run_case, write_expectations


def main(argv: list[str]) -> int:
    impl = "bash"
    if argv[:1] == ["--impl"] and len(argv) > 1:
        impl, argv = argv[1], argv[2:]
    runner = command_runner(implementation(impl))
    for case_id in argv:
        case = find_case(case_id)
        if case is None:
            print(f"bless: no such case: {case_id}", file=sys.stderr)
            return 2
        outcome = run_case(case, runner)
        write_expectations(case, outcome)
        print(f"{case_id}: exit {outcome.exit}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
