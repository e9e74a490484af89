# Fresh machine: `make demo` and `make test` need nothing but python3, bash and make.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PYTEST := $(PY) -m pytest -q -p no:cacheprovider

.PHONY: all test suites lint bats bats-busybox pytest demo bench bench-load fuzz venv clean

all: test

# pip 26.2 or later writes console scripts that do not import re (~10 ms a call);
# compiled bytecode spares every command its compile where PYTHONDONTWRITEBYTECODE
# is set (README "Speed").
$(STAMP): python/pyproject.toml Makefile
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check --upgrade 'pip>=26.2'
	$(VENV)/bin/pip install -q --disable-pip-version-check -e './python[test]'
	$(PY) -m compileall -q python/src
	touch $(STAMP)

venv: $(STAMP)

## make test: lint (shellcheck, mypy, ruff, portability), then the bats suite,
## the bats suite with BusyBox tools and the pytest suite side by side (one
## job a core; each one's output is printed whole when it ends).
test: lint
	@echo "bats, bats-busybox and pytest running side by side; output follows as each ends"
	@$(MAKE) --no-print-directory -j2 --output-sync=target suites

suites: bats bats-busybox pytest

lint: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" tests/tools/lint.sh

bats: $(STAMP)
	$(VENV)/bin/bats tests/bats

bats-busybox: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" tests/tools/test-busybox.sh

pytest: $(STAMP)
	$(PYTEST) tests/python

## make demo: snapshots for a sample task in a throw-away workspace, then a
## write -> /clear -> resume round trip through the SessionStart hook.
demo: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" dev-tools/demo.sh
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" dev-tools/demo-resume.sh

## make bench: prints medians and ratios; no pass/fail.
bench: $(STAMP)
	$(PY) tests/bench/bench.py

## make bench also prints the load figures (32 writers at once).
bench: bench-load
bench-load: $(STAMP)
	$(PY) tests/bench/bench-load.py

## make fuzz: the long property-based runs (make test runs a bounded number).
fuzz: $(STAMP)
	DATARIM_FUZZ_EXAMPLES=2000 $(PYTEST) tests/python -k "property or fuzz"

clean:
	rm -rf $(VENV) .bench .busybox
