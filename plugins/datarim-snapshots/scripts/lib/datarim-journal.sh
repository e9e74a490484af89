# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_journal.py
# The harness journal of the stage-snapshot writer (spec §8); only
# snapshot-writer.sh loads it. Sourcing it defines snapshot_journal and
# nothing else, and the second time costs nothing.
declare -F snapshot_journal >/dev/null 2>&1 && return 0

# Aliases off while this file is read (see datarim-common.sh).
if shopt -q expand_aliases; then _dr_aliases_datarim_journal=1 && shopt -u expand_aliases; fi

# snapshot_journal <task> <stage> <captured-at> <body-file> <content>: the
# reference writer's harness journal (spec §8): when a test harness made
# /tmp/datarim-test-<task>/ (DATARIM_HARNESS_DIR stands in for /tmp), each
# write appends one line to its journal.md. A path that predictable in a
# shared /tmp is anyone's to plant, so only a real directory (no symlink)
# owned by this user and writable by no one else counts, and journal.md only
# while it is a regular file or missing, never through a symlink. Fail-soft:
# nothing here changes what the writer did or returns.
snapshot_journal() {
  local LC_ALL=C dir=${DATARIM_HARNESS_DIR:-/tmp}/datarim-test-$1 journal mode first='' header=n footer=n sha line
  [ -d "$dir" ] && [ ! -L "$dir" ] && [ -O "$dir" ] || return 0
  mode=$(ls -ld -- "$dir" 2>/dev/null) || return 0
  case ${mode:5:1}${mode:8:1} in *w*) return 0 ;; esac
  journal=$dir/journal.md
  if [ -L "$journal" ] || { [ -e "$journal" ] && [ ! -f "$journal" ]; }; then return 0; fi
  { IFS= read -r -n 256 first || :; } 2>/dev/null <"$4"
  case $first in "**$1 · "*) header=y ;; esac
  if grep -qE -e "Следующий шаг — $1" -e "/dr-[a-z]+ $1" -e 'primary CTA' -- "$4" 2>/dev/null; then
    footer=y
  fi
  sha=$(printf '%s' "$5" | { sha256sum 2>/dev/null || shasum -a 256 2>/dev/null; }) || sha=
  sha=${sha%%[!0123456789abcdef]*}
  [ ${#sha} -ge 12 ] && sha=${sha:0:12} || sha=------------
  printf -v line '%s · %s · header-present:%s · snapshot-written:y · cta-footer:%s · snapshot-sha:%s' \
    "$2" "$3" "$header" "$footer" "$sha"
  { printf '%s\n' "$line" >>"$journal"; } 2>/dev/null || :
}

[ -z "${_dr_aliases_datarim_journal-}" ] || shopt -s expand_aliases
unset _dr_aliases_datarim_journal
