# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_doctor.py
# doctor: why something resumed or did not (docs/doctor.md). For the
# workspace: the root the readers resolve and why (spec §8), whether it holds
# a knowledge base, its active tasks (so what the SessionStart hook does),
# every snapshot and session file with the validators' verdict, this
# project's hooks installed for Claude Code and Codex, the MCP clients that
# run its MCP server, and the last lines of the hooks' log. Every verdict comes from the validators and readers
# themselves; nothing here is a second copy of a rule. Twin of
# python/src/datarim_snapshot/_doctor.py.
#
#   doctor_main [--root <dir>] [--json]     0 healthy, 1 something to fix, 2 usage
#
# Sourcing defines doctor_* functions (plus those of the libraries it loads)
# and nothing else.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_doctor=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/datarim-common.sh
declare -F dr_source >/dev/null || case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/datarim-common.sh" ;; *) . ./datarim-common.sh ;; esac
dr_source snapshot-resume.sh session-handoff-validator.sh hook-state.sh

# doctor_shown <text> <out-var>: <text> fit for one record field: C0 and DEL
# (a TAB, a line end among them) as "?"; the other control characters, of
# more than one byte, doctor-render.awk shows as "?" once it has cut a log
# line to its length.
doctor_shown() {
  local LC_ALL=C
  printf -v "$2" '%s' "${1//[$'\001'-$'\037'$'\177']/?}"
}

# doctor_record <field>...: appends one TAB-separated record to the caller's
# doctor_records, each field passed through doctor_shown.
doctor_record() {
  local field shown_field line=''
  for field in "$@"; do
    doctor_shown "$field" shown_field
    line=$line${line:+$'\t'}$shown_field
  done
  doctor_records=$doctor_records$line$'\n'
}

# doctor_problem <text>: one thing to fix.
doctor_problem() {
  doctor_record problem "$1"
}

# doctor_resume_of <root> <task> <out-var>: what the SessionStart hook hands
# the agent for the one active task: the replay of its snapshot when that is
# valid (the resume's own reader decides), else its legacy context (which
# always holds datarim/activeContext.md, where the task is listed).
doctor_resume_of() {
  local state=missing status=0 after='after /clear, a compaction, a resume or a fork' snapshot=''
  resume_read_snapshot "$1" "$2" snapshot || status=$?
  if [ "$status" -eq 0 ]; then
    printf -v "$3" '%s' "the SessionStart hook resumes it from its snapshot $after"
    return 0
  fi
  [ "$status" -ne 2 ] || state=invalid
  printf -v "$3" '%s' "the SessionStart hook resumes it from its legacy context $after (its snapshot is $state)"
}

# doctor_active <root>: the active tasks and what the SessionStart hook makes of them.
doctor_active() {
  local active count=0 id resume IFS=$' \t\n'
  resume_active_tasks "$1" active
  for id in $active; do count=$((count + 1)); done
  if [ "$count" -eq 1 ]; then
    doctor_resume_of "$1" "$active" resume
  elif [ "$count" -gt 1 ]; then
    resume="the SessionStart hook lists the $count active tasks with their snapshots and asks which to resume (resume-task needs --task <ID>)"
  elif resume_active_context_unreadable "$1"; then
    resume='the SessionStart hook stays silent: datarim/activeContext.md cannot be read'
    doctor_problem 'datarim/activeContext.md cannot be read'
  elif [ -f "$1/datarim/activeContext.md" ]; then
    resume='the SessionStart hook stays silent: datarim/activeContext.md lists no task under "## Active Tasks"'
  else
    resume='the SessionStart hook stays silent: there is no datarim/activeContext.md'
  fi
  doctor_record tasks "$active" "$resume"
}

