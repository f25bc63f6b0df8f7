import { join } from "node:path";
import type { CodingAgent } from "../../../code/coding-agent.js";
import type { CustomCommand } from "../../../code/commands/index.js";
import { listMcpPrompts } from "../../../code/mcp-prompt-commands.js";
import { isPermissionMode, nextPermissionMode, type PermissionMode, permissionModes } from "../../../code/permissions/index.js";
import { defaultDataDirectory } from "../../../code/sessions/json-lines-session-store.js";
import { describeArguments, type McpPrompt } from "../../../mcp/index.js";
import { formatNumber } from "../../../text.js";
import { describeSandbox } from "../sandbox-status.js";
import type { CodeSessionContext } from "../session-context.js";
import { type SessionRules, sessionRuleSource } from "../session-rules.js";
import type { EditorMode } from "./editor-mode.js";
import { initPrompt } from "./init-prompt.js";
import { runMcpCommand } from "./mcp-command.js";
import { runModelCommand } from "./model-command.js";
import { diffText } from "./rewind-command.js";
import { describeMode, formatCost, shortNumber } from "./status-line.js";
import type { Style } from "./terminal.js";
import { flattenText, wrapToWidth } from "./text-width.js";

/** What the slash commands may do to the session. */
export type SlashHost = {
  readonly context: CodeSessionContext;
  readonly agent: CodingAgent;
  readonly rules: SessionRules;
  readonly style: Style;
  /** Prints lines of output (a final line break is added). */
  print(text: string): void;
  /** Sets the permission mode (and redraws the status line). */
  setMode(mode: PermissionMode): void;
  /** Starts a new conversation in a new session file. */
  clear(): Promise<void>;
  /** Offers the saved sessions (or opens the one named) and goes on with the chosen one. */
  resume(id: string | undefined): Promise<void>;
  /** `/rename [name]`: names the session (its title in /resume); without a name, says its title now. */
  rename(name: string): Promise<void>;
  /** `/rewind [n]`: goes back to before a checkpoint (chosen from a list without `n`), the code and/or the conversation. */
  rewind(args: string): Promise<void>;
  /**
   * Switches the session to another model from the next prompt (`/model <model>`), and redraws the status line.
   * Rejects, the session keeping its model, when it cannot be made.
   */
  switchModel(spec: string): Promise<void>;
  /** The terminal's width in columns, for text wrapped to it. */
  readonly columns: number;
  /** The model's context window, if known. */
  readonly contextWindow: number | undefined;
  /** Input tokens of the latest model call. */
  readonly contextTokens: number | undefined;
  /** When the session started (for /cost). */
  readonly startedAt: number;
  /** Sends `prompt` to the agent as the person's next turn (a command that asks the model for something). */
  prompt(prompt: string): Promise<void>;
  /** Runs something long (a login waiting for the browser) that Escape or Ctrl-C give up: they abort its signal. */
  cancellable<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** How the prompt is edited: the usual keys or vim's. */
  readonly editorMode: EditorMode;
  /** Sets the editor mode from the next prompt on, and remembers it in the user's config. */
  setEditorMode(mode: EditorMode): Promise<void>;
};

/** A command typed at the prompt as `/name [arguments]`. */
export type SlashCommand = {
  name: string;
  /** Other names it answers to. */
  aliases?: readonly string[];
  arguments?: string;
  summary: string;
  /** Runs it; `"exit"` ends the session. */
  run(host: SlashHost, args: string): Promise<"exit" | undefined> | "exit" | undefined;
};

