import type { Message } from "../../engine.js";

/**
 * Characters per token assumed by the estimate. English prose runs at about 4 characters per token in current
 * tokenizers, source code and JSON at 3 to 4: the estimate is only ever used for what was added since the
 * provider last counted, scaled by how far off it was then (see `ContextMeter`).
 */
export const charactersPerToken = 4;

/** Framing tokens per message and per tool call (role, separators), as OpenAI's counting recipe has it. */
const framingTokens = 3;

/** Estimated tokens of a text: its length in UTF-16 code units over {@link charactersPerToken}. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / charactersPerToken);
}

/** The tokens an image is counted as. */
const imageTokens = 1_600;
/** Bytes of PDF per token: a page of about 50 KB counts as about 2,000 tokens (its text and its image). */
const bytesPerDocumentToken = 25;

/** Estimated tokens of one message as a model reads it: its text, its tool calls (names and JSON arguments), its reasoning, its images and documents. */
export function estimateMessageTokens(message: Message): number {
  let total = framingTokens + estimateTextTokens(message.content);
  for (const call of message.toolCalls ?? [])
    total += framingTokens + estimateTextTokens(call.name) + estimateTextTokens(JSON.stringify(call.arguments) ?? "");
  for (const part of message.reasoning ?? []) total += estimateTextTokens(part.text);
  // Providers count an image by its pixels (about 1,600 tokens at Read's 2,000-pixel cap) and a PDF's pages as
  // text and images: a fixed guess for an image, and a PDF by its size, rather than its base64 as text.
  for (const part of message.parts ?? [])
    total += part.type === "image" ? imageTokens : Math.ceil((part.data.length * 3) / 4 / bytesPerDocumentToken);
  return total;
}
