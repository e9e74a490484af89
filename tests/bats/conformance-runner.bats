#!/usr/bin/env bats
# The bats runner itself (tests/bats/conformance.bash) against the runner contract of
# tests/conformance/README.md; tests/python/test_conformance.py holds the Python runner
# to the same.

load conformance

# first_cases: the first case of every suite, as suite/case; with "strict", the first
# whose expectation doing nothing cannot meet (not: exit 0, no output, no file written).
first_cases() {
  local suite_dir case_dir exit
  for suite_dir in "$CONFORMANCE_CORPUS"/suites/*/; do
    for case_dir in "$suite_dir"*/; do
      conformance_one_line "$case_dir/expect/exit" exit
      if [ "${1-}" = strict ] && [ "$exit" = 0 ] && [ ! -e "$case_dir/expect/stdout" ] &&
        [ ! -e "$case_dir/expect/stderr" ] && [ ! -e "$case_dir/expect/files" ]; then
        continue
      fi
      case_dir=${case_dir%/}
      printf '%s\n' "${case_dir#"$CONFORMANCE_CORPUS"/suites/}"
      break
    done
  done
}

@test "the escape samples decode to escapes/decoded" {
  local line value
  conformance_lines "$CONFORMANCE_CORPUS/escapes/samples"
  for line in "${FILE_LINES[@]}"; do
    conformance_unescape "$line" value
    printf '%s\0' "$value"
  done >"$BATS_TEST_TMPDIR/decoded"
  cmp "$BATS_TEST_TMPDIR/decoded" "$CONFORMANCE_CORPUS/escapes/decoded"
  [ "${#FILE_LINES[@]}" -gt 20 ]
}

@test "failsafe: an implementation that does nothing fails a case of every suite" {
  local id count=0
  printf '*=true\n' >"$BATS_TEST_TMPDIR/noop.map"
  # shellcheck disable=SC2034 # conformance_case reads it
  CONFORMANCE_MAP=$BATS_TEST_TMPDIR/noop.map
  while IFS= read -r id; do
    rm -rf "$BATS_TEST_TMPDIR/sandbox" "$BATS_TEST_TMPDIR/before"
    if conformance_case "${id%%/*}" "${id#*/}" >"$BATS_TEST_TMPDIR/report"; then
      echo "$id passes on an implementation that does nothing"
      return 1
    fi
    grep -q -E 'want|differs|not named|missing' "$BATS_TEST_TMPDIR/report"
    count=$((count + 1))
  done < <(first_cases strict)
  [ "$count" -ge 10 ]
}

@test "the python mapping runs the Python port through this runner" {
  local id count=0
  # shellcheck disable=SC2034 # conformance_case reads them
  CONFORMANCE_MAP=$CONFORMANCE_CORPUS/impl/python.map CONFORMANCE_IMPL_NAME=python
  CONFORMANCE_PYTHON=$CONFORMANCE_REPO/.venv/bin/python
  [ -x "$CONFORMANCE_PYTHON" ] || CONFORMANCE_PYTHON=python3
  while IFS= read -r id; do
    rm -rf "$BATS_TEST_TMPDIR/sandbox" "$BATS_TEST_TMPDIR/before"
    conformance_case "${id%%/*}" "${id#*/}"
    count=$((count + 1))
  done < <(first_cases)
  [ "$count" -ge 10 ]
}

@test "an expectation kept once under fixtures/ (a link in expect/files) is compared" {
  local rel=home/.config/opencode/plugin/datarim-snapshots.js
  printf '*=true\n' >"$BATS_TEST_TMPDIR/noop.map"
  # shellcheck disable=SC2034 # conformance_case reads it
  CONFORMANCE_MAP=$BATS_TEST_TMPDIR/noop.map
  [ -L "$CONFORMANCE_CORPUS/suites/install-hooks/default-file-opencode/expect/files/$rel" ]
  if conformance_case install-hooks default-file-opencode >"$BATS_TEST_TMPDIR/report"; then
    return 1
  fi
  grep -qxF "$rel: bytes differ from expect/files/$rel" "$BATS_TEST_TMPDIR/report"
}
