# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_errors.py (and cli.py)
# What every datarim writer and checker shares. This file is the one each
# library sources; it loads the concern files beside it:
#   datarim-rules.sh    task-ID and session-ID rules
#   datarim-inputs.sh   bounded reading of input files and "-"
#   datarim-roots.sh    root resolution (discovery: datarim-reading.sh, below)
#   datarim-lock.sh     the mkdir lock protocol
#   datarim-publish.sh  the atomic publish step
#   datarim-flags.sh    flag parsing and each command's opening
# and keeps the choke point of every entry point (dr_call), its messages
# (dr_err, dr_usage, dr_version) and the clock and environment helpers.
# Three more files load on first use (dr_autoload), from stubs in those above,
# so that a write reads none of them:
#   datarim-lock-held.sh  what a lock found held needs
#   datarim-reading.sh    what only readers, validators and hooks need
#   datarim-messages.sh   the words of refusals and notices
#
# Sourcing this file defines dr_* functions and nothing else: no variable,
# shell option or trap of the caller changes. Functions return codes; none
# of them exits the caller's shell.

# External tools run with LC_ALL=C: they print nothing we read, and loading
# a locale is a measurable part of each start on a writer's hot path.
#
# Every library sources this one; the second time costs nothing.
declare -F dr_lib_dir_into >/dev/null 2>&1 && return 0

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_datarim_common=1 && shopt -u expand_aliases; fi

