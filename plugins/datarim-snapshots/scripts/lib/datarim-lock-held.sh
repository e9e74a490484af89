# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_lock.py
# The lock protocol for a lock found held (docs/lock-protocol.md, steps 3 to
# 5): sleeping between polls, reading and judging the holder's record, taking
# over the lock of a dead one. A free lock, what nearly every write finds,
# needs none of this, so it is not read with datarim-lock.sh: the stubs there
# load it on the first call of any of them (dr_autoload), and it defines them
# anew. Sourcing it defines dr_lock_* functions and nothing else.
declare -F dr_lock_claim >/dev/null 2>&1 && return 0

# Aliases off while this file is read (see datarim-common.sh).
if shopt -q expand_aliases; then _dr_aliases_datarim_lock_held=1 && shopt -u expand_aliases; fi

# dr_lock_owner_alive <pid> <start>: 0 when the process may be alive, 1 when
# it is provably gone (no such pid, a zombie, or the pid now names a process
# with another start time).
dr_lock_owner_alive() {
  local LC_ALL=C stat status=0 IFS=' '
  if [ -d /proc/self ]; then
    { IFS= read -r stat; } 2>/dev/null <"/proc/$1/stat" || return 1
    # shellcheck disable=SC2086
    set -- "$2" ${stat##*) }
    [ "$2" != Z ] || return 1
    [ -z "$1" ] || [ $# -lt 21 ] || [ "$1" = "${21}" ] || return 1
    return 0
  fi
  kill -0 "$1" 2>/dev/null && return 0
  # kill fails for another user's live process too; ps -p tells (1: no such process).
  ps -p "$1" >/dev/null 2>&1 || status=$?
  [ "$status" -ne 1 ]
}

# dr_lock_read_file <file> <out-var>: a lock file's bytes (at most 512); 1
# when there is no such file. Anything but a regular file (a FIFO would block
# the read, a symlink lead elsewhere) is never opened: it reads as "<not a
# regular file>"; a NUL ends the bytes with "<NUL>". Neither passes for a record.
dr_lock_read_file() {
  local LC_ALL=C lock_file_bytes='' nul=0
  if [ -L "$1" ] || { [ -e "$1" ] && [ ! -f "$1" ]; }; then
    printf -v "$2" '%s' '<not a regular file>'
    return 0
  fi
  { IFS= read -r -d '' -n 512 lock_file_bytes && nul=1; } 2>/dev/null <"$1" || [ -e "$1" ] || return 1
  # read stops at a NUL with 0, at the end with 1; 0 after exactly 512 bytes
  # says nothing of a NUL (and a record is never that long).
  if [ "$nul" = 1 ] && [ "${#lock_file_bytes}" -lt 512 ]; then lock_file_bytes+=$'\n<NUL>'; fi
  printf -v "$2" '%s' "$lock_file_bytes"
}

# dr_lock_is_record <bytes>: 0 when <bytes> is a complete owner record;
# BASH_REMATCH then holds its pid (1), host (2) and start (3).
dr_lock_is_record() {
  local LC_ALL=C re=$'^pid=([123456789][0123456789]{0,9})\nhost=([^\n]*)\nstart=([0123456789]*)\nimpl=[^\n]+\n$'
  [[ $1 =~ $re ]]
}

# dr_lock_read_owner <lock> <out-var>: dr_lock_read_file of <lock>/owner.
dr_lock_read_owner() {
  dr_lock_read_file "$1/owner" "$2"
}

# dr_lock_put_back <lock> <aside>: links a moved-aside record back as the
# owner file (never over one: ln fails when the name is taken), then drops the
# aside name.
dr_lock_put_back() {
  LC_ALL=C ln -- "$2" "$1/owner" 2>/dev/null || :
  rm -f -- "$2" 2>/dev/null || :
}

# dr_lock_take_over <lock> <record> <seen>: moves the owner file aside,
# and if it still holds <seen> deletes it and commits <record>; otherwise puts
# it back. 0 when the lock is now ours, 1 when it is not, 5 when our owner
# file could not be written (dr_lock_commit's I/O error).
dr_lock_take_over() {
  local LC_ALL=C aside moved=
  aside=$1/owner.aside.${BASHPID:-$$}.$RANDOM
  mv -f -- "$1/owner" "$aside" 2>/dev/null || return 1
  dr_lock_read_file "$aside" moved || :
  if [ "$moved" != "$3" ]; then
    # Not the record we judged: a live writer's. Give it back.
    dr_lock_put_back "$1" "$aside"
    return 1
  fi
  rm -rf -- "$aside" 2>/dev/null || :
  dr_lock_claim "$1" "$2"
}

# dr_lock_claim <lock> <record>: dr_lock_commit on a lock found orphaned; 0
# ours, 1 not ours (another waiter was first), 5 I/O error.
dr_lock_claim() {
  local status=0
  dr_lock_commit "$1" "$2" || status=$?
  case $status in 0) return 0 ;; 2) return 1 ;; *) return 5 ;; esac
}

