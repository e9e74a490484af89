# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_replay_render.py
# The one replay renderer (spec §4), shared by the snapshot consumer and
# the session resume. The bilingual block lives once, in
# scripts/lib/text/replay-instructions.txt, read by both implementations.
#
# Sourcing defines functions only; nothing of the caller's shell changes.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_replay_render=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac

# replay_render_prompt <recommended-cta> <body> [<out-var>]: prints the
# replay prompt (or, given <out-var>, stores it there): the CTA line, a blank
# line, the bilingual block, a blank line, "done before:" and the body
# exactly as given.
replay_render_prompt() { dr_call replay_render_prompt_body "$@"; } # with our shell options
replay_render_prompt_body() {
  local LC_ALL=C dir block=''
  dr_lib_dir_into dir
  IFS= read -r -d '' block <"$dir/text/replay-instructions.txt" || :
  if [ -n "${3:-}" ]; then
    printf -v "$3" '%s\n\n%s\ndone before:\n%s' "$1" "$block" "$2"
  else
    printf '%s\n\n%s\ndone before:\n%s' "$1" "$block" "$2"
  fi
}

[ -z "${_dr_aliases_replay_render-}" ] || shopt -s expand_aliases
unset _dr_aliases_replay_render