# doctor_artefacts <root> <kind>: every <name>.<kind>.md of datarim/<kind>s/,
# by name, with the validator's verdict.
doctor_artefacts() {
  local LC_ALL=C folder=datarim/$2s dir file name id msg status detail snapshot='' stage captured_at
  dir=$1/$folder
  if [ -L "$dir" ]; then
    doctor_record dir "$2s" symlink
    doctor_problem "$folder is a symlink: every reader refuses it"
    return 0
  fi
  if [ ! -e "$dir" ]; then
    doctor_record dir "$2s" absent
    return 0
  fi
  if [ ! -d "$dir" ] || [ ! -r "$dir" ] || [ ! -x "$dir" ]; then
    doctor_record dir "$2s" unreadable
    doctor_problem "$folder cannot be read"
    return 0
  fi
  doctor_record dir "$2s" read
  if [ "$2" = snapshot ]; then
    # Every snapshot judged in one awk process (snapshot_batch), its records
    # made there as below; its first line the newest valid captured_at.
    if ! snapshot_batch doctor "$dir" detail; then
      doctor_problem "$folder cannot be read"
      return 0
    fi
    name=${detail%%$'\n'*}
    [[ ! $name > $doctor_newest ]] || doctor_newest=$name
    doctor_records=$doctor_records${detail#*$'\n'}
    return 0
  fi
  for file in "$dir"/*."$2".md; do
    { [ -e "$file" ] || [ -L "$file" ]; } || continue
    name=${file##*/}
    id=${name%."$2".md}
    if [ "$2" = snapshot ]; then dr_task_id_ok "$id"; else dr_session_id_ok "$id"; fi || {
      if [ "$2" = snapshot ]; then detail='a task ID'; else detail='a session ID'; fi
      doctor_record file "$2s" "$name" ignored "its name is not $detail: no reader looks at it"
      continue
    }
    status=0
    detail=''
    if [ "$2" = snapshot ]; then
      if snapshot_read_file "$file" "$id" msg snapshot; then
        snapshot_field "$snapshot" stage stage
        snapshot_field "$snapshot" captured_at captured_at
        detail="$stage, $captured_at"
      else
        status=$?
      fi
    else
      session_check_file "$file" "$id" msg || status=$?
    fi
    if [ "$status" -eq 0 ]; then
      doctor_record file "$2s" "$name" valid "$detail"
      if [ "$2" = snapshot ] && [[ $captured_at > $doctor_newest ]]; then doctor_newest=$captured_at; fi
    else
      doctor_record file "$2s" "$name" invalid "$msg"
      doctor_problem "$folder/$name $msg"
    fi
  done
}