# dr_lock_restore_asides <lock> <host>: a lock without an owner file may hold
# a record a waiter moved aside and did not put back (killed, or paused, in
# step 5 of the protocol). A complete record of a process that may be alive
# (or of another host) goes back as the owner; anything else is dropped.
# Returns 0 when it put a record back.
dr_lock_restore_asides() {
  local LC_ALL=C aside record restored=1
  for aside in "$1"/owner.aside.*; do
    [ -e "$aside" ] || [ -L "$aside" ] || continue
    record=
    dr_lock_read_file "$aside" record || continue
    if dr_lock_is_record "$record" && { [ "${BASH_REMATCH[2]}" != "$2" ] || [ -z "$2" ] ||
      dr_lock_owner_alive "${BASH_REMATCH[1]}" "${BASH_REMATCH[3]}"; }; then
      dr_lock_put_back "$1" "$aside"
      restored=0
    else
      rm -rf -- "$aside" 2>/dev/null || :
    fi
  done
  return "$restored"
}

# dr_lock_recover <lock> <record> <watch-var>: one look at a lock we could not
# make; 0 when it was orphaned and is now ours, 5 when it was and our owner
# file could not be written, 1 otherwise. <watch-var> carries what the
# earlier looks saw, from one call to the next, as "<polls> <since> <last>
# <seen>": how many polls in a row saw the same incomplete state <seen>
# (empty: none is being watched), and the dr_lock_clock at the first of them
# and at the latest. Start it as "0 0 0 ".
dr_lock_recover() {
  local LC_ALL=C DR_LOCK_ORPHAN_GRACE=2 seen host watch=${!3} polls since last watched now grace_us
  polls=${watch%% *}
  watch=${watch#* }
  since=${watch%% *}
  watch=${watch#* }
  last=${watch%% *}
  watched=${watch#* }
  dr_host_name host
  if dr_lock_read_owner "$1" seen; then
    if dr_lock_is_record "$seen"; then
      printf -v "$3" '%s' '0 0 0 '
      # Another host's writer (shared filesystem) or a live one: only wait.
      [ -n "$host" ] && [ "${BASH_REMATCH[2]}" = "$host" ] || return 1
      dr_lock_owner_alive "${BASH_REMATCH[1]}" "${BASH_REMATCH[3]}" && return 1
      dr_lock_take_over "$1" "$2" "$seen"
      return
    fi
    seen="file:$seen"
  else
    # A live writer's record moved aside by a waiter that died or stalled
    # there: put it back rather than count an ownerless lock.
    if dr_lock_restore_asides "$1" "$host"; then
      printf -v "$3" '%s' '0 0 0 '
      return 1
    fi
    seen=missing
  fi
  # No complete record: a writer between mkdir and its owner file, or one
  # killed there. Count the polls (and the clock, when polls run slow) that
  # saw the very same state on end. A look more than the grace after the one
  # before (this waiter was stopped or starved meanwhile) saw nothing of the
  # gap, where a live writer's record may have stood all along: it starts the
  # watch again. Looks a second apart (a sleep that takes whole seconds) go on.
  dr_lock_clock now
  grace_us=$((DR_LOCK_ORPHAN_GRACE * 1000000))
  if [ "$seen" != "$watched" ] || [ $((now - last)) -gt "$grace_us" ]; then
    printf -v "$3" '0 %s %s %s' "$now" "$now" "$seen"
    return 1
  fi
  polls=$((polls + 1))
  printf -v "$3" '%s %s %s %s' "$polls" "$since" "$now" "$seen"
  [ "$polls" -ge $((DR_LOCK_ORPHAN_GRACE * 50)) ] || [ $((now - since)) -gt "$grace_us" ] || return 1
  printf -v "$3" '%s' '0 0 0 '
  if [ "$seen" = missing ]; then
    dr_lock_claim "$1" "$2"
  else
    dr_lock_take_over "$1" "$2" "${seen#file:}"
  fi
}

# dr_lock_nap <ms>: waits <ms> milliseconds (1 to 999). Bash 4.1 and later
# read with that timeout from a private FIFO nobody writes to (opened at the
# first nap of a wait into dr_lock_acquire's dr_lock_nap_fd, its name removed
# at once): no fork a poll. Elsewhere `sleep 0.02` (or `sleep 1` where sleep
# takes whole seconds).
dr_lock_nap() {
  local fifo
  if [ -z "$dr_lock_nap_fd" ]; then
    dr_lock_nap_fd=-
    if [ "${BASH_VERSINFO[0]}" -gt 4 ] || { [ "${BASH_VERSINFO[0]}" -eq 4 ] && [ "${BASH_VERSINFO[1]}" -ge 1 ]; }; then
      fifo=${TMPDIR:-/tmp}/.datarim-nap.${BASHPID:-$$}.$RANDOM
      if LC_ALL=C mkfifo -m 600 -- "$fifo" 2>/dev/null; then
        { exec {dr_lock_nap_fd}<>"$fifo"; } 2>/dev/null || dr_lock_nap_fd=-
        rm -f -- "$fifo" 2>/dev/null || :
      fi
    fi
  fi
  if [ "$dr_lock_nap_fd" = - ]; then
    sleep 0.02 2>/dev/null || sleep 1
  else
    read -r -t "0.$(($1 / 100))$(($1 / 10 % 10))$(($1 % 10))" -u "$dr_lock_nap_fd" 2>/dev/null || :
  fi
}

[ -z "${_dr_aliases_datarim_lock_held-}" ] || shopt -s expand_aliases
unset _dr_aliases_datarim_lock_held
