# Fresh machine: `make demo` and `make test` need nothing but python3, bash and make.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PYTEST := $(PY) -m pytest -q -p no:cacheprovider
VENV_PATH := PATH="$(CURDIR)/$(VENV)/bin:$$PATH"

.PHONY: all test test-full suites lint bats bats-busybox pytest pytest-corpus pytest-rest \
	demo bench bench-load fuzz stress venv clean install restore e2e test-netfs docs

all: test

# pip 26.2 or later writes console scripts that do not import re (~10 ms a call);
# compiled bytecode spares every command its compile where PYTHONDONTWRITEBYTECODE
# is set (docs/performance.md).
# Two steps: make demo needs the package alone (a few MB); make test adds the
# test tools (bats, shellcheck, mypy, ruff, hypothesis, ...: some 150 MB).
RUN_STAMP := $(VENV)/.run-stamp
$(RUN_STAMP): python/pyproject.toml Makefile
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check --upgrade 'pip>=26.2'
	$(VENV)/bin/pip install -q --disable-pip-version-check -e ./python
	$(PY) -m compileall -q python/src
	touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP)
	$(VENV)/bin/pip install -q --disable-pip-version-check -e './python[test]'
	touch $(STAMP)

venv: $(STAMP)

## make test: the lint (shellcheck, mypy, ruff, portability), the bats suite, the
## bats suite with BusyBox tools and the pytest suite (in two parts), all side by
## side: the machine's cores are shared by whichever are still running; each one's
## output is printed whole when it ends (docs/testing.md has what each takes).
## Then the run must have left no file in the repository.
test: $(STAMP)
	@echo "lint, bats, bats-busybox and pytest running side by side; output follows as each ends"
	@tests/tools/leaves-no-files.sh $(MAKE) --no-print-directory -j5 --output-sync=target suites

suites: lint bats bats-busybox pytest

## make test-full: make test, with the sampled runs taking every case (the
## failsafe run over the whole corpus, the runner checks over every case).
test-full: export DATARIM_TEST_FULL := 1
test-full: test

## make test-netfs: the lock and publish protocol across two hosts sharing a real
## network filesystem (an SFTP export mounted with sshfs, in namespaces made for
## it; root; about two minutes). Prints SKIPPED where the machine has no
## /dev/fuse or network namespaces (docs/testing.md).
test-netfs: $(STAMP)
	$(PY) tests/netfs/netfs.py

lint: $(STAMP)
	$(VENV_PATH) tests/tools/lint.sh

## make docs: the pages written from the code (the API reference from the
## docstrings, the tables of the commands from the command map); the tests
## fail while either is stale.
docs: $(STAMP)
	$(PY) tests/tools/api_reference.py
	$(PY) tests/tools/command_docs.py

bats: $(STAMP)
	$(VENV)/bin/bats tests/bats

bats-busybox: $(STAMP)
	$(VENV_PATH) tests/tools/test-busybox.sh

pytest: pytest-corpus pytest-rest

# The conformance corpus on the Python port, and everything else: two jobs of
# about the same length, so that make -j can run them side by side.
pytest-corpus: $(STAMP)
	$(PYTEST) tests/python/test_conformance.py

pytest-rest: $(STAMP)
	$(PYTEST) tests/python --ignore=tests/python/test_conformance.py

## make e2e: the hooks in the real Claude Code and Codex (docs/e2e.md): the CLIs
## pinned in tests/e2e/package-lock.json, installed by npm ci into .e2e/, run
## against a fake model API on 127.0.0.1. Needs node and npm; not part of make test.
E2E := .e2e
E2E_STAMP := $(E2E)/.installed-stamp
$(E2E_STAMP): tests/e2e/package.json tests/e2e/package-lock.json
	rm -rf $(E2E)
	mkdir -p $(E2E)
	cp tests/e2e/package.json tests/e2e/package-lock.json $(E2E)/
	cd $(E2E) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

e2e: $(STAMP) $(E2E_STAMP)
	$(PYTEST) tests/e2e

## make demo: snapshots for a sample task in a throw-away workspace, then a
## write -> /clear -> resume round trip through the SessionStart hook.
demo: $(RUN_STAMP)
	$(VENV_PATH) dev-tools/demo.sh
	$(VENV_PATH) dev-tools/demo-resume.sh

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

## make install: this project's suite into ${DATARIM_RUNTIME:-$$HOME/.claude}
## (dev-tools/, scripts/lib/), where the reference's /dr-* commands call it,
## keeping what it replaces; make restore puts that back (docs/coming-from-the-reference.md).
install:
	dev-tools/install.sh

restore:
	dev-tools/install.sh --restore

## make stress: the crash, archive-race and Ctrl-C tests at many times make test's rounds.
stress: $(STAMP)
	DATARIM_CRASH_ROUNDS=320 DATARIM_ARCHIVE_ROUNDS=60 DATARIM_INTERRUPT_ROUNDS=200 \
	  $(PYTEST) tests/python/test_crash_consistency.py tests/python/test_archive_concurrency.py \
	  tests/python/test_interrupt.py

clean:
	rm -rf $(VENV) .bench .busybox $(E2E)
