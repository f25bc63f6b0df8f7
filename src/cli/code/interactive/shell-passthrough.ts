import type { CodingAgent } from "../../../code/coding-agent.js";
import type { Message } from "../../../core/types.js";
import { ToolRegistry } from "../../../tools/tool-registry.js";

/** What a `!` line did: the Bash tool's observation (output, then `Exit code: n`), and whether it failed to run. */
export type ShellPassthroughResult = { observation: string; isError: boolean };

/** How the conversation marks a command the person ran: the model reads it as context, not as a request. */
const passthroughNote = "[The user ran this shell command themselves in the workspace; its output is context for you, not a request.]";

/**
 * Runs a `!` line of the prompt as the person: with the session's own Bash tool (its working directory, its
 * environment without credentials, the OS sandbox when the session has one), but without the model's permission
 * judge, rules or hooks — the person typed it, as they would in their own shell. Undefined when the session has no
 * Bash tool (settings or flags took it away).
 */
export async function runAsPerson(agent: CodingAgent, command: string, signal: AbortSignal): Promise<ShellPassthroughResult | undefined> {
  const bash = agent.registry.get("Bash");
  if (!bash) return undefined;
  // A registry of its own: the agent's holds the checks (plan mode, the rules) that judge the model's calls.
  const own = new ToolRegistry({ maxResultLength: 30_000 }).add(bash);
  const outcome = await own.execute(
    { id: `shell_${globalThis.crypto.randomUUID()}`, name: "Bash", arguments: { command, description: "run by the user with !" } },
    { signal },
  );
  if ("pending" in outcome) return { observation: "The command was not run.", isError: true };
  return { observation: outcome.content, isError: outcome.isError };
}

/** The conversation's record of a `!` line: the command and what it printed, from the user. */
export function passthroughMessage(command: string, result: ShellPassthroughResult): Message {
  return { role: "user", content: `${passthroughNote}\n$ ${command}\n${result.observation}` };
}
