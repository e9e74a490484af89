# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_install_hooks.py
# install-hooks (spec §9): this project's SessionStart, UserPromptSubmit and
# Stop hooks into a Claude Code, Gemini CLI or Qwen Code settings.json or a
# Codex hooks.json (Gemini: SessionStart, BeforeAgent and AfterAgent).
#
#   install_hooks_main --runtime claude|codex|gemini|qwen|copilot|opencode [--file <path>] [--hook-command <template>]
#
# --file defaults to ~/.claude/settings.json (claude), ~/.gemini/settings.json
# (gemini), ~/.qwen/settings.json (qwen), ${CODEX_HOME:-~/.codex}/hooks.json
# (codex), ${COPILOT_HOME:-~/.copilot}/settings.json (copilot: GitHub Copilot
# CLI) or ${XDG_CONFIG_HOME:-~/.config}/opencode/plugin/datarim-snapshots.js
# (opencode). The hook commands are the
# template with {hook} replaced by session-start-hook, prompt-hook and
# stop-hook; by default this suite's own dev-tools/{hook}.sh (the Python
# port's default is its datarim-snapshot {hook}). The file is merged by
# hooks-splice.awk: what is missing is added, no other byte changes, a second
# run changes nothing; a file it cannot read as it must (not one strict JSON
# object, say) is refused and left as it is. The new file replaces the old
# atomically (a temp file beside it renamed over it) with the old one's mode
# (600 for a new file). Exit: 0 installed or already there; 1 refused or
# I/O failure; 2 usage. Twin of python/src/datarim_snapshot/_install_hooks.py.
# Sourcing defines install_hooks* functions (plus those of datarim-common.sh)
# and nothing else.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_install_hooks=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac

# install_hooks_quote <word> <out-var>: <word> as one shell word, quoted as
# Python's shlex.quote quotes it.
install_hooks_quote() {
  local LC_ALL=C q="'\"'\"'"
  case $1 in
    '' | *[!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./_-]*)
      printf -v "$2" "'%s'" "${1//\'/$q}"
      ;;
    *) printf -v "$2" '%s' "$1" ;;
  esac
}

# install_hooks_default_template <out-var>: this suite's hooks, <dev-tools>/{hook}.sh.
# The dev-tools beside the scripts/ this library was loaded through: in a
# checkout, scripts/lib is a link into plugins/ and its ../.. is taken as
# written (cd -L), so the hooks are the checkout's dev-tools/{hook}.sh; the
# path then made physical.
install_hooks_default_template() {
  local dir tools
  dr_lib_dir_into dir
  tools=$(cd -L -- "$dir/../../dev-tools" 2>/dev/null && pwd -P) || tools=$dir/../../dev-tools
  install_hooks_quote "$tools" tools
  printf -v "$1" '%s' "$tools/{hook}.sh"
}

# install_hooks_listing <events> <out-var>: "the A hook", "the A and B hooks", "the A, B and C hooks".
install_hooks_listing() {
  local IFS=' ' out='' k=0 n name into=$2
  # shellcheck disable=SC2086 # the names are split on purpose
  set -- $1
  n=$#
  for name in "$@"; do
    k=$((k + 1))
    if [ "$k" -eq 1 ]; then
      out=$name
    elif [ "$k" -eq "$n" ]; then
      out="$out and $name"
    else
      out="$out, $name"
    fi
  done
  if [ "$n" -eq 1 ]; then out="the $out hook"; else out="the $out hooks"; fi
  printf -v "$into" '%s' "$out"
}

