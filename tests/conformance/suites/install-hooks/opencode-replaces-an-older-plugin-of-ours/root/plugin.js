// datarim-snapshots: zero-touch stage snapshots for opencode (docs/agent-runtimes.md).
// (An older release of the plugin: its first line is what makes it ours.)
const HOOKS = {
  "stop-hook": "/old/checkout/dev-tools/stop-hook.sh",
}
export const DatarimSnapshots = async () => ({})
