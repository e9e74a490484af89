# shellcheck shell=bash
# The one replay renderer (CONTRACT §4), shared by the snapshot consumer and
# the session resume. The bilingual block lives once, in
# scripts/lib/text/replay-instructions.txt, read by both implementations.
#
# Sourcing defines functions only; nothing of the caller's shell changes.

_replay_render_load() {
  local dir=${BASH_SOURCE[0]}
  case $dir in */*) dir=${dir%/*} ;; *) dir=. ;; esac
  # shellcheck source=scripts/lib/datarim-common.sh
  . "$dir/datarim-common.sh"
}
_replay_render_load
unset -f _replay_render_load

# replay_render_prompt <recommended-cta> <body> [<out-var>]: prints the
# replay prompt (or, given <out-var>, stores it there): the CTA line, a blank
# line, the bilingual block, a blank line, "done before:" and the body
# exactly as given.
replay_render_prompt() {
  local LC_ALL=C dir block=''
  dr_lib_dir_into dir
  IFS= read -r -d '' block <"$dir/text/replay-instructions.txt" || :
  if [ -n "${3:-}" ]; then
    printf -v "$3" '%s\n\n%s\ndone before:\n%s' "$1" "$block" "$2"
  else
    printf '%s\n\n%s\ndone before:\n%s' "$1" "$block" "$2"
  fi
}