# install_hooks_main: see the top. The read, merge and replace run under a
# lock beside the file (.<name>.lock, the writers' protocol, waited for
# DR_SNAPSHOT_LOCK_TIMEOUT seconds, 10 by default): two installers at once
# never lose each other's entries. The file is read once before the lock, so
# that a refusal or "already there" takes no lock and creates nothing.
install_hooks_main() { dr_call install_hooks_main_body "$@"; } # with our shell options
install_hooks_main_body() {
  local prog=install-hooks status=0 finished file template dir timeout added content new list
  local opt_runtime='' opt_file='' opt_hook_command=''
  dr_reader_flags "$prog" 2 finished "--runtime= --file= --hook-command=" "--runtime" "$@" || status=$?
  [ -z "$finished" ] || return "$status"
  case $opt_runtime in claude | codex | gemini | qwen | copilot | opencode) ;; *)
    dr_err "$prog" "--runtime must be claude, codex, gemini, qwen, copilot or opencode"
    return 2
    ;;
  esac
  file=$opt_file
  if [ -z "$file" ]; then
    if [ "$opt_runtime" = codex ] && case ${CODEX_HOME:-} in /*) true ;; *) false ;; esac then
      file=$CODEX_HOME/hooks.json
    elif [ "$opt_runtime" = copilot ] && case ${COPILOT_HOME:-} in /*) true ;; *) false ;; esac then
      file=$COPILOT_HOME/settings.json
    elif [ "$opt_runtime" = opencode ] && case ${XDG_CONFIG_HOME:-} in /*) true ;; *) false ;; esac then
      file=$XDG_CONFIG_HOME/opencode/plugin/datarim-snapshots.js
    elif case ${HOME:-} in /*) true ;; *) false ;; esac then
      case $opt_runtime in
        codex) file=$HOME/.codex/hooks.json ;;
        opencode) file=$HOME/.config/opencode/plugin/datarim-snapshots.js ;;
        *) file=$HOME/.$opt_runtime/settings.json ;;
      esac
    elif [ "$opt_runtime" = codex ]; then
      dr_err "$prog" "no --file given, and neither CODEX_HOME nor HOME is an absolute path"
      return 2
    elif [ "$opt_runtime" = copilot ]; then
      dr_err "$prog" "no --file given, and neither COPILOT_HOME nor HOME is an absolute path"
      return 2
    elif [ "$opt_runtime" = opencode ]; then
      dr_err "$prog" "no --file given, and neither XDG_CONFIG_HOME nor HOME is an absolute path"
      return 2
    else
      dr_err "$prog" "no --file given, and HOME is not an absolute path"
      return 2
    fi
  fi
  template=$opt_hook_command
  [ -n "$template" ] || install_hooks_default_template template
  case $template in *'{hook}'*) ;; *)
    dr_err "$prog" "--hook-command must hold {hook} and no control character"
    return 2
    ;;
  esac
  if [ "$opt_runtime" = copilot ] && ! install_hooks_simple_command "$template"; then
    dr_err "$prog" "--hook-command must be one simple command for copilot (DATARIM_HOOK_RUNTIME=copilot goes before it)"
    return 2
  fi
  if ! dr_seconds_env DR_SNAPSHOT_LOCK_TIMEOUT 10 timeout; then
    dr_err "$prog" "DR_SNAPSHOT_LOCK_TIMEOUT must be a whole number of seconds"
    return 2
  fi
  install_hooks_merge "$prog" "$file" "$template" "$opt_runtime" || return $?
  if [ -n "$added" ]; then
    case $file in */*) dir=${file%/*} ;; *) dir=. ;; esac
    if [ ! -d "$dir" ] && ! LC_ALL=C mkdir -p -- "$dir" 2>/dev/null; then
      dr_err "$prog" "cannot create the directory of --file"
      return 1
    fi
    dr_lock_acquire "$prog" "$dir/.${file##*/}.lock" "$timeout" || return 1
    install_hooks_locked "$prog" "$file" "$template" "$opt_runtime" || status=$?
    dr_lock_release "$dir/.${file##*/}.lock"
    [ "$status" -eq 0 ] || return "$status"
  fi
  if [ -z "$added" ]; then
    printf '%s: the hooks are already in %s; nothing changed\n' "$prog" "$file"
    return 0
  fi
  install_hooks_listing "$added" list
  printf '%s: added %s to %s\n' "$prog" "$list" "$file"
}

