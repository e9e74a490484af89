# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_lock.py
# The mkdir lock protocol every writer holds while it publishes
# (docs/lock-protocol.md).
# datarim-common.sh loads this file; sourcing it defines dr_* functions and
# nothing else, and the second time costs nothing.
declare -F dr_lock_acquire >/dev/null 2>&1 && return 0

# Aliases off while this file is read (see datarim-common.sh).
if shopt -q expand_aliases; then _dr_aliases_datarim_lock=1 && shopt -u expand_aliases; fi

# The lock protocol (docs/lock-protocol.md has it step by step):
# the lock is the directory <lock>, made with mkdir; a writer holds it once it
# has also created <lock>/owner exclusively (O_EXCL) with its owner record
#   pid=<pid>\nhost=<host>\nstart=<kernel start time of pid, or empty>\nimpl=<bash|python>\n
# A waiter may take over a lock that is provably orphaned: a complete record
# of a dead process on this host (the record is moved aside, re-read and
# compared before the waiter creates its own owner file), or a lock seen
# without a complete record for DR_LOCK_ORPHAN_GRACE seconds on end (looks at
# most that long apart).

# What a lock found held needs is in datarim-lock-held.sh, which a free lock
# never reads: each of these loads it on its first call, defining them all anew.
dr_lock_nap() { dr_autoload datarim-lock-held.sh dr_lock_nap "$@"; }
dr_lock_recover() { dr_autoload datarim-lock-held.sh dr_lock_recover "$@"; }
dr_lock_read_owner() { dr_autoload datarim-lock-held.sh dr_lock_read_owner "$@"; }

# dr_lock_timeout <program> <env-name> <out-var>: the lock timeout in seconds
# from <env-name> (unset or empty: 60); reports and returns 1 when it is not
# a whole number.
dr_lock_timeout() {
  dr_seconds_env "$2" 60 "$3" && return 0
  dr_err "$1" "$2 must be a whole number of seconds"
  return 1
}

# dr_process_start <pid> <out-var>: the kernel's start time of <pid> (field 22
# of /proc/<pid>/stat), or empty where /proc is absent. With the pid it tells
# a live owner from a later process that happens to reuse the number.
dr_process_start() {
  local stat out=$2 IFS=' '
  printf -v "$out" '%s' ''
  [ -r "/proc/$1/stat" ] || return 0
  IFS= read -r stat <"/proc/$1/stat" 2>/dev/null || return 0
  # Fields after "(comm) ": state is field 3, so starttime (22) is the 20th.
  # shellcheck disable=SC2086
  set -- ${stat##*) }
  if [ $# -ge 20 ]; then printf -v "$out" '%s' "${20}"; fi
}

# dr_host_name <out-var>: the kernel's host name (what Python's gethostname gives).
dr_host_name() {
  local name=
  { IFS= read -r name || :; } 2>/dev/null </proc/sys/kernel/hostname || :
  printf -v "$1" '%s' "${name:-${HOSTNAME:-}}"
}

# dr_lock_commit <lock> <record>: creates <lock>/owner exclusively. 0 created,
# 2 not ours: an owner file is already there (a lost race, which a network
# filesystem may report as EPERM rather than EEXIST) or the lock directory is
# gone (another host's removal that this host's cached view still hides shows
# as ENOENT), 1 I/O error: the owner file could not be made, or made but not
# written (a full disk), and then it is removed again, never left as an empty
# record.
dr_lock_commit() {
  local restore='' opened='' written='' why
  case $- in *C*) ;; *) restore=1 && set -C ;; esac
  # 2>/dev/null first, so that a failed redirection prints nothing either.
  { opened=1 && printf '%s' "$2" >&3 && written=1; } 2>/dev/null 3>"$1/owner" || :
  [ -z "$restore" ] || set +C
  [ -n "$written" ] && return 0
  if [ -n "$opened" ]; then
    rm -f -- "$1/owner" 2>/dev/null || :
    return 1
  fi
  if [ -e "$1/owner" ] || [ -L "$1/owner" ] || [ ! -d "$1" ]; then return 2; fi
  # Neither tells why: a second try (in a child, on this rare path) does.
  why=$(LC_ALL=C && set -C && { printf '%s' "$2" >&3 && echo created; } 2>&1 3>"$1/owner") || :
  case $why in
    created) return 0 ;;
    *'No such file'* | *'not permitted'* | *'existing file'* | *'File exists'*) return 2 ;;
    *'write error'*) rm -f -- "$1/owner" 2>/dev/null || : ;;
  esac
  return 1
}

