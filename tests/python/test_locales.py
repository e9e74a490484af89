"""Output bytes do not depend on the locale (spec §12), both implementations.

The corpus pins every case under C.UTF-8. Here a representative set of its
cases (every command; banners, messages that repeat a value or a path with
multibyte text and backslashes, hooks, writes) runs again under locales whose
encoding is not UTF-8, on bash and on Python, and must give the very bytes,
exit code and files its expect/ holds. Each encoding breaks something of its
own: Latin-1 and KOI8-R decode a UTF-8 byte as a letter (Python's arguments
came out double-encoded); Shift_JIS reads byte 0x5C, a backslash, as the yen
sign and as the second half of a character, as Big5, GB18030 and EUC-KR read
other ASCII bytes (bash's patterns and quoting broke, and Python crashed on a
banner's em dash). `make test-full` (DATARIM_TEST_FULL=1) runs every case.

A locale this machine lacks is skipped with the command that makes it;
`.ci/run` makes them all (tests/tools/make-locales.sh).
"""

from __future__ import annotations

import subprocess

import pytest
from conformance import (
    Implementation,
    command_runner,
    find_case,
    full_run,
    implementation,
    known_failures,
    load_cases,
    mismatches,
    run_case,
)

# locale -> (source, charmap) for localedef -i <source> -f <charmap> <locale>
LOCALES = {
    "en_US.ISO-8859-1": ("en_US", "ISO-8859-1"),
    "ru_RU.KOI8-R": ("ru_RU", "KOI8-R"),
    "ja_JP.EUC-JP": ("ja_JP", "EUC-JP"),
    "ja_JP.SJIS": ("ja_JP", "SHIFT_JIS"),
    "ko_KR.EUC-KR": ("ko_KR", "EUC-KR"),
    "zh_CN.GB18030": ("zh_CN", "GB18030"),
    "zh_TW.BIG5": ("zh_TW", "BIG5"),
}

# Every command once or more; what broke first in each encoding.
CASES = [
    "archive/moves-the-final-snapshot",
    "check/usage-bad-task-id-with-format-characters-shown-as-question-marks",
    "doctor/format-characters-in-names-and-log-shown-as-question-marks",
    "emit/json-escapes-hostile-option-text",
    "install-hooks/second-run-changes-nothing",
    "install-hooks/template-with-quotes-and-backslash-is-escaped",
    "install-hooks/path-with-non-ascii-and-backslash-is-shown-as-given",
    "list/table-of-valid-and-invalid",
    "prompt-hook/records-a-stage-command",
    "replay/drift-branch-names-are-shown-verbatim",
    "resume/missing-snapshot-gives-legacy-in-order",
    "session-check/claim-whose-tag-is-no-whole-word",
    "session-replay/all-banners-come-before-the-prompt",
    "session-reverify/file-missing-path-with-non-ascii-and-backslash-is-shown-as-given",
    "session-start-hook/escaped-cwd-is-decoded",
    "session-write/appends-second-block-after-a-blank-line",
    "show/body-controls-are-shown-as-question-marks",
    "stop-hook/writes-the-snapshot-of-a-recorded-stage-turn",
    "write/writes-contract-example",
]


def _installed() -> set[str]:
    """`locale -a`, names as glibc lists them (codeset lower case, no dashes)."""
    try:
        listed = subprocess.run(["locale", "-a"], capture_output=True, check=False).stdout
    except OSError:
        return set()
    return {line.strip().lower() for line in listed.decode("ascii", "replace").splitlines()}


def _normalized(name: str) -> str:
    language, _, codeset = name.partition(".")
    return f"{language}.{''.join(c for c in codeset if c.isalnum())}".lower()


def _cases() -> list[str]:
    if full_run():
        return [case.id for case in load_cases()]
    return CASES


def test_the_cases_exist() -> None:
    assert [case_id for case_id in CASES if find_case(case_id) is None] == []


@pytest.mark.parametrize("impl", ["bash", "python"])
@pytest.mark.parametrize("locale", LOCALES)
def test_output_does_not_depend_on_the_locale(locale: str, impl: str) -> None:
    if _normalized(locale) not in _installed():
        source, charmap = LOCALES[locale]
        pytest.skip(
            f"locale {locale} is not installed here (localedef -i {source} -f {charmap}"
            f" {locale}, or tests/tools/make-locales.sh, which .ci/run runs)"
        )
    base = implementation(impl)
    # `env` after the runner's pinned environment: the case runs under the locale.
    under = Implementation(
        impl, {name: f"env LC_ALL={locale} {template}" for name, template in base.templates.items()}
    )
    runner = command_runner(under)
    known = known_failures()
    failed: dict[str, list[str]] = {}
    for case_id in _cases():
        case = find_case(case_id)
        assert case is not None, case_id
        if f"{impl} {case_id}" in known:
            continue
        problems = mismatches(case, run_case(case, runner))
        if problems:
            failed[case_id] = problems
    if failed:
        pytest.fail(
            f"under {locale}, {impl} differs from expect/ (C.UTF-8) in {len(failed)} case(s):\n"
            + "\n".join(f"{case_id}:\n  " + "\n  ".join(p) for case_id, p in failed.items())
        )