# install_hooks_locked <program> <file> <template> <runtime>: under the lock, the file
# as it is now merged again (another installer may have changed it since the
# first read) and, when something is missing, replaced. Sets added (empty:
# nothing to add, nothing written) as install_hooks_merge does.
install_hooks_locked() {
  install_hooks_merge "$1" "$2" "$3" "$4" || return $?
  [ -n "$added" ] || return 0
  install_hooks_replace "$2" "$content" "$new" || {
    dr_err "$1" "cannot replace --file; left unchanged"
    return 1
  }
}

# install_hooks_simple_command <template>: 0 when <template> has no ; & | ( )
# or backquote outside quotes: one simple command (redirections allowed), which an assignment
# put before it (Copilot's DATARIM_HOOK_RUNTIME=copilot) reaches; a list, a
# pipeline or a compound command would not get it, or not parse.
install_hooks_simple_command() {
  local LC_ALL=C t=$1 i=0 c quote='' escaped=''
  while [ "$i" -lt "${#t}" ]; do
    c=${t:i:1}
    i=$((i + 1))
    if [ -n "$escaped" ]; then
      escaped=''
    elif [ "$quote" = "'" ]; then
      [ "$c" != "'" ] || quote=''
    elif [ "$quote" = '"' ]; then
      case $c in \\) escaped=1 ;; '"') quote='' ;; esac
    else
      case $c in
        \\) escaped=1 ;;
        "'" | '"') quote=$c ;;
        ';' | '&' | '|' | '(' | ')' | '`') return 1 ;;
      esac
    fi
  done
}

# install_hooks_merge <program> <file> <template> <runtime>: reads <file>
# (none: a new one) and merges the hooks of <template> into it, with
# <runtime>'s events and shape. GitHub Copilot CLI's SessionStart and Stop
# commands start with DATARIM_HOOK_RUNTIME=copilot: the one answers in
# Copilot's form, the other reads the answer from Copilot's OpenTelemetry file. Sets added (the events
# added, blank-separated; empty when all were there), content (the merged
# file) and new (1 when there is no file yet), which the caller declares
# local; returns 0, or 1 or 2 after reporting why the file is refused.
install_hooks_merge() {
  local prog=$1 file=$2 template=$3 runtime=$4 dir out status nl=$'\n' shape='' prefix=''
  if [ "$runtime" = opencode ]; then
    install_hooks_plugin "$@"
    return $?
  fi
  if [ "${4:-}" = copilot ]; then shape=copilot prefix='DATARIM_HOOK_RUNTIME=copilot '; fi
  install_hooks_target "$prog" "$file" || return 1
  dr_lib_dir_into dir
  out=$(
    if [ "$new" = 1 ]; then :; else tr '\000\002' '\001\001' <"$file" 2>/dev/null; fi |
      DR_SPLICE_NEW=$new DR_SPLICE_SHAPE=$shape DR_SPLICE_RUNTIME=$runtime \
        DR_SPLICE_SESSION_START=$prefix${template//\{hook\}/session-start-hook} \
        DR_SPLICE_PROMPT=${template//\{hook\}/prompt-hook} DR_SPLICE_STOP=$prefix${template//\{hook\}/stop-hook} \
        LC_ALL=C awk -f "$dir/datarim-rules.awk" -f "$dir/hooks-splice.awk" -f "$dir/hook-payload.awk" 2>/dev/null
    printf '.%s' "$?"
  )
  status=${out##*.}
  out=${out%.*}
  added=${out%%"$nl"*}
  content=${out#*"$nl"}
  case $status in
    0) ;;
    2) dr_err "$prog" "--hook-command must hold {hook} and no control character" && return 2 ;;
    3) dr_err "$prog" "--file is over 1 MiB; left unchanged" && return 1 ;;
    5) dr_err "$prog" "--file: \"hooks\" is not an object; left unchanged" && return 1 ;;
    6) dr_err "$prog" "--file: \"hooks\".\"$added\" is not an array; left unchanged" && return 1 ;;
    7) dr_err "$prog" "--file repeats a name in an object; left unchanged" && return 1 ;;
    *) dr_err "$prog" "--file is not one strict JSON object; left unchanged" && return 1 ;;
  esac
}

