import type { Message, ReasoningPart, ToolSchema } from "../../core/types.js";
import type {
  BedrockContentBlockParam,
  BedrockMessage,
  BedrockMessageMetadata,
  BedrockPartBlock,
  BedrockStoredBlock,
  BedrockTool,
} from "./bedrock-wire-types.js";

/** Our conversation as Converse wants it: the system prompt apart, then alternating turns. */
export type BedrockPrompt = { system: { text: string }[]; messages: BedrockMessage[] };

/**
 * Converts our messages to Converse's. System messages become `system` blocks. An assistant message
 * that came from Bedrock goes back as the blocks received (kept in its `providerMetadata`), in their order:
 * `reasoningContent` with its signature, or its redacted bytes, exactly as the model sent them (Claude
 * verifies them during tool use). Any other assistant message, or one changed since it was received, is
 * rebuilt: its Bedrock reasoning, then its text, then its `toolUse` blocks; reasoning of other providers is
 * dropped. The tool messages answering a turn become `toolResult` blocks of one user message (`status:
 * "error"` for a failed call), as the API requires.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html
 */
export function convertToBedrockMessages(messages: readonly Message[]): BedrockPrompt {
  const system: { text: string }[] = [];
  const converted: BedrockMessage[] = [];
  // Converse refuses two documents of one name in a request (the same PDF read twice, by pages).
  const names = new Set<string>();
  for (const message of messages) {
    if (message.role === "system") system.push({ text: message.content });
    else if (message.role === "assistant") pushTurn(converted, "assistant", assistantBlocks(message));
    else if (message.role === "tool") pushTurn(converted, "user", [toolResultBlock(message, names)]);
    else pushTurn(converted, "user", [...(message.content === "" ? [] : [{ text: message.content }]), ...partBlocks(message, names)]);
  }
  return { system, messages: converted };
}

/** Our tool schemas as Converse tool specs; the JSON Schema goes as given. */
export function convertToBedrockTools(tools: readonly ToolSchema[]): BedrockTool[] {
  return tools.map((tool) => ({
    toolSpec: { name: tool.name, description: tool.description, inputSchema: { json: tool.parameters as never } },
  }));
}

function assistantBlocks(message: Message): BedrockContentBlockParam[] {
  const stored = receivedBlocks(message) ?? rebuildBlocks(message);
  return stored.map(toRequestBlock);
}

function rebuildBlocks(message: Message): BedrockStoredBlock[] {
  const blocks: BedrockStoredBlock[] = [];
  for (const part of bedrockReasoning(message)) {
    if (part.redactedData !== undefined) blocks.push({ reasoningContent: { redactedContent: part.redactedData } });
    else if (part.signature !== undefined)
      blocks.push({ reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } });
  }
  // The API rejects blank text blocks.
  if (message.content.trim() !== "") blocks.push({ text: message.content });
  for (const call of message.toolCalls ?? []) blocks.push({ toolUse: { toolUseId: call.id, name: call.name, input: call.arguments } });
  return blocks;
}

/** The stored block as the SDK takes it: redacted reasoning as bytes again (the SDK writes them as the base64 received). */
function toRequestBlock(block: BedrockStoredBlock): BedrockContentBlockParam {
  if ("reasoningContent" in block && "redactedContent" in block.reasoningContent)
    return { reasoningContent: { redactedContent: Buffer.from(block.reasoningContent.redactedContent, "base64") } };
  return block as BedrockContentBlockParam;
}

/** Reasoning Bedrock can verify: its own. Another provider's reasoning is dropped. */
function bedrockReasoning(message: Message): ReasoningPart[] {
  return (message.reasoning ?? []).filter((part) => part.provider === "bedrock");
}

/**
 * The blocks this message was received as, when it still says what they say: same text, same tool
 * calls, same reasoning. A message edited since is rebuilt from its fields instead, so the edit holds.
 */
function receivedBlocks(message: Message): BedrockStoredBlock[] | undefined {
  const content = (message.providerMetadata?.bedrock as Partial<BedrockMessageMetadata> | undefined)?.content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  if (!content.every((block) => typeof block === "object" && block !== null)) return undefined;
  const text = content.map((block) => ("text" in block ? block.text : "")).join("");
  const calls = content.flatMap((block) => ("toolUse" in block ? [JSON.stringify(block.toolUse)] : []));
  const expectedCalls = (message.toolCalls ?? []).map((call) =>
    JSON.stringify({ toolUseId: call.id, name: call.name, input: call.arguments }),
  );
  const proofs = content.flatMap((block) => {
    if (!("reasoningContent" in block)) return [];
    const reasoning = block.reasoningContent;
    return ["redactedContent" in reasoning ? reasoning.redactedContent : reasoning.reasoningText?.signature];
  });
  const expectedProofs = bedrockReasoning(message).map((part) => part.redactedData ?? part.signature);
  const same = (left: unknown[], right: unknown[]) => left.length === right.length && left.every((value, index) => value === right[index]);
  return text === message.content && same(calls, expectedCalls) && same(proofs, expectedProofs) ? content : undefined;
}

function toolResultBlock(message: Message, names: Set<string>): BedrockContentBlockParam {
  return {
    toolResult: {
      toolUseId: message.toolCallId ?? "",
      // The API refuses an empty text block: an empty result says so in words.
      content: [{ text: message.content === "" ? "(no output)" : message.content }, ...partBlocks(message, names)],
      ...(message.isError && { status: "error" as const }),
    },
  };
}

/**
 * A message's images and documents as Converse blocks (the same shapes go inside a tool result): their bytes. An
 * image known only by a web URL is named in words: Converse takes bytes or an S3 location.
 */
function partBlocks(message: Message, names: Set<string>): BedrockPartBlock[] {
  return (message.parts ?? []).map((part): BedrockPartBlock => {
    if (part.type === "document")
      return {
        document: {
          format: "pdf",
          name: uniqueName(documentName(part.name, names.size), names),
          source: { bytes: Buffer.from(part.data, "base64") },
        },
      };
    if (part.data === undefined)
      return { text: `[An image at ${part.url}, which cannot be sent to this model as a URL: fetch it and send its bytes.]` };
    const format = part.mediaType.slice("image/".length) as "png" | "jpeg" | "gif" | "webp";
    return { image: { format, source: { bytes: Buffer.from(part.data, "base64") } } };
  });
}

/** A document's name as Converse accepts it: letters, digits, spaces, hyphens, parentheses and brackets, no double spaces. */
function documentName(name: string | undefined, index: number): string {
  const cleaned = (name ?? "")
    .replace(/\.pdf$/i, "")
    .replace(/[^A-Za-z0-9 ()[\]-]/g, "-")
    .replace(/ {2,}/g, " ")
    .trim();
  return cleaned === "" ? `document-${index + 1}` : cleaned.slice(0, 200);
}

/** `name`, or `name-2`, `name-3`… when the request has it already. */
function uniqueName(name: string, names: Set<string>): string {
  let unique = name;
  for (let count = 2; names.has(unique); count++) unique = `${name}-${count}`;
  names.add(unique);
  return unique;
}

/** Appends blocks as a turn, merging with the previous turn of the same role (turns must alternate). */
function pushTurn(messages: BedrockMessage[], role: "user" | "assistant", blocks: BedrockContentBlockParam[]): void {
  if (blocks.length === 0) return;
  const previous = messages.at(-1);
  if (previous?.role === role && previous.content) previous.content.push(...blocks);
  else messages.push({ role, content: blocks });
}
