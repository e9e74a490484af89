# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_errors.py (and cli.py)
# What every datarim writer and checker shares. This file is the one each
# library sources; it loads the concern files beside it:
#   datarim-rules.sh    task-ID and session-ID rules
#   datarim-inputs.sh   bounded reading of input files and "-"
#   datarim-roots.sh    root resolution and discovery
#   datarim-lock.sh     the mkdir lock protocol
#   datarim-publish.sh  the atomic publish step
#   datarim-flags.sh    flag parsing and each command's opening
# and keeps the choke point of every entry point (dr_call), its messages
# (dr_err, dr_usage, dr_version) and the clock and environment helpers.
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

# dr_err <program> <message>: one line on stderr, control characters shown as '?'.
dr_err() {
  local msg
  dr_shown_into "$2" msg
  printf '%s: %s\n' "$1" "$msg" >&2
}

# dr_shown_into <text> <out-var>: <text> fit for a one-line message: every
# control character of spec §2 (C0, DEL, C1, U+2028/2029, U+FFFE/FFFF and the
# format characters, which hide or reorder what a terminal shows) as '?'.
# Byte patterns of their UTF-8 forms, the set of is_control in datarim-rules.awk.
dr_shown_into() {
  local LC_ALL=C
  dr_shown_wide_into "${1//[$'\001'-$'\037'$'\177']/?}" "$2"
}

# dr_shown_text_into <text> <out-var>: dr_shown_into for text of many lines (a
# snapshot's body, as show prints it): line ends (LF, and CR LF) and tabs
# stay; a CR anywhere else (it would write over the line) and every other
# control character, ESC included, show as '?'.
dr_shown_text_into() {
  local LC_ALL=C s=$1
  s=${s//[$'\001'-$'\010'$'\013'$'\014'$'\016'-$'\037'$'\177']/?}
  case $s in *$'\r'*)
    # \001 no longer occurs: it marks each CR LF while the lone CRs go.
    s=${s//$'\r\n'/$'\001'}
    s=${s//$'\r'/?}
    s=${s//$'\001'/$'\r\n'}
    ;;
  esac
  dr_shown_wide_into "$s" "$2"
}

# dr_shown_wide_into <text> <out-var>: <text> with the control characters of
# more than one byte (C1 and the rest of the set below) as '?'.
dr_shown_wide_into() {
  local LC_ALL=C s=$1
  case $s in
    *[$'\200'-$'\377']*)
      s=${s//$'\302'[$'\200'-$'\237'$'\255']/?}             # C1, U+00AD
      s=${s//$'\330'[$'\200'-$'\205'$'\234']/?}             # U+0600-0605, U+061C
      s=${s//$'\333\235'/?}                                 # U+06DD
      s=${s//$'\334\217'/?}                                 # U+070F
      s=${s//$'\340\242'[$'\220'$'\221']/?}                 # U+0890-0891
      s=${s//$'\340\243\242'/?}                             # U+08E2
      s=${s//$'\341\240\216'/?}                             # U+180E
      s=${s//$'\342\200'[$'\213'-$'\217'$'\250'-$'\256']/?} # U+200B-200F, U+2028-202E
      s=${s//$'\342\201'[$'\240'-$'\244'$'\246'-$'\257']/?} # U+2060-2064, U+2066-206F
      s=${s//$'\357\273\277'/?}                             # U+FEFF
      s=${s//$'\357\277'[$'\271'-$'\273'$'\276'$'\277']/?}  # U+FFF9-FFFB, U+FFFE-FFFF
      s=${s//$'\360\221\202\275'/?}                         # U+110BD
      s=${s//$'\360\221\203\215'/?}                         # U+110CD
      s=${s//$'\360\223\220'[$'\260'-$'\277']/?}            # U+13430-1343F
      s=${s//$'\360\233\262'[$'\240'-$'\243']/?}            # U+1BCA0-1BCA3
      s=${s//$'\360\235\205'[$'\263'-$'\272']/?}            # U+1D173-1D17A
      s=${s//$'\363\240\200'[$'\201'$'\240'-$'\277']/?}     # U+E0001, U+E0020-E003F
      s=${s//$'\363\240\201'[$'\200'-$'\277']/?}            # U+E0040-E007F
      ;;
  esac
  printf -v "$2" '%s' "$s"
}

# dr_usage <name>: prints the usage text shared with the Python port.
dr_usage() {
  local dir
  dr_lib_dir_into dir
  cat -- "$dir/text/usage-$1.txt"
}

# dr_version: prints `datarim-snapshot <version>`, one product version for
# every command, kept once in text/version.txt (shared with the Python port).
dr_version() {
  local dir
  dr_lib_dir_into dir
  printf 'datarim-snapshot ' && cat -- "$dir/text/version.txt"
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