# install_hooks_target <program> <file>: sets new (1: no <file> yet, 0: one
# to read and replace); 1 after reporting why <file> cannot be.
install_hooks_target() {
  new=1
  if [ -L "$2" ]; then
    dr_err "$1" "--file is a symlink; pass the file it points to"
    return 1
  fi
  [ -e "$2" ] || return 0
  new=0
  if [ ! -f "$2" ]; then
    dr_err "$1" "--file is not a regular file"
    return 1
  fi
  if [ ! -r "$2" ]; then
    dr_err "$1" "--file cannot be read"
    return 1
  fi
}

# install_hooks_plugin <program> <file> <template>: the opencode plugin for
# <template>'s commands (opencode-plugin.awk), as install_hooks_merge sets
# added, content and new: nothing added when <file> holds it already; a file
# that holds anything but a plugin of ours (its first line) is refused.
install_hooks_plugin() {
  local prog=$1 file=$2 template=$3 dir out status=0 head='' old
  added=''
  install_hooks_target "$prog" "$file" || return 1
  dr_lib_dir_into dir
  out=$(DR_PLUGIN_TEMPLATE=$dir/text/opencode-plugin.js DR_PLUGIN_SESSION_START=${template//\{hook\}/session-start-hook} \
    DR_PLUGIN_PROMPT=${template//\{hook\}/prompt-hook} DR_PLUGIN_STOP=${template//\{hook\}/stop-hook} \
    LC_ALL=C awk -f "$dir/datarim-rules.awk" -f "$dir/opencode-plugin.awk" 2>/dev/null && printf .) || status=$?
  case $status in
    0) ;;
    2) dr_err "$prog" "--hook-command must hold {hook} and no control character" && return 2 ;;
    *) dr_err "$prog" "cannot read the plugin's template" && return 1 ;;
  esac
  content=${out%.}
  if [ "$new" = 0 ]; then
    # (bash warns on stderr of a NUL it drops: such a file is no plugin of ours anyway)
    { old=$(cat -- "$file" && printf .); } 2>/dev/null || {
      dr_err "$prog" "--file cannot be read"
      return 1
    }
    old=${old%.}
    [ "$old" != "$content" ] || return 0
    IFS= read -r head <<<"$old" || :
    if [ "$head" != "${content%%$'\n'*}" ]; then
      dr_err "$prog" "--file is not this project's opencode plugin; left unchanged"
      return 1
    fi
  fi
  added='SessionStart UserPromptSubmit Stop'
}

# install_hooks_replace <file> <content> <new>: <content> over <file>: a temp
# file beside it with the file's mode (cp -p; 600 when <new> is 1), fsynced,
# renamed over it. 1 when it cannot (the file is left as it was).
install_hooks_replace() {
  local LC_ALL=C dir name tmp
  case $1 in */*) dir=${1%/*} name=${1##*/} ;; *) dir=. name=$1 ;; esac
  tmp=$dir/.$name.tmp.${BASHPID:-$$}.$RANDOM
  if [ "$3" = 1 ]; then
    (umask 077 && printf '%s' "$2" >"$tmp") 2>/dev/null || {
      rm -f -- "$tmp" 2>/dev/null
      return 1
    }
  else
    { cp -p -- "$1" "$tmp" && printf '%s' "$2" >"$tmp"; } 2>/dev/null || {
      rm -f -- "$tmp" 2>/dev/null
      return 1
    }
  fi
  sync -- "$tmp" 2>/dev/null || sync 2>/dev/null || :
  mv -f -- "$tmp" "$1" 2>/dev/null && return 0
  rm -f -- "$tmp" 2>/dev/null || :
  return 1
}

[ -z "${_dr_aliases_install_hooks-}" ] || shopt -s expand_aliases
unset _dr_aliases_install_hooks
