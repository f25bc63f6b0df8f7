import { UsageError } from "../errors.js";
import { askServer } from "./mcp-resources.js";
import type { McpServerConnection } from "./mcp-server-connection.js";
import { describeMcpToolResult, type McpContentBlock } from "./tool-result.js";

/** A prompt a server offers (`prompts/list`): a message template a person chooses, as a slash command. */
export type McpPrompt = {
  /** The server's name in the config. */
  server: string;
  /** Its name on the server. */
  name: string;
  /** The slash command that runs it, without its slash: `mcp__<server>__<prompt>`, Claude Code's form. */
  command: string;
  title?: string | undefined;
  description?: string | undefined;
  /** Its arguments, in the order the server declares them: the order of positional arguments. */
  arguments: readonly McpPromptArgument[];
};

/** One argument of a prompt. Prompt arguments are strings. */
export type McpPromptArgument = { name: string; description?: string | undefined; required?: boolean | undefined };

/** One message of a prompt the server made (`prompts/get`). */
export type McpPromptMessage = { role: "user" | "assistant"; content: McpContentBlock };

/** The slash command of a server's prompt: `mcp__<server>__<prompt>`, characters a command name cannot have as `_`. */
export function mcpPromptCommand(server: string, prompt: string): string {
  return `mcp__${server}__${prompt.replace(/[^A-Za-z0-9_.-]/g, "_")}`;
}

/** Every page of a server's prompt list. */
export async function listPromptsOf(connection: McpServerConnection): Promise<McpPrompt[]> {
  const prompts: McpPrompt[] = [];
  await askServer(connection, "list its prompts", async (client) => {
    let cursor: string | undefined;
    do {
      const page = await client.listPrompts(cursor === undefined ? {} : { cursor });
      for (const prompt of page.prompts)
        prompts.push({
          server: connection.name,
          name: prompt.name,
          command: mcpPromptCommand(connection.name, prompt.name),
          ...(prompt.title !== undefined && { title: prompt.title }),
          ...(prompt.description !== undefined && { description: prompt.description }),
          arguments: (prompt.arguments ?? []).map(({ name, description, required }) => ({
            name,
            ...(description !== undefined && { description }),
            ...(required !== undefined && { required }),
          })),
        });
      cursor = page.nextCursor;
    } while (cursor);
  });
  return prompts;
}

/** The messages the server makes of its prompt with these arguments. */
export async function getPromptOf(
  connection: McpServerConnection,
  name: string,
  args: Record<string, string>,
  signal: AbortSignal | undefined,
): Promise<McpPromptMessage[]> {
  const result = await askServer(connection, `give its prompt ${name}`, (client) =>
    client.getPrompt({ name, arguments: args }, signal ? { signal } : undefined),
  );
  return result.messages as McpPromptMessage[];
}

/**
 * The arguments typed after a prompt's command, by name: `key=value` words name their argument, the other words fill
 * the declared arguments in order (quotes keep spaces in a word: `/mcp__weather__forecast "New York" state=NY`).
 * Throws a UsageError for a name the prompt does not declare, too many words, or a required argument left out.
 */
export function parsePromptArguments(prompt: McpPrompt, text: string): Record<string, string> {
  const declared = prompt.arguments.map(({ name }) => name);
  const named: Record<string, string> = {};
  const positional: string[] = [];
  for (const word of splitWords(text)) {
    const match = /^([A-Za-z_][\w-]*)=([\s\S]*)$/.exec(word);
    if (match && declared.includes(match[1] as string)) named[match[1] as string] = match[2] as string;
    else positional.push(word);
  }
  const free = declared.filter((name) => !(name in named));
  if (positional.length > free.length)
    throw new UsageError(`/${prompt.command} takes ${describeArguments(prompt)}; too many arguments: ${positional.join(" ")}`);
  positional.forEach((value, index) => {
    named[free[index] as string] = value;
  });
  const missing = prompt.arguments.filter((argument) => argument.required === true && !(argument.name in named));
  if (missing.length > 0)
    throw new UsageError(`/${prompt.command} needs ${missing.map(({ name }) => name).join(", ")}: it takes ${describeArguments(prompt)}`);
  return named;
}

/** `<city> [state]`, or "no arguments": a prompt's arguments as /help shows them. */
export function describeArguments(prompt: McpPrompt): string {
  if (prompt.arguments.length === 0) return "no arguments";
  return prompt.arguments.map(({ name, required }) => (required ? `<${name}>` : `[${name}]`)).join(" ");
}

/**
 * A prompt's messages as the text of one user turn: each message's text (an embedded resource with its uri, an
 * image or binary part described); an assistant message, which a turn of the person's cannot hold as such, is marked.
 */
export function describePromptMessages(messages: readonly McpPromptMessage[]): string {
  return messages
    .map((message) => {
      const text = describeMcpToolResult({ content: [message.content] });
      return message.role === "assistant" ? `[the assistant, in the prompt:] ${text}` : text;
    })
    .join("\n\n");
}

/** Words as a shell splits them, quotes kept out: `a "b c" d='e f'` is a, b c, d=e f. */
function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g))
    words.push(match[0].replace(/"([^"]*)"|'([^']*)'/g, (_, double?: string, single?: string) => double ?? single ?? ""));
  return words;
}
