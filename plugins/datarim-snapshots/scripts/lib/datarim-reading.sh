# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_flags.py, _roots.py, _inputs.py
# What only the commands that read a knowledge base need, and the hooks: the
# openings of the readers (dr_reader_flags) and validators (dr_checker), the
# root a reader or hook discovers when given none (dr_discover_root, spec §8),
# and the state of an artifact it may read. A write needs none of it, so it
# is not read with the files it came from (datarim-flags.sh, datarim-roots.sh,
# datarim-inputs.sh): their stubs load it on the first call of any of them
# (dr_autoload), and it defines them anew. Sourcing it defines dr_* functions
# and nothing else.
declare -F dr_own_knowledge_base >/dev/null 2>&1 && return 0

# Aliases off while this file is read (see datarim-common.sh).
if shopt -q expand_aliases; then _dr_aliases_datarim_reading=1 && shopt -u expand_aliases; fi

# dr_answer_first_word <program> <word>: the same for a command that takes
# -h/--help/--version only as its first word (the hooks, which read a payload).
dr_answer_first_word() {
  case $2 in
    -h | --help) dr_answer_help_or_version "$1" 4 ;;
    --version) dr_answer_help_or_version "$1" 6 ;;
    *) return 1 ;;
  esac
}

# dr_reader_flags <program> <usage-code> <done-var> <spec> <required> "$@": how
# every reader starts (and doctor, install, install-hooks, the claim probes):
# parses the flags (dr_parse_flags; the caller declares the opt_* locals).
# Sets <done-var> to 1 when the command is over, help or the version printed
# on stdout (0) or a usage error reported (<usage-code>), and returns that
# code; else returns 0 with <done-var> empty.
dr_reader_flags() {
  local dr_rf_prog=$1 dr_rf_code=$2 dr_rf_done=$3 dr_rf_spec=$4 dr_rf_required=$5 dr_rf_status=0
  shift 5
  printf -v "$dr_rf_done" '%s' 1
  dr_parse_flags "$dr_rf_prog" "$dr_rf_spec" "$dr_rf_required" "$@" || dr_rf_status=$?
  dr_answer_help_or_version "$dr_rf_prog" "$dr_rf_status" && return 0
  [ "$dr_rf_status" -eq 0 ] || return "$dr_rf_code"
  printf -v "$dr_rf_done" '%s' ''
}

# dr_checker <program> <id-flag> <self-test-fn> <folder> <suffix> <check-fn> "$@":
# a validator's whole command line. Parses <id-flag> (--task or --session: the
# ID's rule is dr_task_id_ok or dr_session_id_ok), --root,
# --validate-frontmatter (accepted for the seeds' callers; every check always
# runs) and --self-test (<self-test-fn> run, its status returned). Then the
# reader's root, datarim/<folder> refused when a symlink, and <check-fn> <path>
# <ID> <msg-var> on datarim/<folder>/<ID><suffix>, its message on stderr after
# that path. 0 valid (or help, version), 1 missing, 2 malformed, 3 usage.
dr_checker() {
  local dr_ck_prog=$1 dr_ck_flag=$2 dr_ck_test=$3 dr_ck_folder=$4 dr_ck_suffix=$5 dr_ck_check=$6
  local dr_ck_rule=${2#--} dr_ck_status=0 dr_ck_id dr_ck_root dr_ck_rel msg
  # shellcheck disable=SC2034 # set by dr_parse_flags; opt_<rule> read by its name
  local opt_task='' opt_session='' opt_root='' opt_validate_frontmatter='' opt_self_test=''
  shift 6
  dr_parse_flags "$dr_ck_prog" "$dr_ck_flag= --root= --validate-frontmatter --self-test" "" "$@" ||
    dr_ck_status=$?
  dr_answer_help_or_version "$dr_ck_prog" "$dr_ck_status" && return 0
  [ "$dr_ck_status" -eq 0 ] || return 3
  if [ -n "$opt_self_test" ]; then
    "$dr_ck_test"
    return $?
  fi
  eval "dr_ck_id=\$opt_$dr_ck_rule"
  if [ -z "$dr_ck_id" ]; then
    dr_err "$dr_ck_prog" "missing required flag(s): $dr_ck_flag"
    return 3
  fi
  if ! "dr_${dr_ck_rule}_id_ok" "$dr_ck_id"; then
    "dr_${dr_ck_rule}_id_fault" "$dr_ck_id" msg
    dr_err "$dr_ck_prog" "$msg"
    return 3
  fi
  dr_reader_root "$dr_ck_prog" "$opt_root" dr_ck_root || return 3
  dr_refuse_symlinked "$dr_ck_prog" "$dr_ck_root" "$dr_ck_folder" || return 2
  dr_ck_rel=datarim/$dr_ck_folder/$dr_ck_id$dr_ck_suffix
  "$dr_ck_check" "$dr_ck_root/$dr_ck_rel" "$dr_ck_id" msg || dr_ck_status=$?
  [ "$dr_ck_status" -eq 0 ] || dr_err "$dr_ck_prog" "$dr_ck_rel $msg"
  return "$dr_ck_status"
}

# dr_self_test <program> <write-fn> <check-fn> <file> <id>: a validator's
# --self-test in a scratch root: <write-fn> <root> writes <file> (relative to
# the root) for <id>, which <check-fn> <path> <id> <msg-var> then finds valid;
# with a byte more, malformed (2); removed, missing (1). 0 after printing that
# it passed; 2 after one line on stderr.
dr_self_test() {
  # shellcheck disable=SC2034 # <check-fn> sets msg
  local prog=$1 write=$2 check=$3 id=$5 scratch file status=0 msg
  scratch=$(mktemp -d 2>/dev/null) || {
    dr_err "$prog" "self-test: cannot make a scratch directory"
    return 2
  }
  file=$scratch/$4
  {
    "$write" "$scratch" &&
      "$check" "$file" "$id" msg &&
      printf 'x' >>"$file" &&
      {
        "$check" "$file" "$id" msg
        [ $? -eq 2 ]
      } &&
      rm -f -- "$file" &&
      {
        "$check" "$file" "$id" msg
        [ $? -eq 1 ]
      }
  } || status=2
  rm -rf -- "$scratch" 2>/dev/null || :
  if [ "$status" -ne 0 ]; then
    dr_err "$prog" "self-test failed"
    return 2
  fi
  printf '%s: self-test passed\n' "$prog"
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

# dr_artifact_state <file> <msg-var>: 0 when <file> is a readable regular
# file; else sets <msg-var> and returns 1 (missing) or 2 (a symlink, or not
# a readable regular file). Validators call it before reading an artefact.
dr_artifact_state() {
  printf -v "$2" '%s' ''
  if [ -L "$1" ]; then
    printf -v "$2" '%s' 'is a symlink'
    return 2
  fi
  if [ ! -e "$1" ]; then
    printf -v "$2" '%s' 'is missing'
    return 1
  fi
  if [ ! -f "$1" ] || [ ! -r "$1" ]; then
    printf -v "$2" '%s' 'is not a readable regular file'
    return 2
  fi
}

[ -z "${_dr_aliases_datarim_reading-}" ] || shopt -s expand_aliases
unset _dr_aliases_datarim_reading
