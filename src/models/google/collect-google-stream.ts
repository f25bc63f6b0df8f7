import type { ModelResponse, ModelStreamEvent } from "../../core/types.js";
import { createIncompleteStreamError } from "../provider-error.js";
import { createToolCallIds } from "../tool-call-ids.js";
import { convertGoogleResponse, type GoogleConversionContext, googleCallIdPrefix } from "./convert-google-response.js";
import type { GoogleCandidate, GooglePart, GoogleResponse } from "./google-wire-types.js";

/**
 * Assembles a Gemini stream (`streamGenerateContent?alt=sse`: each chunk a partial response with the
 * parts written since the last one) into the response it adds up to, reporting deltas as they arrive, then
 * converts it exactly as a response received whole. A text chunk continues the text part before it (thought
 * with thought, answer with answer) unless it carries a `thoughtSignature`, which starts a part of its own:
 * every signature stays on the part it arrived on, with the text that followed it. Function calls arrive
 * whole, one part each. Usage is cumulative on every chunk: the last one counts.
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
export async function collectGoogleStream(
  chunks: AsyncIterable<GoogleResponse>,
  onEvent: (event: ModelStreamEvent) => void,
  context: GoogleConversionContext = {},
): Promise<ModelResponse> {
  const assembled: GoogleResponse = {};
  const candidate: GoogleCandidate & { parts: GooglePart[] } = { parts: [] };
  const uniqueId = createToolCallIds(context.usedIds, googleCallIdPrefix);
  const callIds: string[] = [];
  let received = false;
  for await (const chunk of chunks) {
    received = true;
    if (chunk.usageMetadata) assembled.usageMetadata = chunk.usageMetadata;
    if (chunk.promptFeedback) assembled.promptFeedback = chunk.promptFeedback;
    if (chunk.modelVersion) assembled.modelVersion = chunk.modelVersion;
    if (chunk.responseId) assembled.responseId = chunk.responseId;
    const next = chunk.candidates?.[0];
    if (!next) continue;
    if (next.finishReason) candidate.finishReason = next.finishReason;
    if (next.finishMessage) candidate.finishMessage = next.finishMessage;
    if (next.safetyRatings) candidate.safetyRatings = next.safetyRatings;
    for (const part of next.content?.parts ?? []) {
      appendPart(candidate.parts, part);
      if (part.functionCall) {
        const id = uniqueId(part.functionCall.id);
        const index = callIds.push(id) - 1;
        onEvent({ type: "tool-input-start", index, id, name: part.functionCall.name ?? "" });
        onEvent({ type: "tool-input-delta", index, argumentsDelta: JSON.stringify(part.functionCall.args ?? {}) });
      } else if (typeof part.text === "string" && part.text !== "") {
        onEvent(part.thought ? { type: "reasoning-delta", text: part.text } : { type: "text-delta", text: part.text });
      }
    }
  }
  if (!received) throw createIncompleteStreamError("google", "the stream ended without sending anything");
  if (candidate.finishReason === undefined && assembled.promptFeedback?.blockReason === undefined)
    throw createIncompleteStreamError("google", "the stream ended before a finishReason");
  const { parts, ...rest } = candidate;
  assembled.candidates = [{ ...rest, content: { role: "model", parts } }];
  const response = convertGoogleResponse(assembled, { ...context, callIds });
  for (const [index, toolCall] of (response.message.toolCalls ?? []).entries()) onEvent({ type: "tool-input-end", index, toolCall });
  if (response.usage) onEvent({ type: "usage", usage: response.usage });
  return response;
}

/** Adds a streamed part: appended to the text part before it when both are plain text of the same kind and it has no signature. */
function appendPart(parts: GooglePart[], part: GooglePart): void {
  const previous = parts.at(-1);
  if (
    previous !== undefined &&
    isPlainText(previous) &&
    isPlainText(part) &&
    Boolean(previous.thought) === Boolean(part.thought) &&
    part.thoughtSignature === undefined
  ) {
    previous.text = `${previous.text ?? ""}${part.text ?? ""}`;
    return;
  }
  parts.push({ ...part });
}

/** A part of text only (maybe a thought, maybe signed), nothing else the API could attach. */
function isPlainText(part: GooglePart): boolean {
  return (
    typeof part.text === "string" && Object.keys(part).every((key) => key === "text" || key === "thought" || key === "thoughtSignature")
  );
}