export const slashCommands: readonly SlashCommand[] = [
  {
    name: "help",
    aliases: ["?"],
    summary: "show the commands and keys",
    run: async (host) => void host.print(helpText(host, await listMcpPrompts(host.agent.mcp))),
  },
  { name: "clear", summary: "start a new conversation (the old one stays saved)", run: async (host) => void (await host.clear()) },
  {
    name: "resume",
    arguments: "[id]",
    summary: "go on with a saved conversation of this folder",
    run: async (host, args) => void (await host.resume(args || undefined)),
  },
  {
    name: "rename",
    arguments: "[name]",
    summary: "name this conversation: its title in /resume (without a name: its title now)",
    run: async (host, args) => void (await host.rename(args)),
  },
  {
    name: "rewind",
    arguments: "[n]",
    summary: "go back to before a prompt: the files the agent changed, the conversation, or both (also esc esc)",
    run: async (host, args) => void (await host.rewind(args)),
  },
  {
    name: "diff",
    arguments: "[n]",
    summary: "what this session changed in the files (checkpoint n's changes only, with n)",
    run: async (host, args) => void host.print(await diffText(host.agent, host.style, args)),
  },
  {
    name: "init",
    summary: "have the agent read the project and write (or improve) AGENTS.md, shown as a diff to approve",
    run: async (host) => void (await host.prompt(initPrompt)),
  },
  { name: "cost", summary: "tokens and cost of this session", run: (host) => void host.print(costText(host)) },
  {
    name: "model",
    arguments: "[model]",
    summary: "the model in use, or switch to another (e.g. /model openai:gpt-5) from the next prompt",
    run: async (host, args) => void (await runModelCommand(host, args)),
  },
  {
    name: "permissions",
    summary: "the permission mode and the rules in force",
    run: (host) => void host.print(permissionsText(host)),
  },
  {
    name: "mode",
    arguments: "[mode]",
    summary: "cycle the permission mode (like shift+tab), or set one",
    run: (host, args) => {
      if (args && !isPermissionMode(args)) {
        host.print(host.style.yellow(`Unknown mode "${args}": choose one of ${permissionModes.join(", ")}.`));
        return undefined;
      }
      const mode = args ? (args as PermissionMode) : nextPermissionMode(host.agent.permissions.mode);
      host.setMode(mode);
      host.print(`Permission mode: ${describeMode(mode)}`);
      return undefined;
    },
  },
  {
    name: "compact",
    arguments: "[focus]",
    summary: "summarise the conversation before the next model call, focused on what you say",
    run: (host, args) => {
      const compactor = host.agent.compactor;
      if (!compactor) host.print(host.style.dim("Compaction is off for this session."));
      else {
        compactor.compactNow(args || undefined);
        host.print(
          host.style.dim(
            `The conversation will be compacted before the next model call${args ? `, the summary focused on: ${args}` : ""}.`,
          ),
        );
      }
      return undefined;
    },
  },
  {
    name: "memory",
    summary: "the memory files the agent was given (CLAUDE.md, AGENTS.md, MINAGENT.md and their @imports)",
    run: (host) => void host.print(memoryText(host)),
  },
  { name: "agents", summary: "the subagent types the agent can start", run: (host) => void host.print(agentsText(host)) },
  {
    name: "skills",
    summary: "the skills the model may load (SKILL.md folders) and their files",
    run: (host) => void host.print(skillsText(host)),
  },
  {
    name: "mcp",
    arguments: "[restart|login|logout <server>]",
    summary: "the MCP servers: their state, tools and problems; restart one, or log in to one that asks for OAuth",
    run: async (host, args) => void (await runMcpCommand(host, args)),
  },
  {
    name: "sandbox",
    summary: "the OS sandbox Bash commands run in: what it allows, and what is missing",
    run: (host) => void host.print(describeSandbox(host.agent.sandbox.status)),
  },
  {
    name: "vim",
    summary: "vim keys for the prompt, normal and insert modes (again: the usual keys)",
    run: async (host) => {
      const mode = host.editorMode === "vim" ? "normal" : "vim";
      try {
        await host.setEditorMode(mode);
      } catch (error) {
        host.print(host.style.yellow(`${(error as Error).message} (the mode holds for this session)`));
      }
      host.print(
        mode === "vim"
          ? "Vim mode on: Esc for normal mode, i to insert again. /vim turns it off."
          : "Vim mode off: the usual editing keys.",
      );
      return undefined;
    },
  },
  { name: "exit", aliases: ["quit"], summary: "leave (the conversation stays saved)", run: () => "exit" },
];

function memoryText(host: SlashHost): string {
  const files = host.agent.memory.files;
  if (files.length === 0)
    return host.style.dim(
      `No memory files. Write CLAUDE.md, AGENTS.md or MINAGENT.md at the project root, or AGENTS.md or MINAGENT.md in your own folder ${userDirectoryOf(host)} (for every project), and start a new session.`,
    );
  return files
    .map(
      (file) =>
        `${file.path}  ${file.error ? `(unreadable: ${file.error})` : `${formatNumber(file.bytes)} bytes${file.truncated ? " (cut)" : ""}`}${file.importedBy ? host.style.dim(`  imported by ${file.importedBy}`) : ""}`,
    )
    .concat(host.agent.memory.warnings.map((warning) => host.style.yellow(warning)))
    .join("\n");
}

