import { stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { CanUseTool, PermissionDecision, ToolCall, ToolExecutor } from "../../engine.js";
import { toOneLine } from "../../text.js";
import type { CodePermissions } from "../permissions/index.js";
import type { Workspace } from "../workspace.js";
import type { CustomCommand } from "./custom-command.js";
import type { CommandExpansionTools } from "./expand-custom-command.js";

/** What of a CodingAgent a command's files and shell lines go through (a CodingAgent is one). */
export type CommandToolParts = {
  workspace: Workspace;
  /** The agent's tools: its Read reads `@path` files and its Bash runs shell lines (PostToolUse hooks included). */
  registry: ToolExecutor;
  /** The agent whose `canUseTool` judges every read and shell line: PreToolUse hooks, the rules and mode, the person. */
  agent: { options: { canUseTool?: CanUseTool | undefined } };
};

/**
 * The agent's way to expand commands: an `@path` is read with the agent's own Read tool and a shell line runs with
 * its own Bash tool (in the OS sandbox when the session has one, in the shell's current folder, with the settings'
 * environment), each judged by the agent's `canUseTool` exactly as the model's call would be: a PreToolUse hook or a
 * deny rule refuses it, an ask goes to the person (`askPerson`; `-p` refuses it), and without a person to ask it does
 * not run. A path outside the workspace is never read.
 */
export function createCommandTools(parts: CommandToolParts): CommandExpansionTools {
  const canUseTool = parts.agent.options.canUseTool;
  return {
    readFile: async (path, { signal }) => {
      let absolute: string;
      try {
        absolute = await parts.workspace.resolve(path);
      } catch (error) {
        return { note: `@${path} was not included: ${oneLine(error)}` };
      }
      if ((await stat(absolute).catch(() => undefined)) === undefined) {
        // `@types/node` or `@Component` in prose names no file: only a path whose folder is there is worth a note.
        const folder = await stat(dirname(absolute)).catch(() => undefined);
        return folder?.isDirectory() && /[./]/.test(path) ? { note: `@${path} was not included: there is no such file.` } : undefined;
      }
      const outcome = await readWithReadTool(parts, absolute, signal);
      if ("note" in outcome) return { note: `@${path} was not included: ${outcome.note}` };
      return { text: outcome.content, path: parts.workspace.display(absolute) };
    },
    runShell: async (shellCommand, { signal, command }) => {
      const description = `a shell line of /${command.name}, run before its prompt is sent`;
      const outcome = await decided(parts.registry, call("Bash", { command: shellCommand, description }), canUseTool, signal);
      if ("note" in outcome) return { note: `!\`${toOneLine(shellCommand, 80)}\` did not run: ${outcome.note}` };
      return { output: commandOutput(outcome.content) };
    },
  };
}

/**
 * Reads `absolute` with the agent's Read tool, judged by its `canUseTool` as the model's call would be: the Read
 * tool's output, or why it may not be read (a deny rule, a hook, an approval nobody is there to give).
 */
export function readWithReadTool(
  parts: CommandToolParts,
  absolute: string,
  signal: AbortSignal | undefined,
): Promise<{ content: string } | { note: string }> {
  return decided(parts.registry, call("Read", { file_path: absolute }), parts.agent.options.canUseTool, signal);
}

function call(name: string, args: Record<string, unknown>): ToolCall {
  return { id: `command_${globalThis.crypto.randomUUID()}`, name, arguments: args };
}

/** Runs a call through the agent's permission check: its result, or why it did not run. */
async function decided(
  registry: ToolExecutor,
  toolCall: ToolCall,
  canUseTool: CanUseTool | undefined,
  signal: AbortSignal | undefined,
): Promise<{ content: string } | { note: string }> {
  let decision: PermissionDecision | undefined;
  const watched: CanUseTool | undefined = canUseTool && (async (request, context) => (decision = await canUseTool(request, context)));
  const outcome = await registry.execute(toolCall, { canUseTool: watched, signal });
  if ("pending" in outcome)
    return { note: `it needs approval${outcome.reason ? ` (${outcome.reason})` : ""}, and there is nobody to ask here` };
  const refused = decision?.behavior === "deny" || (outcome.isError && decision === undefined && canUseTool !== undefined);
  return refused ? { note: toOneLine(outcome.content, 400) } : { content: outcome.content };
}

/** The Bash tool's observation as a shell line's output: without `Exit code: 0` (a failure keeps its exit code). */
function commandOutput(observation: string): string {
  const match = /^([\s\S]*?)\n\nExit code: 0(\n[\s\S]*)?$/.exec(observation);
  if (!match) return observation;
  return `${match[1] === "(no output)" ? "" : match[1]}${match[2] ?? ""}`;
}

function oneLine(error: unknown): string {
  return toOneLine(error instanceof Error ? error.message : String(error), 300);
}

/** The source the allow rules of a command's `allowed-tools` have while it runs (`/permissions` lists them under it). */
export function allowedToolsSource(command: CustomCommand): string {
  return `allowed-tools of /${command.name} (${command.source})`;
}

/**
 * Runs `work` with `rules` as allow rules of `permissions`, from the source `source`, and takes them away when it
 * ends (however it ends): a command's `allowed-tools` hold for its own run. Deny and ask rules still beat them.
 */
export async function withAllowRules<T>(
  permissions: CodePermissions,
  rules: readonly string[],
  source: string,
  work: () => Promise<T>,
): Promise<T> {
  if (rules.length === 0) return work();
  const list = permissions.settings.rules.allow;
  const before = new Set(list);
  permissions.addRules({ allow: rules }, source);
  const added = list.filter((rule) => !before.has(rule));
  try {
    return await work();
  } finally {
    for (const rule of added) {
      const index = list.indexOf(rule);
      if (index !== -1) list.splice(index, 1);
    }
    // The permissions judge by a rule set made from `settings.rules`; adding nothing makes it again, without these.
    permissions.addRules({}, source);
  }
}
