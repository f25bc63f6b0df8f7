import type { CodingAgent } from "../../code/coding-agent.js";

/**
 * The configuration files a session's agent was made from, one line per kind — settings, memory (imports named with
 * the file importing them), agent files, custom commands, skills — for `--verbose`: someone coming from Claude Code sees at once which of
 * their `.claude/` files count. Kinds with no file are left out; with none at all, one line says so.
 */
export function describeConfigurationFiles(agent: CodingAgent): string[] {
  const list = (files: readonly string[]) => files.join(", ");
  const memory = agent.memory.files.map(
    (file) => `${file.path}${file.importedBy ? ` (imported by ${file.importedBy})` : ""}${file.error ? " (not read)" : ""}`,
  );
  const agents = (agent.subagents?.subagents() ?? []).map((subagent) => subagent.source).filter((source) => source !== "built-in");
  const kinds: [string, readonly string[]][] = [
    ["settings", agent.permissions.settings.files],
    ["memory", memory],
    ["agent", [...new Set(agents)]],
    ["command", agent.commands.list.map((command) => command.source)],
    ["skill", agent.skills.map((skill) => skill.file)],
  ];
  const lines = kinds.flatMap(([kind, files]) => (files.length === 0 ? [] : [`${kind} files read: ${list(files)}`]));
  return lines.length === 0 ? ["configuration files read: none (settings, memory, agents, commands, skills)"] : lines;
}
