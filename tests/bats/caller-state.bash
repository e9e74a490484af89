# shellcheck shell=bash
# What a sourced library must leave as it was, for library.bats and hooks.bats,
# and those files' setup (caller_setup).
#
#   caller_state <own-functions> <own-variables>
# prints a caller script's `state` function: its options, shopt settings, traps,
# variables (but the shell's own and <own-variables>, a `|`-separated list), the
# functions it defines (but those matching <own-functions>, an ERE of names the
# library may add), locale, directory and umask, one sorted list each.
caller_state() {
  cat <<EOF2
state() {
  set -o | LC_ALL=C sort
  shopt -p | LC_ALL=C sort
  trap -p
  compgen -v | grep -v -E '^(BASH_.*|FUNCNAME|LINENO|RANDOM|SECONDS|EPOCH.*|SRANDOM|_|PIPESTATUS|BASHPID|COLUMNS|LINES|before|after|$2)\$' | LC_ALL=C sort
  declare -F | LC_ALL=C sort | grep -v -E ' ($1)' || :
  printf 'LC_ALL=%s PWD=%s OLDPWD=%s umask=%s\n' "\${LC_ALL-unset}" "\$PWD" "\${OLDPWD-unset}" "\$(umask)"
}
EOF2
}

# caller_setup: each test's REPO (this checkout) and ROOT (an empty workspace).
caller_setup() {
  # shellcheck disable=SC2034 # the tests' own
  REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)
  ROOT=$BATS_TEST_TMPDIR/ws
  mkdir -p "$ROOT"
}
