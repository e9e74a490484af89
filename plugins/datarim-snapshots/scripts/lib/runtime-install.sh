# shellcheck shell=bash
# Python twin: none (bash only)
# Puts this project's suite where the reference's /dr-* commands call it
# (spec §8): ${DATARIM_RUNTIME:-$HOME/.claude}/dev-tools/ and /scripts/lib/,
# keeping what it replaces in <runtime>/.datarim-backup/, and puts that back.
#
#   runtime_install_main [--runtime <dir>]             0 installed, 1 refused, 2 usage
#   runtime_install_main --restore [--runtime <dir>]   0 restored (or nothing to), 1 not all
#
# The backup, written ahead of each change so that a killed install can be
# restored too:
#   files/<path>  what stood at <runtime>/<path> before the first install
#                 that touched it (a file, or a symlink, kept as a symlink)
#   installed/<path>  a copy of the file installed at <path>: a file equal
#                 to it is ours (restore removes it), any other is not
#   added         paths created where nothing stood (directories end in /)
#   exploded      directories that were symlinks (the reference installs its
#                 checkout as symlinked directories): each became a real
#                 directory of symlinks to the entries it pointed at, so that
#                 nothing is ever written into the reference's checkout; the
#                 symlink itself is kept as dirs/<path>/.link (dirs/ holds
#                 real directories only, so nothing reaches through a link)
#   linked        the symlinks made so
#   staged        the temp files an install writes beside a file before it
#                 moves them into place (a kill leaves one behind)
# A later install keeps the first backup: a file it replaces is one it
# installed, unless it changed since (then that newer file is kept instead).
# Restore never removes or overwrites a file that changed since the install.
#
# Sourcing defines runtime_install_* functions (plus those of the libraries
# it loads) and nothing else.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_runtime_install=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac

# runtime_install_say <message>: one line of progress on stdout.
runtime_install_say() {
  printf 'datarim install: %s\n' "$1"
}

# runtime_install_payload <source> <out-var>: the suite's paths, relative to
# <source>, one per line: every file of scripts/lib and scripts/lib/text, then
# dev-tools/*.sh (the demos aside), so that a /dr-* command run
# meanwhile finds the libraries of the entry points it calls. In a checkout
# scripts/lib and the hook scripts are links into plugins/: what they point
# at is copied (cp follows them), never a link.
runtime_install_payload() {
  # The demos play in a throw-away workspace of this repository; a runtime needs none.
  local skip=' demo.sh demo-resume.sh '
  local path name list=''
  for path in "$1"/scripts/lib/* "$1"/scripts/lib/text/* "$1"/dev-tools/*.sh; do
    [ -f "$path" ] || continue
    name=${path##*/}
    case $path in "$1"/dev-tools/*) case $skip in *" $name "*) continue ;; esac ;; esac
    list=$list${path#"$1"/}$'\n'
  done
  printf -v "$2" '%s' "$list"
}

# runtime_install_has <file> <line>: 0 when <file> holds <line>.
runtime_install_has() {
  local line
  [ -f "$1" ] || return 1
  while IFS= read -r line; do [ "$line" = "$2" ] && return 0; done <"$1"
  return 1
}

# runtime_install_record <file> <line>: appends <line> (once) to a manifest.
runtime_install_record() {
  runtime_install_has "$1" "$2" || printf '%s\n' "$2" >>"$1"
}

# runtime_install_drop <file> <line>: removes <line> from a manifest.
runtime_install_drop() {
  local line kept=''
  [ -f "$1" ] || return 0
  while IFS= read -r line; do [ "$line" = "$2" ] || kept=$kept$line$'\n'; done <"$1"
  printf '%s' "$kept" >"$1.tmp" && mv -f -- "$1.tmp" "$1"
}

# runtime_install_ours <backup> <runtime> <rel>: 0 when <runtime>/<rel> is a
# regular file (not a symlink) holding what an install put there: the copy
# kept in installed/, or the one staged beside it by an install that stopped
# before it could replace the copy.
runtime_install_ours() {
  local file=$2/$3 copy=$1/installed/$3
  [ -f "$file" ] && [ ! -L "$file" ] || return 1
  { [ -f "$copy" ] && cmp -s -- "$file" "$copy"; } ||
    { [ -f "$copy.datarim-new" ] && cmp -s -- "$file" "$copy.datarim-new"; }
}

# runtime_install_stash <runtime> <backup> <rel>: moves <runtime>/<rel> (a
# file or a symlink, never followed) to <backup>/files/<rel>. Never through a
# symlink kept in the backup (an exploded directory's): that would write into
# what it points at.
runtime_install_stash() {
  local part=$3
  while [ "${part%/*}" != "$part" ]; do
    part=${part%/*}
    [ ! -L "$2/files/$part" ] || return 1
  done
  mkdir -p -- "$(dirname -- "$2/files/$3")" && rm -f -- "$2/files/$3" && mv -f -- "$1/$3" "$2/files/$3"
}

# runtime_install_explode <prog> <runtime> <backup> <rel>: <runtime>/<rel> is a
# symlink to a directory; keeps the link in the backup and puts a real
# directory in its place holding one symlink per entry it pointed at.
runtime_install_explode() {
  local prog=$1 runtime=$2 backup=$3 rel=$4 target entry name
  if ! target=$(cd -P -- "$runtime/$rel" 2>/dev/null && pwd -P); then
    dr_err "$prog" "$runtime/$rel is a symlink to no directory; fix or remove it first"
    return 1
  fi
  if [ -e "$backup/dirs/$rel/.link" ] || [ -L "$backup/dirs/$rel/.link" ]; then
    dr_err "$prog" "$backup/dirs/$rel/.link is in the way; restore first"
    return 1
  fi
  if ! runtime_install_record "$backup/exploded" "$rel" || ! mkdir -p -- "$backup/dirs/$rel" ||
    ! mv -f -- "$runtime/$rel" "$backup/dirs/$rel/.link" || ! mkdir -- "$runtime/$rel"; then
    dr_err "$prog" "cannot replace the symlink $runtime/$rel by a directory"
    return 1
  fi
  for entry in "$target"/* "$target"/.[!.]* "$target"/..?*; do
    [ -e "$entry" ] || [ -L "$entry" ] || continue
    name=${entry##*/}
    case $name in *$'\n'*)
      dr_err "$prog" "$target holds a name with a line break; cannot record it"
      return 1
      ;;
    esac
    runtime_install_record "$backup/linked" "$rel/$name"
    ln -s -- "$entry" "$runtime/$rel/$name" || {
      dr_err "$prog" "cannot link $runtime/$rel/$name"
      return 1
    }
  done
}

