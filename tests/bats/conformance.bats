#!/usr/bin/env bats
# Every case of tests/conformance on one implementation: bash by default, any other
# through CONFORMANCE_IMPL (a name in tests/conformance/impl/ or a .map path).

load conformance

# shellcheck disable=SC2154 # run sets status and output
conformance_test() {
  local id=$1
  # run: without bats's DEBUG trap, which would cost the runner's every command a call.
  run conformance_case "${id%%/*}" "${id#*/}"
  [ -z "$output" ] || printf '%s\n' "$output"
  if conformance_known_failure "$id"; then
    [ "$status" -ne 0 ] || {
      echo "$id is listed as a known failure of $CONFORMANCE_IMPL_NAME but passes: unlist it"
      return 1
    }
    skip "listed in known-failures.txt"
  fi
  return "$status"
}

# bats sources this file again in the process of every test: there, register only the
# test that process runs (its name is "conformance_test <suite>/<case>"), not all 700.
if [[ ${BATS_TEST_NAME-} == "conformance_test "* ]]; then
  bats_test_function --description "$CONFORMANCE_IMPL_NAME ${BATS_TEST_NAME#* }" -- \
    conformance_test "${BATS_TEST_NAME#* }"
else
  # Registering 700 tests under bats's DEBUG trap costs seconds: set it aside meanwhile.
  conformance_debug_trap=$(trap -p DEBUG)
  trap - DEBUG
  for case_dir in "$BATS_TEST_DIRNAME"/../conformance/suites/*/*/; do
    case_id=${case_dir%/}
    case_id=${case_id#"${case_id%/*/*}"/}
    bats_test_function --description "$CONFORMANCE_IMPL_NAME $case_id" -- conformance_test "$case_id"
  done
  eval "$conformance_debug_trap"
fi