# dr_lock_clock <out-var>: the time in microseconds, by which a waiter times
# its looks: bash 5's EPOCHREALTIME, else SECONDS in whole seconds (so
# "more than N seconds" by it is more than N seconds indeed: it tells every
# span late, never early).
dr_lock_clock() {
  local realtime=''
  if [ "${BASH_VERSINFO[0]}" -ge 5 ]; then
    realtime=${EPOCHREALTIME:-}
  fi
  if [ -n "$realtime" ]; then
    printf -v "$1" '%s' "${realtime//[.,]/}"
  else
    printf -v "$1" '%s' "$((SECONDS * 1000000))"
  fi
}

# dr_lock_path_ok <program> <lock-dir>: 1 after reporting a lock path we must
# never wait for: a symlink or a file that is no lock, or no lock at all in a
# directory we may not create it in (not writable, or not searchable). (Each
# test names a kind, so a lock released meanwhile is no match; when the
# directory is writable, the holder just released it.) The write asks after
# a failed mkdir, a dry run before any.
dr_lock_path_ok() {
  if [ -L "$2" ] || [ -f "$2" ] || [ -p "$2" ] || [ -S "$2" ] || [ -b "$2" ] || [ -c "$2" ]; then
    dr_err "$1" "lock ${2##*/} is a symlink or not a directory; remove it"
    return 1
  fi
  if [ ! -d "$2" ] && { [ ! -w "${2%/*}" ] || [ ! -x "${2%/*}" ]; }; then
    dr_err "$1" "cannot create lock ${2##*/}"
    return 1
  fi
}

# dr_lock_acquire <program> <lock-dir> <timeout-seconds> [<recovered-var>]:
# takes the lock, polling every 20 to 120 ms (backing off, with jitter); 0
# held, 1 cannot lock, 3 timed out. A live writer's lock is never broken; an
# orphaned one is taken over (see above), and then <recovered-var> is set to 1.
dr_lock_acquire() {
  local status=0 dr_lock_nap_fd=''
  [ -z "${4:-}" ] || printf -v "$4" '%s' ''
  dr_lock_wait "$@" || status=$?
  # A descriptor only bash 4.1 and later opened (dr_lock_nap).
  if [ "${dr_lock_nap_fd:--}" != - ] && [ "${BASH_VERSINFO[0]}" -ge 4 ]; then
    exec {dr_lock_nap_fd}<&-
  fi
  return "$status"
}

