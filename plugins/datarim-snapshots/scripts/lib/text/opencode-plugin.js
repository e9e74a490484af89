// datarim-snapshots: zero-touch stage snapshots for opencode (docs/agent-runtimes.md).
// Written by `install-hooks --runtime opencode`; a new install replaces it.
// opencode has no shell hooks: this plugin turns its events into the payloads
// of the three hooks and runs them, so the hooks stay the one implementation.
import { spawn } from "node:child_process"

const HOOKS = {
  "session-start-hook": "@SESSION_START_HOOK@",
  "prompt-hook": "@PROMPT_HOOK@",
  "stop-hook": "@STOP_HOOK@",
}
// The hooks' own deadlines (install-hooks gives the other runtimes the same).
const SECONDS = { "session-start-hook": 10, "prompt-hook": 10, "stop-hook": 30 }

// The hook's standard output ("" when it failed or timed out): a hook never
// stops a turn.
function runHook(hook, payload, cwd) {
  return new Promise((resolve) => {
    let out = ""
    let child
    try {
      child = spawn("/bin/sh", ["-c", HOOKS[hook]], { cwd, stdio: ["pipe", "pipe", "ignore"] })
    } catch {
      resolve("")
      return
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), SECONDS[hook] * 1000)
    child.stdout.on("data", (chunk) => (out += chunk))
    child.on("error", () => {})
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve(code === 0 ? out : "")
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

function textOf(parts) {
  return (parts || []).filter((part) => part.type === "text" && !part.synthetic).map((part) => part.text).join("\n")
}

export const DatarimSnapshots = async ({ client, directory }) => {
  const started = Date.now()
  const commandTurns = new Set() // sessions whose prompt command.execute.before recorded
  const checked = new Set() // sessions already looked at for a resume
  const resumeAs = new Map() // session -> the SessionStart source to hand over
  const context = new Map() // session -> the resume text, until its turn ends
  // opencode calls `event` without awaiting it, and `opencode run` disposes of
  // its instance and exits as soon as the session is idle: `dispose`, which it
  // awaits, waits for the Stop hooks still under way (1.18.33).
  const stopping = new Set()

  const messages = async (sessionID) => {
    const result = await client.session.messages({ path: { id: sessionID } })
    return result.data || []
  }
  const prompt = (sessionID, text) =>
    runHook("prompt-hook", { hook_event_name: "UserPromptSubmit", session_id: sessionID, cwd: directory, prompt: text }, directory)

  return {
    // A command (`/dr-plan X`, `run --command dr-plan X`) reaches the model
    // as its expanded text: record the command as the operator typed it.
    "command.execute.before": async (input) => {
      commandTurns.add(input.sessionID)
      await prompt(input.sessionID, `/${input.command} ${input.arguments}`.trimEnd())
    },
    "chat.message": async (input, output) => {
      if (commandTurns.delete(input.sessionID)) return
      await prompt(input.sessionID, textOf(output.parts))
    },
    event: async ({ event }) => {
      const sessionID = event.properties && event.properties.sessionID
      if (!sessionID) return
      if (event.type === "session.compacted") {
        resumeAs.set(sessionID, "compact")
      } else if (event.type === "session.idle") {
        context.delete(sessionID)
        const stop = (async () => {
          const last = (await messages(sessionID)).filter((m) => m.info.role === "assistant").pop()
          if (!last) return
          await runHook("stop-hook", {
            hook_event_name: "Stop", session_id: sessionID, cwd: directory,
            last_assistant_message: textOf(last.parts),
          }, directory)
        })().catch(() => {}).finally(() => stopping.delete(stop))
        stopping.add(stop)
        await stop
      }
    },
    dispose: async () => {
      while (stopping.size) await Promise.all(stopping)
    },
    // A session this process did not start (`--continue`, `--session`) or one
    // just compacted gets the resume text in its system prompt, on every model
    // request of its next turn.
    "experimental.chat.system.transform": async (input, output) => {
      const sessionID = input.sessionID
      if (!sessionID) return
      if (!checked.has(sessionID)) {
        checked.add(sessionID)
        const earlier = (await messages(sessionID)).some((m) => m.info.role === "assistant" && m.info.time.created < started)
        if (earlier && !resumeAs.has(sessionID)) resumeAs.set(sessionID, "resume")
      }
      const source = resumeAs.get(sessionID)
      if (source) {
        resumeAs.delete(sessionID)
        const out = await runHook("session-start-hook", { hook_event_name: "SessionStart", session_id: sessionID, cwd: directory, source }, directory)
        try {
          const text = JSON.parse(out).hookSpecificOutput.additionalContext
          if (typeof text === "string" && text) context.set(sessionID, text)
        } catch {}
      }
      if (context.has(sessionID)) output.system.push(context.get(sessionID))
    },
  }
}
