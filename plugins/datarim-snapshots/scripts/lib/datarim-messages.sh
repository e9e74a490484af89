# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_rules.py (shown, shown_text, the
# task-ID rule's words) and _texts.py (usage, version)
# The words of what a command prints when it refuses or tells something: text
# made fit for a one-line message (dr_shown_into) or a terminal
# (dr_shown_text_into), the usage and version texts, and why a task ID breaks
# the rule. A run that prints no message needs none of it, so it is not read
# with datarim-common.sh and datarim-rules.sh: their stubs load it on the first
# call of any of these (dr_autoload), and it defines them anew. Sourcing it
# defines dr_* functions and nothing else.
declare -F dr_shown_wide_into >/dev/null 2>&1 && return 0

# Aliases off while this file is read (see datarim-common.sh).
if shopt -q expand_aliases; then _dr_aliases_datarim_messages=1 && shopt -u expand_aliases; fi

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

# dr_task_id_fault <id> <out-var>: why <id> breaks the task-ID rule, in words,
# the value repeated (its first 40 bytes and "..." when longer than the rule
# allows). Counts bytes, as the rule does.
dr_task_id_fault() {
  local LC_ALL=C dr_tf_value=$1 dr_tf_bad dr_tf_code dr_tf_why
  [ ${#dr_tf_value} -le 128 ] || dr_tf_value=${dr_tf_value:0:40}...
  if [ ${#1} -gt 128 ]; then
    dr_tf_why='longer than 128 characters'
  elif [[ $1 == *[!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-]* ]]; then
    dr_tf_bad=${1#"${1%%[!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-]*}"}
    printf -v dr_tf_code '%d' "'${dr_tf_bad:0:1}"
    if [ "$dr_tf_code" -eq 32 ]; then
      dr_tf_bad='a space'
    elif [ "$dr_tf_code" -lt 0 ] || [ "$dr_tf_code" -gt 127 ]; then
      dr_tf_bad='a non-ASCII character'
    elif [ "$dr_tf_code" -lt 32 ] || [ "$dr_tf_code" -eq 127 ]; then
      dr_tf_bad='a control character'
    else
      dr_tf_bad="'${dr_tf_bad:0:1}'"
    fi
    dr_tf_why="holds $dr_tf_bad; a task ID holds only letters, digits and dashes"
  else
    dr_tf_why='want a capital letter, then capitals, digits or dashes up to a dash and a 4- or 5-digit number, then optional -slug parts of letters and digits (e.g. TUNE-0254, DEV-1438-FU-slug)'
  fi
  printf -v "$2" 'invalid --task "%s": %s' "$dr_tf_value" "$dr_tf_why"
}

[ -z "${_dr_aliases_datarim_messages-}" ] || shopt -s expand_aliases
unset _dr_aliases_datarim_messages
