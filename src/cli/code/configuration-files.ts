import type { CodingAgent } from "../../code/coding-agent.js";

/**
 * The configuration files a session's agent was made from, one line per kind — settings, memory (imports named with
 * the file importing them), agent files — for `--verbose`: someone coming from Claude Code sees at once which of
 * their `.claude/` files count. Kinds with no file say "none".
 */
export function describeConfigurationFiles(agent: CodingAgent): string[] {
  const list = (files: readonly string[]) => (files.length === 0 ? "none" : files.join(", "));
  const memory = agent.memory.files.map(
    (file) => `${file.path}${file.importedBy ? ` (imported by ${file.importedBy})` : ""}${file.error ? " (not read)" : ""}`,
  );
  const agents = (agent.subagents?.subagents() ?? []).map((subagent) => subagent.source).filter((source) => source !== "built-in");
  return [
    `settings files read: ${list(agent.permissions.settings.files)}`,
    `memory files read: ${list(memory)}`,
    `agent files read: ${list([...new Set(agents)])}`,
  ];
}
