import type Anthropic from "@anthropic-ai/sdk";
import type { Message, ReasoningPart, ToolSchema } from "../../core/types.js";
import type {
  AnthropicContentBlock,
  AnthropicContentBlockParam,
  AnthropicMessageMetadata,
  AnthropicMessageParam,
  AnthropicTool,
} from "./anthropic-wire-types.js";

/** Our conversation as the Messages API wants it: the system prompt apart, then alternating turns. */
export type AnthropicPrompt = { system: string | undefined; messages: AnthropicMessageParam[] };

/**
 * Converts our messages to Anthropic's. System messages become the `system` parameter. An assistant
 * message that came from Anthropic goes back as the content blocks received (kept in its
 * `providerMetadata`), byte for byte and in their order: thinking signatures (which the API verifies
 * during tool use), interleaved text and tool calls, and server-tool blocks (which a `pause_turn`
 * continuation needs) all survive. Any other assistant message, or one changed since it was received,
 * is rebuilt: its reasoning blocks unchanged with their signatures, then its text, then its `tool_use`
 * blocks. The tool messages answering one turn become `tool_result` blocks of a single user message,
 * as the API requires.
 * @see https://docs.claude.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks
 * @see https://docs.claude.com/en/api/handling-stop-reasons#pause-turn
 */
export function convertToAnthropicMessages(messages: readonly Message[]): AnthropicPrompt {
  const system: string[] = [];
  const converted: AnthropicMessageParam[] = [];
  for (const message of messages) {
    if (message.role === "system") system.push(message.content);
    else if (message.role === "assistant") pushTurn(converted, "assistant", assistantBlocks(message));
    else if (message.role === "tool") pushTurn(converted, "user", [toolResultBlock(message)]);
    else
      pushTurn(converted, "user", [
        ...(message.content === "" ? [] : [{ type: "text" as const, text: message.content }]),
        ...partBlocks(message),
      ]);
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
  const received = receivedBlocks(message);
  // A copy: pushTurn may append the next turn's blocks to this array.
  if (received) return [...(received as unknown as AnthropicContentBlockParam[])];
  const blocks: AnthropicContentBlockParam[] = [];
  for (const part of anthropicReasoning(message)) {
    if (part.redactedData !== undefined) blocks.push({ type: "redacted_thinking", data: part.redactedData });
    else if (part.signature !== undefined) blocks.push({ type: "thinking", thinking: part.text, signature: part.signature });
  }
  // The API rejects empty text blocks.
  if (message.content !== "") blocks.push({ type: "text", text: message.content });
  for (const call of message.toolCalls ?? []) blocks.push({ type: "tool_use", id: call.id, name: call.name, input: call.arguments });
  return blocks;
}

/** Reasoning Anthropic can verify: its own. Another provider's reasoning is dropped. */
function anthropicReasoning(message: Message): ReasoningPart[] {
  return (message.reasoning ?? []).filter((part) => part.provider === undefined || part.provider === "anthropic");
}

/**
 * The blocks this message was received as, when it still says what they say: same text, same tool
 * calls, same reasoning. A message edited since (a pattern that rewrites the text, a caller that
 * strips reasoning) is rebuilt from its fields instead, so the edit is not silently undone.
 */
function receivedBlocks(message: Message): AnthropicContentBlock[] | undefined {
  const content = (message.providerMetadata?.anthropic as Partial<AnthropicMessageMetadata> | undefined)?.content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  if (!content.every((block) => typeof block === "object" && block !== null && typeof block.type === "string")) return undefined;
  const ofType = (type: string) => content.filter((block) => block.type === type);
  const text = ofType("text")
    .map((block) => block.text)
    .join("");
  const calls = ofType("tool_use").map((block) => JSON.stringify([block.id, block.name, block.input]));
  const expectedCalls = (message.toolCalls ?? []).map((call) => JSON.stringify([call.id, call.name, call.arguments]));
  const proofs = content.flatMap((block) =>
    block.type === "thinking" ? [block.signature] : block.type === "redacted_thinking" ? [block.data] : [],
  );
  const expectedProofs = anthropicReasoning(message).map((part) => part.redactedData ?? part.signature);
  const same = (left: unknown[], right: unknown[]) => left.length === right.length && left.every((value, index) => value === right[index]);
  return text === message.content && same(calls, expectedCalls) && same(proofs, expectedProofs) ? content : undefined;
}

function toolResultBlock(message: Message): AnthropicContentBlockParam {
  const parts = partBlocks(message);
  return {
    type: "tool_result",
    tool_use_id: message.toolCallId ?? "",
    // A result with images or documents is a list of blocks, its text first (the API takes both inside a result).
    content:
      parts.length === 0
        ? message.content
        : [...(message.content === "" ? [] : [{ type: "text" as const, text: message.content }]), ...parts],
    ...(message.isError && { is_error: true }),
  };
}

/** A message's images and documents as Anthropic's image and document blocks. */
function partBlocks(message: Message): (Anthropic.ImageBlockParam | Anthropic.DocumentBlockParam)[] {
  return (message.parts ?? []).map((part) => {
    if (part.type === "document")
      return {
        type: "document",
        source: { type: "base64", media_type: part.mediaType, data: part.data },
        ...(part.name !== undefined && { title: part.name }),
      };
    return part.data !== undefined
      ? { type: "image", source: { type: "base64", media_type: part.mediaType, data: part.data } }
      : { type: "image", source: { type: "url", url: part.url } };
  });
}

/** Appends blocks as a turn, merging with the previous turn of the same role (turns must alternate). */
function pushTurn(messages: AnthropicMessageParam[], role: "user" | "assistant", blocks: AnthropicContentBlockParam[]): void {
  if (blocks.length === 0) return;
  const previous = messages.at(-1);
  if (previous?.role === role && Array.isArray(previous.content)) previous.content.push(...blocks);
  else messages.push({ role, content: blocks });
}