function skillsText(host: SlashHost): string {
  const skills = host.agent.skills;
  if (skills.length === 0)
    return host.style.dim(
      "No skills. Put a folder with a SKILL.md in .claude/skills/ or .minagent/skills/ (or in ~/.claude/skills/) and start a new session.",
    );
  return skills
    .map(
      (skill) =>
        `${host.style.bold(skill.name)}  ${skill.description}${host.style.dim(`  ${skill.file}${skill.modelInvocable ? "" : " (for you only: the model does not load it)"}`)}`,
    )
    .join("\n");
}

function agentsText(host: SlashHost): string {
  const subagents = host.agent.subagents?.subagents() ?? [];
  if (subagents.length === 0) return host.style.dim("Subagents are off for this session.");
  // Wrapped at words to the terminal, each continuation under the description's indent: a terminal's own wrap cuts words.
  const wrap = (text: string, indent: string) => wrapToWidth(text, host.columns - 1, { indent, hangingIndent: "    " });
  const lines = subagents.flatMap((agent) => [
    ...wrap(
      `${agent.name}${agent.isDefault ? " (default)" : ""}${agent.readOnly ? " (read-only)" : ""}  ${flattenText(agent.description)}`,
      "",
    ),
    ...wrap(
      `tools: ${agent.tools.join(", ")} · model: ${agent.model}${agent.permissionMode ? ` · mode: ${agent.permissionMode}` : ""}${agent.color ? ` · ${agent.color}` : ""} · ${agent.source}`,
      "    ",
    ),
  ]);
  const where = `Add your own as Markdown files in .claude/agents/ or .minagent/agents/ (or ~/.claude/agents/, ${join(userDirectoryOf(host), "agents")}/).`;
  return [...lines, ...wrap(where, "").map((line) => host.style.dim(line))].join("\n");
}

/** The user's own minagent folder in use (MINAGENT_HOME, else ~/.minagent), as the session reads it. */
function userDirectoryOf(host: SlashHost): string {
  return defaultDataDirectory(host.context.io.env);
}

/** The command `name` names (without its slash), by name or alias. */
export function findSlashCommand(name: string): SlashCommand | undefined {
  return slashCommands.find((command) => command.name === name || command.aliases?.includes(name));
}

/**
 * The commands starting with what was typed (`/co` → /cost, /compact), the built-in ones first, then the custom
 * commands a built-in one does not shadow (their description as the summary).
 */
export function matchSlashCommands(
  typed: string,
  custom: readonly CustomCommand[] = [],
  prompts: readonly McpPrompt[] = [],
): Pick<SlashCommand, "name" | "summary">[] {
  if (!typed.startsWith("/") || /\s/.test(typed)) return [];
  const prefix = typed.slice(1);
  const customs = custom
    .filter((command) => !findSlashCommand(command.name))
    .map((command) => ({ name: command.name, summary: command.description }));
  const fromServers = prompts.map((prompt) => ({ name: prompt.command, summary: prompt.description ?? prompt.title ?? prompt.name }));
  return [...slashCommands, ...customs, ...fromServers].filter((command) => command.name.startsWith(prefix));
}

/** A line for each custom command a built-in one of the same name hides (the built-in one runs). */
export function shadowedCommandWarnings(custom: readonly CustomCommand[]): string[] {
  return custom
    .filter((command) => findSlashCommand(command.name))
    .map((command) => `/${command.name} is a built-in command, which wins over ${command.source}; rename the file to use it.`);
}

/** Where a custom command comes from, as Claude Code's /help says it: (project), (user), (project:frontend). */
function commandScope(command: CustomCommand): string {
  return `(${command.scope}${command.namespace ? `:${command.namespace}` : ""})`;
}

