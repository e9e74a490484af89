# shellcheck shell=bash
# Python twin: python/src/datarim_snapshot/_prompt_hook.py
# The UserPromptSubmit hook of Claude Code and Codex (spec §9): records the
# turn's stage command for the Stop hook (stop-hook.sh), which captures the
# snapshot when the turn ends. The transcript is not always written yet when
# Stop runs, so the prompt is taken here, as typed.
#
#   prompt_hook < payload.json
#
# A prompt whose first word is /dr-<stage> (or Codex's /prompts:dr-<stage> or
# its skill mention $dr-<stage>), <stage> one of the writer's stages,
# replaces the session's turn record (hook-state.sh) with its stage, its
# first argument when that is a task ID and the payload's turn_id; any
# other prompt removes the record, so a record never outlives its turn into
# a later, plain one. Never blocks a prompt: it prints nothing and returns 0;
# a failure is one line in the hooks log. Twin of
# python/src/datarim_snapshot/_prompt_hook.py. Sourcing defines prompt_hook*
# functions (plus those of hook-state.sh) and nothing else.

# Aliases off while this file is read: a caller's alias (cd, rm, mv ...) would
# otherwise be built into our functions. Restored at the end of the file.
if shopt -q expand_aliases; then _dr_aliases_prompt_hook=1 && shopt -u expand_aliases; fi

# shellcheck source=scripts/lib/hook-state.sh
case ${BASH_SOURCE[0]} in */*) . "${BASH_SOURCE[0]%/*}/hook-state.sh" ;; *) . ./hook-state.sh ;; esac

# prompt_hook [-h|--help|--version]: the hook (see the top). Always returns 0.
prompt_hook() {
  hook_load_common
  dr_call prompt_hook_body "$@" # with our shell options
}
prompt_hook_body() {
  local state fields msg sid turn command stage task file disabled=''
  hook_opening prompt-hook recorded "$@" && return 0
  if ! hook_state_dir state; then
    hook_drain
    return 0
  fi
  if [ "${DATARIM_DISABLE_SNAPSHOT:-}" = 1 ] || [ "${DATARIM_DISABLE_STOP_HOOK:-}" = 1 ]; then
    disabled=1
  fi
  # Disabled, the hook records nothing; it still hands over a pending resume.
  if [ -n "$disabled" ] && ! hook_resume_pending "$state"; then
    hook_drain
    return 0
  fi
  if ! hook_payload_session "$state" fields sid file msg \
    "session_id turn_id hook_event_name" '' '' "submitted_prompt prompt"; then
    [ -z "$disabled" ] || return 0
    hook_turns_clear_all "$state" msg
    hook_log "$state" prompt-hook "$msg"
    return 0
  fi
  prompt_hook_resume "$state" "$sid" "$fields"
  [ -z "$disabled" ] || return 0
  hook_line "$fields" 4 command
  case $command in
    p)
      hook_turn_clear "$file"
      return 0
      ;;
    c*) ;;
    *)
      hook_turn_clear "$file"
      hook_log "$state" prompt-hook "payload has no usable prompt; nothing recorded"
      return 0
      ;;
  esac
  command=${command#c}
  stage=${command%% *}
  task=${command#* }
  hook_line "$fields" 2 turn
  case $turn in s*) turn=${turn#s} ;; *) turn='' ;; esac
  if ! hook_turn_write "$file" "$stage" "$task" "$turn"; then
    hook_turn_clear "$file"
    hook_log "$state" prompt-hook "cannot write the turn record of session $sid; /dr-$stage not recorded"
  fi
  return 0
}

# prompt_hook_resume <state> <session-id> <fields>: the session's pending
# resume (a /clear's, session-start-hook.sh), taken once: Gemini CLI's
# BeforeAgent gets it as its additionalContext (Gemini drops SessionStart's
# after an interactive /clear); any other prompt event only removes it (those
# CLIs gave the model SessionStart's context). One kept by GitHub Copilot
# CLI's PreCompact, already in Copilot's form ({"additionalContext":...}), is
# printed as it is: Copilot gives the prompt hook's context to the model.
prompt_hook_resume() {
  local text event from='{"hookSpecificOutput":{"hookEventName":"SessionStart",'
  hook_resume_take "$1" "$2" text || return 0
  case $text in '{"additionalContext":'*)
    printf '%s' "$text" 2>/dev/null || :
    return 0
    ;;
  esac
  hook_line "$3" 3 event
  [ "$event" = sBeforeAgent ] || return 0
  case $text in "$from"*) ;; *) return 0 ;; esac
  printf '%s%s' '{"hookSpecificOutput":{"hookEventName":"BeforeAgent",' "${text#"$from"}" 2>/dev/null || :
}

[ -z "${_dr_aliases_prompt_hook-}" ] || shopt -s expand_aliases
unset _dr_aliases_prompt_hook