# runtime_install_dirs <prog> <runtime> <backup>: makes the suite's
# directories real directories (created, or exploded from a symlink).
runtime_install_dirs() {
  local rel
  for rel in dev-tools scripts scripts/lib scripts/lib/text; do
    if [ -L "$2/$rel" ]; then
      runtime_install_explode "$1" "$2" "$3" "$rel" || return 1
    elif [ -d "$2/$rel" ]; then
      continue
    elif [ -e "$2/$rel" ]; then
      dr_err "$1" "$2/$rel is not a directory; move it away first"
      return 1
    else
      runtime_install_record "$3/added" "$rel/"
      mkdir -- "$2/$rel" || {
        dr_err "$1" "cannot create $2/$rel"
        return 1
      }
    fi
  done
}

# runtime_install_file <prog> <source> <runtime> <backup> <rel>: installs one
# file, keeping what stood there first.
runtime_install_file() {
  local prog=$1 source=$2 runtime=$3 backup=$4 rel=$5 dest=$3/$5 copy=$4/installed/$5 tmp
  if [ -d "$dest" ] && [ ! -L "$dest" ]; then
    dr_err "$prog" "$dest is a directory; move it away first"
    return 1
  fi
  if [ -e "$dest" ] || [ -L "$dest" ]; then
    if runtime_install_ours "$backup" "$runtime" "$rel"; then
      : # an install put it there: nothing to keep
    elif [ -L "$dest" ] && runtime_install_has "$backup/linked" "$rel"; then
      rm -f -- "$dest" # a link of an exploded directory: restore drops the directory
    else
      # Not ours, or changed since an install put it there: restore brings it back.
      runtime_install_drop "$backup/added" "$rel"
      runtime_install_stash "$runtime" "$backup" "$rel" || {
        dr_err "$prog" "cannot move $dest into the backup"
        return 1
      }
    fi
  elif [ ! -e "$backup/files/$rel" ] && [ ! -L "$backup/files/$rel" ]; then
    runtime_install_record "$backup/added" "$rel"
  fi
  # The copy is staged first and committed last: at every step restore can
  # tell the file at <dest> for ours.
  tmp=${dest%/*}/.datarim-install.$$
  runtime_install_record "$backup/staged" "${tmp#"$runtime"/}" || {
    dr_err "$prog" "cannot record $tmp in the backup"
    return 1
  }
  rm -f -- "$tmp" 2>/dev/null || :
  if ! mkdir -p -- "${copy%/*}" || ! cp -- "$source/$rel" "$copy.datarim-new" ||
    ! cp -- "$source/$rel" "$tmp" 2>/dev/null || ! chmod "$(runtime_install_mode "$source/$rel")" "$tmp" ||
    ! mv -f -- "$tmp" "$dest" || ! mv -f -- "$copy.datarim-new" "$copy"; then
    rm -f -- "$tmp" 2>/dev/null || :
    dr_err "$prog" "cannot write $dest"
    return 1
  fi
}

# runtime_install_mode <file>: 755 for an executable file, else 644.
runtime_install_mode() {
  if [ -x "$1" ]; then printf 755; else printf 644; fi
}

# runtime_install_target <prog> <flag-value> <out-var>: the runtime folder:
# --runtime, else $DATARIM_RUNTIME, else $HOME/.claude; never / or empty.
runtime_install_target() {
  local dr_rt_dir=${2:-${DATARIM_RUNTIME:-}}
  if [ -z "$dr_rt_dir" ]; then
    if [ -z "${HOME:-}" ]; then
      dr_err "$1" "HOME is not set; pass --runtime <dir>"
      return 1
    fi
    dr_rt_dir=$HOME/.claude
  fi
  while [ "${dr_rt_dir%/}" != "$dr_rt_dir" ] && [ "$dr_rt_dir" != / ]; do dr_rt_dir=${dr_rt_dir%/}; done
  case $dr_rt_dir in
    / | '')
      dr_err "$1" "refusing to install into / (set DATARIM_RUNTIME to the runtime folder)"
      return 1
      ;;
    /*) ;;
    *) dr_rt_dir=$PWD/$dr_rt_dir ;;
  esac
  printf -v "$3" '%s' "$dr_rt_dir"
}

# runtime_install_install <prog> <source> <runtime>: see the top.
runtime_install_install() {
  local prog=$1 source=$2 runtime=$3 backup=$3/.datarim-backup payload rel count=0 status=0 here
  runtime_install_payload "$source" payload
  if [ -L "$backup" ] || { [ -e "$backup" ] && [ ! -d "$backup" ]; }; then
    dr_err "$prog" "$backup is not a directory; refusing to use it"
    return 1
  fi
  if [ ! -d "$runtime" ]; then
    mkdir -p -- "$runtime" || {
      dr_err "$prog" "cannot create $runtime"
      return 1
    }
    mkdir -m 700 -- "$backup" && runtime_install_record "$backup/added" "./" || return 1
  fi
  here=$(cd -P -- "$source" && pwd -P)
  if [ -d "$runtime/dev-tools" ] && [ ! -L "$runtime/dev-tools" ] &&
    [ "$(cd -P -- "$runtime/dev-tools" && pwd -P)" = "$here/dev-tools" ]; then
    dr_err "$prog" "$runtime is this source tree; pass another runtime"
    return 1
  fi
  [ -d "$backup" ] || mkdir -m 700 -- "$backup" || {
    dr_err "$prog" "cannot create $backup"
    return 1
  }
  dr_lock_acquire "$prog" "$runtime/.datarim-backup.lock" 10 || return 1
  runtime_install_dirs "$prog" "$runtime" "$backup" || status=1
  if [ "$status" -eq 0 ]; then
    while IFS= read -r rel; do
      [ -n "$rel" ] || continue
      runtime_install_file "$prog" "$source" "$runtime" "$backup" "$rel" || {
        status=1
        break
      }
      count=$((count + 1))
    done <<<"$payload"
  fi
  dr_lock_release "$runtime/.datarim-backup.lock"
  if [ "$status" -ne 0 ]; then
    dr_err "$prog" "install stopped part-way; dev-tools/install.sh --restore puts back what it changed"
    return 1
  fi
  runtime_install_say "$count files installed into $runtime (dev-tools/, scripts/lib/)"
  runtime_install_say "what they replaced is kept in $backup; undo with: dev-tools/install.sh --restore"
}

# runtime_install_restore <prog> <runtime>: see the top.
runtime_install_restore() {
  local prog=$1 runtime=$2 backup=$2/.datarim-backup rel copy left=0 stored line seen=$'\n'
  if [ ! -d "$backup" ] || [ -L "$backup" ]; then
    runtime_install_say "nothing to restore in $runtime (no .datarim-backup)"
    return 0
  fi
  dr_lock_acquire "$prog" "$runtime/.datarim-backup.lock" 10 || return 1
  # Our files go, unless they changed since the install: a newer file wins
  # over the one kept from before.
  while IFS= read -r copy; do
    rel=${copy#"$backup/installed/"}
    rel=${rel%.datarim-new}
    case $seen in *$'\n'"$rel"$'\n'*) continue ;; esac
    seen=$seen$rel$'\n'
    [ -e "$runtime/$rel" ] || [ -L "$runtime/$rel" ] || continue
    if runtime_install_ours "$backup" "$runtime" "$rel"; then
      rm -f -- "$runtime/$rel"
    else
      runtime_install_say "kept $rel: it changed after the install"
      rm -f -- "$backup/files/$rel" 2>/dev/null || :
    fi
  done < <(find "$backup/installed" -type f -print 2>/dev/null | LC_ALL=C sort)
  # The temp files an install was killed before it moved into place.
  if [ -f "$backup/staged" ]; then
    while IFS= read -r rel; do
      if [ -f "$runtime/$rel" ] || [ -L "$runtime/$rel" ]; then rm -f -- "$runtime/$rel"; fi
    done <"$backup/staged"
  fi
  # The links of exploded directories.
  if [ -f "$backup/linked" ]; then
    while IFS= read -r rel; do
      [ ! -L "$runtime/$rel" ] || rm -f -- "$runtime/$rel"
    done <"$backup/linked"
  fi
  # What stood there before, back in its place.
  while IFS= read -r stored; do
    rel=${stored#"$backup/files/"}
    if [ -e "$runtime/$rel" ] || [ -L "$runtime/$rel" ]; then
      rm -f -- "$stored"
      continue
    fi
    mkdir -p -- "$(dirname -- "$runtime/$rel")" && mv -f -- "$stored" "$runtime/$rel" || left=1
  done < <(find "$backup/files" ! -type d -print 2>/dev/null | LC_ALL=C sort)
  # Directories the install created, deepest first, when empty (one may
  # stand in an exploded directory; none holds one).
  if [ -f "$backup/added" ]; then
    while IFS= read -r line; do
      case $line in */) rmdir -- "$runtime/${line%/}" 2>/dev/null || : ;; esac
    done < <(LC_ALL=C sort -r "$backup/added")
  fi
  # Exploded directories, deepest first, once nothing else is in them.
  if [ -f "$backup/exploded" ]; then
    while IFS= read -r rel; do
      if [ ! -e "$backup/dirs/$rel/.link" ] && [ ! -L "$backup/dirs/$rel/.link" ]; then
        continue # killed before the symlink was moved: it still stands in its place
      fi
      if [ ! -e "$runtime/$rel" ] && [ ! -L "$runtime/$rel" ]; then
        : # killed before the real directory was made in its place
      elif ! rmdir -- "$runtime/$rel" 2>/dev/null; then
        dr_err "$prog" "$runtime/$rel holds files added after the install; left as it is (its symlink is kept as $backup/dirs/$rel/.link)"
        left=1
        continue
      fi
      if runtime_install_has "$backup/linked" "$rel"; then
        rm -f -- "$backup/dirs/$rel/.link" # a link the explosion of its parent made
      else
        mv -f -- "$backup/dirs/$rel/.link" "$runtime/$rel" || left=1
      fi
    done < <(LC_ALL=C sort -r "$backup/exploded")
  fi
  dr_lock_release "$runtime/.datarim-backup.lock"
  if [ "$left" -ne 0 ] || [ -n "$(find "$backup/files" "$backup/dirs" ! -type d -print 2>/dev/null)" ]; then
    dr_err "$prog" "not everything could be put back; what is left is in $backup"
    return 1
  fi
  if runtime_install_has "$backup/added" "./"; then
    rm -rf -- "$backup"
    rmdir -- "$runtime" 2>/dev/null || :
  else
    rm -rf -- "$backup"
  fi
  runtime_install_say "restored $runtime as it was before the install"
}

# runtime_install_main [--restore] [--runtime <dir>]: the command line.
runtime_install_main() { dr_call runtime_install_main_body "$@"; } # with our shell options
runtime_install_main_body() {
  local prog=install status=0 finished runtime dir source
  local opt_restore='' opt_runtime=''
  dr_reader_flags "$prog" 2 finished "--restore --runtime=" "" "$@" || status=$?
  [ -z "$finished" ] || return "$status"
  runtime_install_target "$prog" "$opt_runtime" runtime || return 1
  if [ -n "$opt_restore" ]; then
    runtime_install_restore "$prog" "$runtime"
    return $?
  fi
  dr_lib_dir_into dir
  source=${dir%/scripts/lib}
  runtime_install_install "$prog" "$source" "$runtime"
}

[ -z "${_dr_aliases_runtime_install-}" ] || shopt -s expand_aliases
unset _dr_aliases_runtime_install
