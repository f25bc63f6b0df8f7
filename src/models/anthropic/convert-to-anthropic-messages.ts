import type { Message, ToolSchema } from "../../core/types.js";
import type { AnthropicContentBlockParam, AnthropicMessageParam, AnthropicTool } from "./anthropic-wire-types.js";

/** Our conversation as the Messages API wants it: the system prompt apart, then alternating turns. */
export type AnthropicPrompt = { system: string | undefined; messages: AnthropicMessageParam[] };

/**
 * Converts our messages to Anthropic's. System messages become the `system` parameter. An assistant
 * turn sends back its reasoning blocks first, unchanged with their signatures (the API verifies them
 * during tool use), then its text, then its `tool_use` blocks. The tool messages answering one turn
 * become `tool_result` blocks of a single user message, as the API requires.
 * @see https://docs.claude.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks
 */
export function convertToAnthropicMessages(messages: readonly Message[]): AnthropicPrompt {
  const system: string[] = [];
  const converted: AnthropicMessageParam[] = [];
  for (const message of messages) {
    if (message.role === "system") system.push(message.content);
    else if (message.role === "assistant") pushTurn(converted, "assistant", assistantBlocks(message));
    else if (message.role === "tool") pushTurn(converted, "user", [toolResultBlock(message)]);
    else pushTurn(converted, "user", message.content === "" ? [] : [{ type: "text", text: message.content }]);
  }
  return { system: system.length > 0 ? system.join("\n\n") : undefined, messages: converted };
}

/** Our tool schemas as Anthropic tool definitions. */
export function convertToAnthropicTools(tools: readonly ToolSchema[]): AnthropicTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters as AnthropicTool["input_schema"],
  }));
}

function assistantBlocks(message: Message): AnthropicContentBlockParam[] {
  const blocks: AnthropicContentBlockParam[] = [];
  for (const part of message.reasoning ?? []) {
    // Reasoning from another provider (or without its signature) cannot be verified by Anthropic: drop it.
    if (part.provider !== undefined && part.provider !== "anthropic") continue;
    if (part.redactedData !== undefined) blocks.push({ type: "redacted_thinking", data: part.redactedData });
    else if (part.signature !== undefined) blocks.push({ type: "thinking", thinking: part.text, signature: part.signature });
  }
  // The API rejects empty text blocks.
  if (message.content !== "") blocks.push({ type: "text", text: message.content });
  for (const call of message.toolCalls ?? []) blocks.push({ type: "tool_use", id: call.id, name: call.name, input: call.arguments });
  return blocks;
}

function toolResultBlock(message: Message): AnthropicContentBlockParam {
  return {
    type: "tool_result",
    tool_use_id: message.toolCallId ?? "",
    content: message.content,
    ...(message.isError && { is_error: true }),
  };
}

/** Appends blocks as a turn, merging with the previous turn of the same role (turns must alternate). */
function pushTurn(messages: AnthropicMessageParam[], role: "user" | "assistant", blocks: AnthropicContentBlockParam[]): void {
  if (blocks.length === 0) return;
  const previous = messages.at(-1);
  if (previous?.role === role && Array.isArray(previous.content)) previous.content.push(...blocks);
  else messages.push({ role, content: blocks });
}