# dr_lib_dir_into <var>: sets <var> to this library's absolute directory.
_dr_define_lib_dir() {
  local src dir quoted
  src=${BASH_SOURCE[0]} # not "local src=...": under a caller's set -k that sets nothing
  case $src in */*) dir=${src%/*} ;; *) dir=. ;; esac
  case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
  printf -v quoted '%q' "$dir"
  eval "dr_lib_dir_into() { printf -v \"\$1\" '%s' $quoted; }"
}
_dr_define_lib_dir
unset -f _dr_define_lib_dir

# dr_source <file>...: sources each file named from this library's directory,
# stopping at the first that fails. How every library loads its siblings: its
# opening sources datarim-common.sh from the directory of ${BASH_SOURCE[0]}
# (one case line, ./ for a bare name; no fork, no variable, no local that a
# caller's set -k would leave unset), then dr_source the rest. The files are
# read in this function, as in any loader: they define functions only.
dr_source() {
  local _dr_source_dir _dr_source_file
  dr_lib_dir_into _dr_source_dir
  for _dr_source_file; do
    # shellcheck source=/dev/null # each library names the files it loads
    . "$_dr_source_dir/$_dr_source_file" || return
  done
}

# dr_autoload <file> <function> [<arg>...]: loads <file> from this library's
# directory and runs <function> with the arguments. A rarely needed part of a
# library lives in such a file, and the library defines a stub for each of its
# functions called from outside it, which calls this: the file defines the
# functions anew over their stubs. The stub is removed first, so a file that
# fails to define its function ends in "command not found", never in a loop.
dr_autoload() {
  unset -f "$2"
  dr_autoload_source "$1" || return
  shift
  "$@"
}

# dr_autoload_source <file>: dr_source under the allexport (set -a) this file
# was read under, as if all were read at once: a caller that exported the
# library (set -a while sourcing it) exports the file's functions too, for the
# bash it starts, and one that turns set -a on later exports none (a bash it
# starts would find them defined and skip reading its own).
_dr_define_autoload_source() {
  local read_with
  read_with=+a # not "local x=...": under a caller's set -k that sets nothing
  case $- in *a*) read_with=-a ;; esac
  eval "dr_autoload_source() {
    local was status
    was=+a status=0
    case \$- in *a*) was=-a ;; esac
    set $read_with
    dr_source \"\$1\" || status=\$?
    set \"\$was\"
    return \"\$status\"
  }"
}
_dr_define_autoload_source
unset -f _dr_define_autoload_source

dr_source datarim-rules.sh datarim-inputs.sh datarim-roots.sh datarim-lock.sh \
  datarim-publish.sh datarim-flags.sh

# dr_call <function> [<arg>...]: runs a library entry point with the shell
# state the libraries are written for, whatever the caller's (sourced, or an
# entry point started with SHELLOPTS/BASHOPTS in its environment): word
# splitting on blanks (IFS), globbing on (noglob off), globs that may match
# nothing and match case (failglob, nullglob, nocaseglob, dotglob off), case
# patterns and [[ ]] that match case (nocasematch off), no caller's ERR or
# RETURN trap inside our functions (errtrace, functrace off), assignments
# that are arguments (keyword, set -k, off: under it "local x=1" sets nothing
# and "awk -v x=1" loses its x=1 to the environment). Whatever it turned off
# is turned on again before it returns the function's code; -e, -u and
# pipefail need nothing: the libraries run under both states. The call and
# what it starts run in the C locale: bytes, whatever the caller's (under
# Shift_JIS or Big5 a backslash or a quote would be half of a character).
dr_call() {
  local dr_call_keyword
  dr_call_keyword=
  case $- in *k*) set +k && dr_call_keyword='set -k;' ;; esac
  local -x LC_ALL=C # after set +k: under -k it would set nothing
  local IFS=$' \t\n' dr_call_status=0 dr_call_undo=$dr_call_keyword dr_call_option
  case $- in *f*) set +f && dr_call_undo="$dr_call_undo set -f;" ;; esac
  case $- in *E*) set +E && dr_call_undo="$dr_call_undo set -E;" ;; esac
  case $- in *T*) set +T && dr_call_undo="$dr_call_undo set -T;" ;; esac
  for dr_call_option in failglob nullglob nocaseglob dotglob nocasematch; do
    if shopt -q "$dr_call_option"; then
      shopt -u "$dr_call_option"
      dr_call_undo="$dr_call_undo shopt -s $dr_call_option;"
    fi
  done
  "$@" || dr_call_status=$?
  eval "$dr_call_undo"
  return "$dr_call_status"
}

# The words of messages are in datarim-messages.sh, which a run that prints
# none never reads: each of these loads it on its first call (dr_autoload).
dr_shown_into() { dr_autoload datarim-messages.sh dr_shown_into "$@"; }
dr_shown_text_into() { dr_autoload datarim-messages.sh dr_shown_text_into "$@"; }
dr_usage() { dr_autoload datarim-messages.sh dr_usage "$@"; }
dr_version() { dr_autoload datarim-messages.sh dr_version "$@"; }

# dr_err <program> <message>: one line on stderr, control characters shown as '?'.
dr_err() {
  local msg
  dr_shown_into "$2" msg
  printf '%s: %s\n' "$1" "$msg" >&2
}

# dr_seconds_env <var-name> <default> <out-var>: a whole number of seconds from
# the environment (unset or empty: the default); returns 1 when it is not one.
dr_seconds_env() {
  local LC_ALL=C value
  eval "value=\${$1:-}"
  [ -n "$value" ] || value=$2
  case $value in *[!0123456789]*) return 1 ;; esac
  [ ${#value} -le 9 ] || return 1
  printf -v "$3" '%d' "$((10#$value))"
}

# dr_now_utc <out-var>: the current time as YYYY-MM-DDTHH:MM:SSZ.
dr_now_utc() {
  if [ "${BASH_VERSINFO[0]}" -gt 4 ] || { [ "${BASH_VERSINFO[0]}" -eq 4 ] && [ "${BASH_VERSINFO[1]}" -ge 2 ]; }; then
    local TZ=UTC
    printf -v "$1" '%(%Y-%m-%dT%H:%M:%SZ)T' -1
  else
    printf -v "$1" '%s' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  fi
}

# dr_end_on_interrupt: for an entry point's own shell, never a sourcing
# caller's. Ctrl-C then ends it by SIGINT at once: without a trap bash loses a
# SIGINT that lands between a child's fork and its exec (it waits for the
# child, which exits as if it had handled the signal), and a writer waiting
# for a lock would wait on for its whole timeout.
dr_end_on_interrupt() {
  trap 'trap - INT; kill -s INT "$$"' INT
}

# dr_main <function> [<arg>...]: an entry point's whole run (dev-tools/*.sh):
# Ctrl-C as above, the function's code as the exit status.
dr_main() {
  local status # apart from its value: under a caller's set -k, local takes none
  status=0
  dr_end_on_interrupt
  "$@" || status=$?
  exit "$status"
}

[ -z "${_dr_aliases_datarim_common-}" ] || shopt -s expand_aliases
unset _dr_aliases_datarim_common
