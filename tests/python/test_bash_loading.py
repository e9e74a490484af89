"""The bash libraries' parts that load on first use (dr_autoload): every stub
names a file that defines its function, and every function of such a file that
code outside it calls has a stub, so that no call can reach a function that was
never loaded."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LIB = REPO / "scripts" / "lib"
STUB = re.compile(r'^(\w+)\(\) \{ dr_autoload (\S+) (\w+) "\$@"; \}$', re.M)
DEFINITION = re.compile(r"^(\w+)\(\) *\{", re.M)


def _shell_files() -> list[Path]:
    return sorted(
        [
            *LIB.glob("*.sh"),
            *(REPO / "dev-tools").glob("*.sh"),
            *(REPO / "tests" / "probes").glob("*.sh"),
        ]
    )


def _stubs() -> dict[str, tuple[Path, str]]:
    stubs: dict[str, tuple[Path, str]] = {}
    for path in sorted(LIB.glob("*.sh")):
        for name, file, called in STUB.findall(path.read_text()):
            assert name == called, f"{path.name}: the stub {name} runs {called}"
            assert name not in stubs, f"two stubs of {name}"
            stubs[name] = (path, file)
    return stubs


def test_each_stub_names_a_file_beside_it_that_defines_its_function() -> None:
    stubs = _stubs()
    assert stubs, "no stub found: the pattern no longer matches the libraries"
    for name, (path, file) in stubs.items():
        loaded = LIB / file
        assert loaded.is_file(), f"{path.name}: {name} loads {file}, which is not there"
        assert name in DEFINITION.findall(loaded.read_text()), f"{file} does not define {name}"
        # Defined only by its stub in the library that loads the file.
        assert DEFINITION.findall(path.read_text()).count(name) == 1


def test_what_code_outside_a_loaded_on_use_file_calls_has_a_stub() -> None:
    stubs = _stubs()
    for file in sorted({file for _, file in stubs.values()}):
        loaded = LIB / file
        offered = set(DEFINITION.findall(loaded.read_text()))
        for path in _shell_files():
            if path.resolve() == loaded.resolve():
                continue
            text = STUB.sub("", path.read_text())
            called = {name for name in offered if re.search(rf"(?<![\w-]){name}(?![\w-])", text)}
            assert called <= stubs.keys(), (
                f"{path.name} calls {sorted(called - stubs.keys())} of {file} without a stub"
            )