# dr_lock_wait: dr_lock_acquire's loop. A lock seen held is looked at (its
# owner read and judged, dr_lock_recover) at the first poll that sees it and
# then once half a second has passed since the last look; the polls between
# only see whether it is still there.
dr_lock_wait() {
  local prog=$1 lock=$2 tries pid start host record status mkdir_error began now looked='' lost=0 spread=0
  local races_lost=0
  # shellcheck disable=SC2034 # dr_lock_recover reads and sets it by name
  local lock_watch='0 0 0 '
  tries=$(($3 * 50))
  dr_lock_clock began
  pid=${BASHPID:-$$}
  dr_process_start "$pid" start
  dr_host_name host
  record="pid=$pid"$'\n'"host=$host"$'\n'"start=$start"$'\n'"impl=bash"$'\n'
  while :; do
    # When mkdir fails, a second one says why: "File exists" (a lock is
    # there: wait, or refuse what is no lock) or any other failure (a full
    # disk, a read-only one), which is final at once, as Python's OSError is.
    # A lock already there is seen without a fork: bash loses a Ctrl-C that
    # lands between a child's fork and its exec (it waits for the child, which
    # exits 1 as if it had handled the signal), and a contended poll would
    # fork a short child 50 times a second. A mkdir lost to another waiter
    # (the lock is there right after it) needs no second one either.
    #
    # A waiter that has lost such races before waits a random 1 to 4, 8, 12
    # or at most 16 ms (more for each loss) before it tries a free lock, and
    # looks again: when a lock is released, every waiter that polls before
    # the winner's mkdir lands starts one (64 writers on one task, under
    # load: five lost mkdirs a release).
    mkdir_error=
    if [ -d "$lock" ] && [ ! -L "$lock" ]; then
      mkdir_error='File exists'
    elif [ "$races_lost" -gt 0 ] && dr_lock_nap $((1 + RANDOM % (races_lost * 4))) &&
      [ -d "$lock" ] && [ ! -L "$lock" ]; then
      mkdir_error='File exists'
    elif ! LC_ALL=C mkdir -m 700 -- "$lock" 2>/dev/null; then
      if [ -d "$lock" ] && [ ! -L "$lock" ]; then
        mkdir_error='File exists'
        [ "$races_lost" -ge 4 ] || races_lost=$((races_lost + 1))
      elif ! mkdir_error=$(LC_ALL=C exec mkdir -m 700 -- "$lock" 2>&1); then
        mkdir_error=${mkdir_error:-failed}
      fi # else the second made it: ours
    fi
    if [ -z "$mkdir_error" ]; then
      status=0
      dr_lock_commit "$lock" "$record" || status=$?
      [ "$status" -eq 0 ] && return 0
      if [ "$status" -eq 1 ]; then
        rmdir -- "$lock" 2>/dev/null || :
        dr_err "$prog" "cannot record the owner of lock ${lock##*/}"
        return 1
      fi
      # 2: a waiter took our fresh lock over before we wrote the owner (we
      # stalled for the grace period); it is theirs now.
    elif ! dr_lock_path_ok "$prog" "$lock"; then
      return 1
    elif [ "${mkdir_error#*File exists}" = "$mkdir_error" ]; then
      # EPERM is how a network filesystem (sshfs) may report a mkdir another
      # writer won: look again, a few times in a row, before calling it final.
      if [ "${mkdir_error#*not permitted}" = "$mkdir_error" ] || [ "$lost" -ge 3 ]; then
        dr_err "$prog" "cannot create lock ${lock##*/}"
        return 1
      fi
      lost=$((lost + 1))
    elif [ -n "$looked" ] && dr_lock_clock now && [ $((now - looked)) -lt 500000 ]; then
      # Looked at it less than half a second ago: polls in between only see
      # whether it is still there (a stat), not whose it is (its owner file
      # read and judged, some 0.5 ms: most of a contended waiter's CPU).
      lost=0
    else
      lost=0
      status=0
      dr_lock_clock looked
      dr_lock_recover "$lock" "$record" lock_watch || status=$?
      if [ "$status" -eq 0 ]; then
        [ -z "${4:-}" ] || printf -v "$4" '%s' 1
        return 0
      fi
      if [ "$status" -eq 5 ]; then
        rmdir -- "$lock" 2>/dev/null || :
        dr_err "$prog" "cannot record the owner of lock ${lock##*/}"
        return 1
      fi
    fi
    # Polls at least 20 ms apart, so 50 of them take a second or more; the
    # clock besides, when polls run slow (a loaded machine). The clock that
    # times the orphan grace, so that a timeout shorter than the grace always
    # comes first (whole SECONDS could run a 1 s wait past the 2 s grace).
    dr_lock_clock now
    if [ "$tries" -le 0 ] || [ $((now - began)) -gt $(($3 * 1000000)) ]; then
      dr_err "$prog" "lock busy: another writer holds ${lock##*/} (waited $3 s); retry later"
      return 3
    fi
    tries=$((tries - 1))
    # 20 ms plus a random part up to a spread that about doubles with each
    # poll to 100 ms: many waiters spread their polls over time rather than
    # all retry at once, and a released lock is soon taken (a poll that only
    # stats the lock costs microseconds; docs/lock-protocol.md, step 3).
    dr_lock_nap $((20 + RANDOM % (spread + 1)))
    spread=$((spread * 2 + 10))
    [ "$spread" -le 100 ] || spread=100
  done
}

# dr_lock_release <lock-dir>: removes the lock with whatever is in it. Tries
# again when a waiter that had moved our owner file aside puts it back meanwhile.
dr_lock_release() {
  LC_ALL=C rm -rf -- "$1" 2>/dev/null || LC_ALL=C rm -rf -- "$1" 2>/dev/null ||
    LC_ALL=C rm -rf -- "$1" 2>/dev/null || :
}

[ -z "${_dr_aliases_datarim_lock-}" ] || shopt -s expand_aliases
unset _dr_aliases_datarim_lock