# doctor_program_fault <program> <out-var>: why the program of a hook command
# would not run; empty when it would, or when that cannot be told here (a
# variable in its path, a path relative to the runtime's working directory).
doctor_program_fault() {
  local program=$1 entry rest
  printf -v "$2" '%s' ''
  case $program in *'$'*) return 0 ;; esac
  # shellcheck disable=SC2088 # the literal "~/" a command names, which its shell expands
  case $program in '~/'*)
    case ${HOME:-} in /*) program=$HOME${program#'~'} ;; *) return 0 ;; esac
    ;;
  esac
  case $program in
    */*) ;;
    *)
      rest=${PATH:-}:
      while [ -n "$rest" ]; do
        entry=${rest%%:*}
        rest=${rest#*:}
        [ -f "${entry:-.}/$program" ] && [ -x "${entry:-.}/$program" ] && return 0
      done
      printf -v "$2" '%s is not on PATH' "$program"
      return 0
      ;;
  esac
  case $program in /*) ;; *) return 0 ;; esac
  if [ ! -f "$program" ]; then
    printf -v "$2" '%s is missing' "$program"
  elif [ ! -x "$program" ]; then
    printf -v "$2" '%s is not executable' "$program"
  fi
}

# doctor_read_json <file> [<program>]: reads a settings, MCP or enablement file
# with doctor-hooks.awk (then <program>, as doctor-mcp.awk; DR_* from the
# caller's environment) and sets the caller's locals state (absent, why it
# cannot be read, or '' when it was) and out (what the awk found, a line each).
doctor_read_json() {
  local dir status=0 nl=$'\n'
  local -a more=()
  state='' out=''
  if [ ! -e "$1" ] && [ ! -L "$1" ]; then
    state=absent
  elif [ ! -f "$1" ]; then
    state='not a regular file'
  elif [ ! -r "$1" ]; then
    state='cannot be read'
  else
    dr_lib_dir_into dir
    [ $# -lt 2 ] || more=(-f "$dir/$2")
    out=$(tr '\000\002' '\001\001' <"$1" | DR_LIMIT=1048576 awk -f "$dir/datarim-rules.awk" \
      -f "$dir/doctor-hooks.awk" ${more[@]+"${more[@]}"} -f "$dir/hook-payload.awk" 2>/dev/null) || status=$?
    state=${out%%"$nl"*}
    [ "$status" -eq 0 ] || state=json
    case $state in
      read) state='' ;;
      big) state='over 1 MiB, not read' ;;
      dup) state='repeats a name in an object' ;;
      *) state='not one strict JSON object' ;;
    esac
    out=${out#read}
    out=${out#"$nl"}
  fi
}

# doctor_read_settings <kind> <name> <file> [<program>]: doctor_read_json, then
# the file recorded (doctor_record <kind> <name> <file>: absent, unreadable or
# read). 1 when it was not read.
doctor_read_settings() {
  doctor_read_json "$3" ${4+"$4"}
  case $state in
    '') doctor_record "$1" "$2" "$3" read '' ;;
    absent) doctor_record "$1" "$2" "$3" absent '' ;;
    *) doctor_record "$1" "$2" "$3" unreadable "$state" ;;
  esac
  [ -z "$state" ]
}

# doctor_hook_file <runtime> <file>: our hooks in one settings file
# (doctor-hooks.awk reads it as install-hooks does), in the file's order.
doctor_hook_file() {
  local LC_ALL=C out state line kind event hook program prefixed command fault want claude=0 copilot=0
  [ "$1" = claude ] && claude=1
  [ "$1" = copilot ] && copilot=1
  DR_CLAUDE=$claude DR_COPILOT=$copilot DR_MCP='' doctor_read_settings hookfile "$1" "$2" || {
    [ "$state" = absent ] || doctor_problem "$2: $state"
    return 0
  }
  while IFS=$'\t' read -r kind event hook program prefixed command; do
    case $kind in
      H)
        doctor_program_fault "$program" fault
        case $1:$hook in
          copilot:session-start-hook) # also on PreCompact: it keeps the resume for the next prompt
            want=SessionStart
            [ "$event" != PreCompact ] || want=PreCompact
            ;;
          *:session-start-hook) want=SessionStart ;;
          gemini:prompt-hook) want=BeforeAgent ;; # Gemini CLI's names of the two events
          gemini:*) want=AfterAgent ;;
          *:prompt-hook) want=UserPromptSubmit ;;
          *) want=Stop ;;
        esac
        if [ -z "$fault" ] && [ "$event" != "$want" ]; then
          fault="it runs on $event; $hook belongs to $want"
        fi
        # Under Copilot these two read its payloads only when told so; the prompt hook needs nothing.
        if [ -z "$fault" ] && [ "$copilot$prefixed" = 10 ] && [ "$hook" != prompt-hook ]; then
          fault="without DATARIM_HOOK_RUNTIME=copilot it would read Copilot's payload as Claude Code's"
        fi
        doctor_record hook "$event" "$hook" "$command" "$fault"
        [ -z "$fault" ] || doctor_problem "$2: $event $hook: $fault"
        [ -n "$fault" ] || [ "$event" = PreCompact ] || doctor_installed="$doctor_installed$1 $hook"$'\t'"$2"$'\n'
        ;;
      P)
        doctor_record plugin "$event" "$hook"
        if [ "$hook" = true ]; then
          for want in session-start-hook prompt-hook stop-hook; do
            doctor_installed="$doctor_installed$1 $want"$'\t'"plugin $event"$'\n'
          done
        fi
        ;;
    esac
  done <<<"$out"
}

# doctor_twice: a hook of ours that a runtime runs more than once: the
# entries that would run (on their own event, their program there) in its
# settings files, and an enabled plugin (once, for all three hooks). Each one
# runs, so the resume text arrives as many times. Reads the caller's
# doctor_installed, "<runtime> <hook>\t<file or plugin key>" lines.
doctor_twice() {
  local runtime hook line where count places seen
  for runtime in claude codex gemini qwen copilot opencode; do
    for hook in session-start-hook prompt-hook stop-hook; do
      count=0
      places=''
      seen=$'\n'
      while IFS= read -r line; do
        [ "${line%%$'\t'*}" = "$runtime $hook" ] || continue
        where=${line#*$'\t'}
        case $seen in
          *$'\n'"$where"$'\n'*)
            # A plugin enabled in two files is one plugin; a file may run the hook twice.
            case $where in 'plugin '*) continue ;; esac
            ;;
          *)
            seen=$seen$where$'\n'
            places=${places:+$places, }$where
            ;;
        esac
        count=$((count + 1))
      done <<<"$doctor_installed"
      if [ "$count" -gt 1 ]; then
        doctor_problem "$runtime runs $hook $count times ($places); keep one"
      fi
    done
  done
}

# doctor_plugin_file <file>: the opencode plugin install-hooks writes: ours
# when its first line is the template's (then it runs all three hooks).
doctor_plugin_file() {
  local LC_ALL=C dir head='' want=''
  if [ ! -e "$1" ] && [ ! -L "$1" ]; then
    doctor_record hookfile opencode "$1" absent ''
    return 0
  fi
  dr_lib_dir_into dir
  IFS= read -r want <"$dir/text/opencode-plugin.js" || :
  # An empty file is read (and none of ours): read's status 1 at its end is no
  # failure. Its NUL bytes are dropped, as in the Python twin.
  if [ ! -f "$1" ] || [ ! -r "$1" ] || ! { { IFS= read -r head || :; } <"$1"; } 2>/dev/null; then
    doctor_record hookfile opencode "$1" unreadable 'cannot be read'
    doctor_problem "$1: cannot be read"
    return 0
  fi
  doctor_record hookfile opencode "$1" read ''
  if [ "$head" = "$want" ]; then
    doctor_record plugin datarim-snapshots true
    for want in session-start-hook prompt-hook stop-hook; do
      doctor_installed="${doctor_installed}opencode $want"$'\t'"$1"$'\n'
    done
  fi
}

# doctor_extension_dir <runtime> <dir> <root>: the folder `gemini extensions
# install` or `qwen extensions install` leaves for our extension
# (~/.<runtime>/extensions/datarim-snapshots): ours when it holds the CLI's
# manifest, <runtime>-extension.json; then all three hooks, unless the CLI's
# extension-enablement.json beside it disables it for <root>, as
# `<runtime> extensions disable` does (doctor-hooks.awk reads it).
doctor_extension_dir() {
  local LC_ALL=C want='' manifest=$1-extension.json state out enablement=${2%/*}/extension-enablement.json
  if [ ! -e "$2" ] && [ ! -L "$2" ]; then
    doctor_record hookfile "$1" "$2" absent ''
    return 0
  fi
  if [ ! -d "$2" ] || [ ! -f "$2/$manifest" ] || [ ! -r "$2/$manifest" ]; then
    doctor_record hookfile "$1" "$2" unreadable "no $manifest in it"
    doctor_problem "$2: no $manifest in it"
    return 0
  fi
  DR_MCP='' DR_WORKSPACE=$3 doctor_read_json "$enablement"
  case $state:$out in
    absent:* | :E$'\t'enabled) want=true ;;
    :E$'\t'disabled) want=false ;;
    :E$'\t'star) state='a datarim-snapshots rule has a * before its end, which doctor does not read' ;;
    :*) state='its datarim-snapshots entry is not {"overrides": [strings]}' ;;
  esac
  if [ -z "$want" ]; then
    doctor_record hookfile "$1" "$2" unreadable "extension-enablement.json: $state"
    doctor_problem "$enablement: $state"
    return 0
  fi
  doctor_record hookfile "$1" "$2" read ''
  doctor_record plugin datarim-snapshots "$want"
  [ "$want" = true ] || return 0
  for want in session-start-hook prompt-hook stop-hook; do
    doctor_installed="$doctor_installed$1 $want"$'\t'"$2"$'\n'
  done
}

# doctor_hooks <root>: the settings files the runtimes read, ours in each.
doctor_hooks() {
  local home=${HOME:-} codex=${CODEX_HOME:-} copilot=${COPILOT_HOME:-} config=${XDG_CONFIG_HOME:-} runtime
  case $home in /*) ;; *) home='' ;; esac
  case $copilot in /*) ;; *) copilot=${home:+$home/.copilot} ;; esac
  case $config in /*) ;; *) config=${home:+$home/.config} ;; esac
  [ -n "$codex" ] || codex=${home:+$home/.codex}
  [ -z "$home" ] || doctor_hook_file claude "$home/.claude/settings.json"
  doctor_hook_file claude "$1/.claude/settings.json"
  doctor_hook_file claude "$1/.claude/settings.local.json"
  [ -z "$codex" ] || doctor_hook_file codex "$codex/hooks.json"
  doctor_hook_file codex "$1/.codex/hooks.json"
  for runtime in gemini qwen; do
    [ -z "$home" ] || doctor_hook_file "$runtime" "$home/.$runtime/settings.json"
    doctor_hook_file "$runtime" "$1/.$runtime/settings.json"
    [ -z "$home" ] || doctor_extension_dir "$runtime" "$home/.$runtime/extensions/datarim-snapshots" "$1"
  done
  [ -z "$copilot" ] || doctor_hook_file copilot "$copilot/settings.json"
  [ -z "$config" ] || doctor_plugin_file "$config/opencode/plugin/datarim-snapshots.js"
  doctor_plugin_file "$1/.opencode/plugin/datarim-snapshots.js"
}

# doctor_mcp_file <client> <file> [<project>]: the MCP server of ours
# (`datarim-snapshot mcp`) in one MCP client's configuration file, read by
# doctor-mcp.awk; with <project>, Claude Code's ~/.claude.json, whose entry for
# that project counts too.
doctor_mcp_file() {
  local LC_ALL=C out state kind scope program command name fault mode=json local_scope=''
  case $2 in *.toml) mode=toml ;; esac
  [ $# -lt 3 ] || local_scope=1
  DR_MCP=$mode DR_LOCAL=$local_scope DR_PROJECT=${3-} doctor_read_settings mcpfile "$1" "$2" doctor-mcp.awk ||
    return 0
  while IFS=$'\t' read -r kind scope program command name; do
    [ "$kind" = M ] || continue
    doctor_program_fault "$program" fault
    doctor_record mcpserver "$name" "$scope" "$command" "$fault"
    [ -z "$fault" ] || doctor_problem "$2: MCP server $name: $fault"
  done <<<"$out"
}

# doctor_mcp <root>: the files where the MCP clients keep their servers.
doctor_mcp() {
  local home=${HOME:-} codex=${CODEX_HOME:-} client name
  case $home in /*) ;; *) home='' ;; esac
  [ -n "$codex" ] || codex=${home:+$home/.codex}
  [ -z "$home" ] || doctor_mcp_file claude "$home/.claude.json" "$1"
  doctor_mcp_file claude "$1/.mcp.json"
  [ -z "$codex" ] || doctor_mcp_file codex "$codex/config.toml"
  doctor_mcp_file codex "$1/.codex/config.toml"
  for client in gemini cursor; do
    case $client in gemini) name=.gemini/settings.json ;; *) name=.cursor/mcp.json ;; esac
    [ -z "$home" ] || doctor_mcp_file "$client" "$home/$name"
    doctor_mcp_file "$client" "$1/$name"
  done
}

# doctor_log: the lines of the hooks' log in its last 64 KiB (a line cut by
# that edge left out); doctor-render.awk shows the last ones. The log holds
# failures only: those logged after the newest valid snapshot (the caller's
# doctor_newest, the last sign that a hook worked; none: every one) are
# something to fix.
doctor_log() {
  local LC_ALL=C state file size tail_text line stamp failures=0
  local d='[0123456789]'
  if ! hook_state_dir state; then
    doctor_record log '' no-state-dir
    return 0
  fi
  file=$state/hooks.log
  if [ ! -e "$file" ]; then
    doctor_record log "$file" absent
    return 0
  fi
  if [ ! -f "$file" ] || [ ! -r "$file" ]; then
    doctor_record log "$file" unreadable
    return 0
  fi
  size=$(wc -c <"$file" 2>/dev/null) || size=0
  size=${size//[!0123456789]/}
  # The trailing "x" keeps the last line end; a NUL cannot live in a variable.
  tail_text=$(
    tail -c 65536 -- "$file" 2>/dev/null | tr '\000' '\001'
    printf x
  )
  tail_text=${tail_text%x}
  if [ "${size:-0}" -gt 65536 ]; then
    case $tail_text in *$'\n'*) tail_text=${tail_text#*$'\n'} ;; *) tail_text='' ;; esac
  fi
  if [ -z "$tail_text" ]; then
    doctor_record log "$file" empty
    return 0
  fi
  doctor_record log "$file" read
  while IFS= read -r line; do
    doctor_record logline "$line"
    stamp=${line:0:21}
    # shellcheck disable=SC2254 # $d is a pattern
    case $stamp in $d$d$d$d-$d$d-$d$d"T"$d$d:$d$d:$d$d"Z ")
      [[ ${stamp% } > $doctor_newest ]] && failures=$((failures + 1))
      ;;
    esac
  done <<<"${tail_text%$'\n'}"
  [ "$failures" -gt 0 ] || return 0
  if [ "$failures" -eq 1 ]; then stamp='1 failure'; else stamp="$failures failures"; fi
  if [ -n "$doctor_newest" ]; then
    doctor_problem "$file holds $stamp logged after the newest snapshot here ($doctor_newest)"
  else
    doctor_problem "$file holds $stamp, and no valid snapshot here"
  fi
}

# doctor_main: doctor's command line (see the top).
doctor_main() { dr_call doctor_main_body "$@"; } # with our shell options
doctor_main_body() {
  local prog=doctor status=0 finished root reason abs dir out doctor_records=''
  local doctor_newest='' doctor_installed=''
  local opt_root='' opt_json=''
  dr_reader_flags "$prog" 2 finished "--root= --json" "" "$@" || status=$?
  [ -z "$finished" ] || return "$status"
  if [ -n "$opt_root" ]; then
    if [ ! -d "$opt_root" ]; then
      dr_err "$prog" "--root is not a directory"
      return 2
    fi
    root=$opt_root
    reason=given
  else
    dr_discover_root root reason
    if dr_foreign_datarim "$root"; then
      dr_err "$prog" "the datarim/ of the working directory belongs to another user; pass --root to examine it"
      return 2
    fi
  fi
  abs=$(cd -P -- "$root" 2>/dev/null && pwd) || abs=$root
  doctor_record root "$abs" "$reason"
  if dr_is_knowledge_base "$abs/datarim"; then
    doctor_record kb "$abs/datarim" 1
  else
    doctor_record kb "$abs/datarim" 0
    doctor_problem "no knowledge base in $abs/datarim: nothing here resumes"
  fi
  doctor_active "$abs"
  doctor_artefacts "$abs" snapshot
  doctor_artefacts "$abs" session
  doctor_hooks "$abs"
  doctor_twice
  doctor_mcp "$abs"
  doctor_log
  dr_lib_dir_into dir
  status=0
  out=$(printf '%s' "$doctor_records" | DR_FORMAT=${opt_json:+json} LC_ALL=C \
    awk -f "$dir/datarim-rules.awk" -f "$dir/doctor-render.awk" && printf .) || status=$?
  # A stdout that cannot be written is bash's to report; the code stays.
  printf '%s' "${out%.}" || :
  [ "$status" -eq 0 ] || return 1
  case $doctor_records in *$'\n'problem$'\t'* | problem$'\t'*) return 1 ;; esac
  return 0
}

[ -z "${_dr_aliases_doctor-}" ] || shopt -s expand_aliases
unset _dr_aliases_doctor