function helpText(host: SlashHost, prompts: readonly McpPrompt[]): string {
  const { style } = host;
  const commands = slashCommands.map((command) => {
    const name = `/${command.name}${command.arguments ? ` ${command.arguments}` : ""}`;
    return `  ${style.cyan(name.padEnd(19))} ${command.summary}`;
  });
  const custom = host.agent.commands.list
    .filter((command) => !findSlashCommand(command.name))
    .map((command) => {
      const name = `/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ""}`;
      return `  ${style.cyan(name.padEnd(19))} ${command.description} ${style.dim(commandScope(command))}`;
    });
  const keys = [
    ["enter", "send the prompt"],
    ["alt+enter, \\ enter", "a new line in the prompt"],
    ["esc, ctrl+c", "interrupt the agent (ctrl+c twice at an empty prompt leaves)"],
    ["esc esc", "at an empty prompt: /rewind"],
    ["/mode <mode>", `set a mode: ${permissionModes.join(", ")}`],
    ["shift+tab", "cycle the permission mode: default → accept edits → plan"],
    ["↑ ↓", "move through the lines, then earlier prompts (this folder's, kept across sessions)"],
    ["ctrl+r", "search earlier prompts (ctrl+r again: older, ctrl+s: newer, enter: edit it, esc: cancel)"],
    ["/vim", "vim keys: esc for normal mode (h j k l w b e 0 $ x dd cw p u…), i a o for insert"],
    ["ctrl+o", "the transcript: every tool call and output in full, subagents' steps too"],
    ["ctrl+d", "leave, at an empty prompt"],
  ].map(([key, what]) => `  ${style.cyan((key as string).padEnd(20))}${what}`);
  const customSection = custom.length > 0 ? ["", style.bold("Custom commands"), ...custom] : [];
  const promptLines = prompts.map((prompt) => {
    const name = `/${prompt.command}${prompt.arguments.length > 0 ? ` ${describeArguments(prompt)}` : ""}`;
    return `  ${style.cyan(name.padEnd(19))} ${prompt.description ?? prompt.title ?? prompt.name} ${style.dim(`(MCP: ${prompt.server})`)}`;
  });
  const promptSection = promptLines.length > 0 ? ["", style.bold("MCP prompts"), ...promptLines] : [];
  return [style.bold("Commands"), ...commands, ...customSection, ...promptSection, "", style.bold("Keys"), ...keys].join("\n");
}

function costText(host: SlashHost): string {
  const { usage, costUsd, byModel = [] } = host.context.spending;
  const number = (value: number) => formatNumber(value);
  const minutes = (Date.now() - host.startedAt) / 60_000;
  const lines = [
    `Total cost:     ${costUsd === undefined ? `no price known for ${host.context.model.id}` : `${formatCost(costUsd)} at list prices`}`,
    `Tokens:         ${number(usage.inputTokens)} in${usage.cacheReadTokens ? ` (${number(usage.cacheReadTokens)} cached)` : ""} · ${number(usage.outputTokens)} out`,
    `Session time:   ${minutes < 1 ? `${Math.round(minutes * 60)} s` : `${minutes.toFixed(1)} min`}`,
  ];
  if (host.contextTokens !== undefined)
    lines.push(
      `Context:        ${number(host.contextTokens)} tokens${host.contextWindow ? ` of ${shortNumber(host.contextWindow)} (${Math.round((100 * host.contextTokens) / host.contextWindow)}%)` : ""}`,
    );
  // Each model's share once more than one answered (a /model switch, a command's or a subagent's model).
  if (byModel.length > 1) {
    lines.push("By model:");
    const width = Math.max(...byModel.map((share) => share.modelId.length));
    for (const share of byModel)
      lines.push(
        `  ${share.modelId.padEnd(width)}  ${share.costUsd === undefined ? "no price known" : formatCost(share.costUsd)} · ${number(share.usage.inputTokens)} in · ${number(share.usage.outputTokens)} out · ${share.modelCalls} call${share.modelCalls === 1 ? "" : "s"}`,
      );
  }
  return lines.join("\n");
}

function permissionsText(host: SlashHost): string {
  const { style } = host;
  const permissions = host.agent.permissions;
  const { settings } = permissions;
  const lines = [`Mode: ${describeMode(permissions.mode)} (${permissions.mode})`];
  lines.push(`Settings files read: ${settings.files.length > 0 ? settings.files.join(", ") : "none"}`);
  for (const list of ["deny", "ask", "allow"] as const) {
    // The session's own rules are rules of the permissions too, listed under their source below.
    const rules = settings.rules[list].filter((rule) => rule.source !== sessionRuleSource);
    lines.push(style.bold(`${list[0]?.toUpperCase()}${list.slice(1)} rules`) + (rules.length === 0 ? style.dim(" (none)") : ""));
    for (const rule of rules) lines.push(`  ${rule.text}${style.dim(`  ${rule.source}`)}`);
  }
  if (host.rules.rules.length > 0) {
    lines.push(style.bold(`Allowed for ${sessionRuleSource}`));
    for (const rule of host.rules.rules) lines.push(`  ${rule}`);
  }
  lines.push(style.dim(`Directories: ${permissions.directories.join(", ")}`));
  return lines.join("\n");
}
