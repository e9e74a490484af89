#!/usr/bin/env bats
# Every case of tests/conformance against the bash entry points.

load conformance

conformance_test() {
  local suite=$1 name=$2 status=0
  conformance_case "$suite" "$name" || status=$?
  if conformance_known_failure "$suite/$name"; then
    [ "$status" -ne 0 ] || {
      echo "$suite/$name is listed as a known failure of bash but passes: unlist it"
      return 1
    }
    skip "listed in known-failures.txt"
  fi
  return "$status"
}

for suite_dir in "$BATS_TEST_DIRNAME"/../conformance/suites/*/; do
  suite=${suite_dir%/}
  suite=${suite##*/}
  for case_dir in "$suite_dir"*/; do
    [ -d "$case_dir" ] || continue
    case_name=${case_dir%/}
    case_name=${case_name##*/}
    bats_test_function --description "bash $suite/$case_name" -- conformance_test "$suite" "$case_name"
  done
done
