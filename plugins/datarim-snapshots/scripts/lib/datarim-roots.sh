# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_roots.py
# Where a command works: the --root a writer resolves (dr_resolve_root) and
# what counts as a knowledge base. The root a reader or hook discovers when
# given none (dr_discover_root, spec §8) is in datarim-reading.sh.
# datarim-common.sh loads this file; sourcing it defines dr_* functions and
# nothing else, and the second time costs nothing.
declare -F dr_resolve_root >/dev/null 2>&1 && return 0

# Aliases off while this file is read (see datarim-common.sh).
if shopt -q expand_aliases; then _dr_aliases_datarim_roots=1 && shopt -u expand_aliases; fi

# What only readers, validators and hooks use is in datarim-reading.sh, which a
# write never reads: each of these loads it on its first call (dr_autoload).
dr_discover_root() { dr_autoload datarim-reading.sh dr_discover_root "$@"; }
dr_find_root() { dr_autoload datarim-reading.sh dr_find_root "$@"; }
dr_reader_root() { dr_autoload datarim-reading.sh dr_reader_root "$@"; }
dr_kb_file_ok() { dr_autoload datarim-reading.sh dr_kb_file_ok "$@"; }
dr_refuse_symlinked() { dr_autoload datarim-reading.sh dr_refuse_symlinked "$@"; }
dr_foreign_datarim() { dr_autoload datarim-reading.sh dr_foreign_datarim "$@"; }

# dr_is_knowledge_base <dir>: a datarim/ directory that holds a knowledge base
# (spec §8): tasks.md, backlog.md, activeContext.md, tasks/, snapshots/ or
# sessions/. A bare datarim/ (the framework's own source tree has one) is not.
dr_is_knowledge_base() {
  [ -e "$1/activeContext.md" ] || [ -e "$1/tasks.md" ] || [ -e "$1/backlog.md" ] || [ -d "$1/tasks" ] ||
    [ -d "$1/snapshots" ] || [ -d "$1/sessions" ]
}

# dr_new_knowledge_base <program> <root> <out-var>: sets <out-var> to the
# physical <root>/datarim when it holds no knowledge base yet, so that a write
# starts one there (often the sign of a mistaken --root), else to empty.
# Quiet: a root that cannot be resolved is for the write to report.
dr_new_knowledge_base() {
  local dr_nk_root
  printf -v "$3" '%s' ''
  dr_resolve_root "$1" "$2" dr_nk_root 2>/dev/null || return 0
  dr_is_knowledge_base "$dr_nk_root/datarim" || printf -v "$3" '%s' "$dr_nk_root/datarim"
}

# dr_new_knowledge_base_notice <program> <datarim-dir-or-empty>: the one line
# a writer says after starting a knowledge base (dr_new_knowledge_base).
dr_new_knowledge_base_notice() {
  [ -z "$2" ] || dr_err "$1" "created a new knowledge base in $2 (is --root right?)"
}

# dr_resolve_root <program> <root> <out-var>: the physical absolute root.
# Refuses (1) a missing root and one that is, or lies inside, a knowledge
# base's own datarim/ directory, which would build datarim/datarim/.
dr_resolve_root() {
  local abs part here=$PWD there=${OLDPWD-} CDPATH=''
  if [ ! -d "$2" ] || ! cd -P -- "$2" 2>/dev/null; then
    dr_err "$1" "--root is not a directory"
    return 1
  fi
  # cd -P sets PWD to the physical path; return at once (no subshell fork).
  abs=$PWD
  cd -- "$here" 2>/dev/null || {
    dr_err "$1" "cannot return to the working directory"
    return 1
  }
  OLDPWD=$there
  part=$abs
  while [ -n "$part" ] && [ "$part" != / ]; do
    if [ "${part##*/}" = datarim ] && dr_is_knowledge_base "$part"; then
      dr_err "$1" "--root lies inside a knowledge base's datarim/ directory; pass the workspace root"
      return 1
    fi
    part=${part%/*}
  done
  printf -v "$3" '%s' "$abs"
}

[ -z "${_dr_aliases_datarim_roots-}" ] || shopt -s expand_aliases
unset _dr_aliases_datarim_roots
