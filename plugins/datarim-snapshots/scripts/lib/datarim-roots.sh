# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_roots.py
# Where a command works: the --root a writer resolves (dr_resolve_root), the
# root a reader or hook discovers when given none (dr_discover_root, spec §8),
# and what counts as a knowledge base.
# datarim-common.sh loads this file; sourcing it defines dr_* functions and
# nothing else, and the second time costs nothing.
declare -F dr_discover_root >/dev/null 2>&1 && return 0

# Aliases off while this file is read (see datarim-common.sh).
if shopt -q expand_aliases; then _dr_aliases_datarim_roots=1 && shopt -u expand_aliases; fi

# dr_is_knowledge_base <dir>: a datarim/ directory that holds a knowledge base
# (spec §8): tasks.md, backlog.md, activeContext.md, tasks/, snapshots/ or
# sessions/. A bare datarim/ (the framework's own source tree has one) is not.
dr_is_knowledge_base() {
  [ -e "$1/activeContext.md" ] || [ -e "$1/tasks.md" ] || [ -e "$1/backlog.md" ] || [ -d "$1/tasks" ] ||
    [ -d "$1/snapshots" ] || [ -d "$1/sessions" ]
}

# dr_kb_file_ok <root> <rel>: 0 when <root>/<rel>, a file of the knowledge
# base a reader hands on (a task list, a legacy document), is a readable
# regular file that is no symlink, and, under datarim/tasks/, that folder is
# none either: the resume path reads nothing a link points at, so a cloned
# repository cannot send ~/.ssh/id_rsa to the model (spec §4).
dr_kb_file_ok() {
  { [ -f "$1/$2" ] && [ ! -L "$1/$2" ] && [ -r "$1/$2" ]; } || return 1
  case $2 in datarim/tasks/*) [ ! -L "$1/datarim/tasks" ] ;; esac
}

# dr_own_knowledge_base <dir>: dr_is_knowledge_base, and <dir> is ours (its
# owner is the effective user): discovery never adopts a datarim/ another
# user left in a shared parent (/tmp/x/datarim), as git refuses a repository
# of another owner, so their text never reaches our model and our answers
# never land in their folder (spec §8).
dr_own_knowledge_base() {
  [ -O "$1" ] && dr_is_knowledge_base "$1"
}

# dr_foreign_datarim <root>: 0 when <root>/datarim exists and another user
# owns it. Discovery never adopts such a folder, but when it finds no
# knowledge base it falls back to the directory it started from, whose
# datarim/ may be that folder: then a reader refuses and a hook does nothing,
# so another user's text never reaches our model (spec §8).
dr_foreign_datarim() {
  [ -e "$1/datarim" ] && [ ! -O "$1/datarim" ]
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

# dr_discover_root <root-var> <reason-var> [<start>]: the workspace root of a
# reader or hook given no --root (spec §8), looked for from <start> (an
# absolute path; default the current directory) upwards: the git top level
# when its datarim/ is a knowledge base (reason git-top-level), else the
# nearest directory whose datarim/ is one (nearest-knowledge-base), else
# <start> itself (current-directory); a datarim/ of another owner is none
# (dr_own_knowledge_base). The one rule every reader and hook
# follows; <reason-var> says which part of it chose (doctor prints it).
# The git top level is found the way git finds it, without running git: the
# nearest directory holding .git (a gitfile, or a directory with HEAD),
# never looking above an entry of GIT_CEILING_DIRECTORIES.
dr_discover_root() {
  local start=${3:-${PWD:-/}} dir nearest='' searching_git=1 ceilings=: rest entry
  rest=${GIT_CEILING_DIRECTORIES:-}
  while [ -n "$rest" ]; do
    entry=${rest%%:*}
    rest=${rest#"$entry"}
    rest=${rest#:}
    case $entry in /?*/) entry=${entry%/} ;; esac
    ceilings=$ceilings$entry:
  done
  dir=$start
  while :; do
    # "$dir" is "" once the walk reaches /, so "$dir/datarim" is /datarim.
    if [ -n "$searching_git" ] && { [ -f "$dir/.git" ] || [ -f "$dir/.git/HEAD" ]; }; then
      searching_git=
      if dr_own_knowledge_base "$dir/datarim"; then
        printf -v "$1" '%s' "${dir:-/}"
        printf -v "$2" '%s' git-top-level
        return 0
      fi
      [ -z "$nearest" ] || break
    fi
    if [ -z "$nearest" ] && dr_own_knowledge_base "$dir/datarim"; then
      nearest=${dir:-/}
      [ -n "$searching_git" ] || break
    fi
    [ -z "$dir" ] || [ "$dir" = / ] && break
    dir=${dir%/*}
    case $ceilings in *":${dir:-/}:"*) searching_git= ;; esac
    [ -n "$searching_git" ] || [ -z "$nearest" ] || break
  done
  if [ -n "$nearest" ]; then
    printf -v "$1" '%s' "$nearest"
    printf -v "$2" '%s' nearest-knowledge-base
    return 0
  fi
  printf -v "$1" '%s' "$start"
  printf -v "$2" '%s' current-directory
}

# dr_find_root <out-var> [<start>]: dr_discover_root's root alone.
dr_find_root() {
  # shellcheck disable=SC2034 # the reason is not wanted here
  local dr_find_root_reason
  dr_discover_root "$1" dr_find_root_reason "${2:-}"
}

# dr_reader_root <program> <root-flag> <out-var>: the root a reader works in:
# --root when given (it must be a directory), else dr_discover_root's. Returns 3
# (usage) after reporting a --root that is not a directory, or a discovered
# root whose datarim/ is another user's (dr_foreign_datarim).
dr_reader_root() {
  if [ -z "$2" ]; then
    dr_find_root "$3"
    if dr_foreign_datarim "${!3}"; then
      dr_err "$1" "the datarim/ of the working directory belongs to another user; pass --root to read it"
      return 3
    fi
    return 0
  fi
  if [ ! -d "$2" ]; then
    dr_err "$1" "--root is not a directory"
    return 3
  fi
  printf -v "$3" '%s' "$2"
}

# dr_refuse_symlinked <program> <root> <subdir>: 2 after reporting that
# <root>/datarim/<subdir> is a symlink (a reader never follows one), else 0.
dr_refuse_symlinked() {
  [ -L "$2/datarim/$3" ] || return 0
  dr_err "$1" "datarim/$3 is a symlink"
  return 2
}

[ -z "${_dr_aliases_datarim_roots-}" ] || shopt -s expand_aliases
unset _dr_aliases_datarim_roots
