import type { ModelResponse, ReasoningPart, ToolCall } from "../../core/types.js";
import { createToolCall } from "../create-tool-call.js";
import { createMalformedResponseError, describeReceived } from "../provider-error.js";
import { createToolCallIds, type UsedToolCallIds } from "../tool-call-ids.js";
import type { GoogleCandidate, GoogleMessageMetadata, GooglePart, GoogleResponse } from "./google-wire-types.js";
import { isBlockingFinishReason, mapGoogleFinishReason } from "./map-google-finish-reason.js";
import { mapGoogleUsage } from "./map-google-usage.js";

/** Context of a conversion. */
export type GoogleConversionContext = {
  /** Tool-call ids already used in the conversation: a made-up or repeated id is replaced by a fresh one. */
  usedIds?: UsedToolCallIds | undefined;
  /** Ids already given to the response's calls, in order (a stream announces each call as it arrives); the rest are made up. */
  callIds?: readonly string[] | undefined;
};

/** The prefix of the ids made up for Gemini's function calls, which come without one. */
export const googleCallIdPrefix = "call_";

/**
 * Converts a Gemini response (received whole, or assembled from a stream) to ours. Thought parts
 * (`thought: true`) become `message.reasoning`, never text; each `functionCall` part a tool call, with the
 * API's `functionCall.id` when it sends one, else an id made up here (unique in the conversation). The parts
 * are kept as received in `providerMetadata.google`, thought signatures included, to go back unchanged. A
 * response a filter blocked (`promptFeedback.blockReason`, or a `SAFETY`-like finish reason) is a `refusal`
 * whose text, when the model wrote none, says what was blocked and why.
 */
export function convertGoogleResponse(response: unknown, context: GoogleConversionContext = {}): ModelResponse {
  const checked = checkResponse(response);
  const candidate: GoogleCandidate = checked.candidates?.[0] ?? {};
  const parts: GooglePart[] = candidate.content?.parts ?? [];
  const uniqueId = createToolCallIds(context.usedIds, googleCallIdPrefix);
  const truncated = candidate.finishReason === "MAX_TOKENS";
  const text: string[] = [];
  const reasoning: ReasoningPart[] = [];
  const toolCalls: ToolCall[] = [];
  for (const part of parts) {
    if (part.functionCall) {
      const { id, name, args } = part.functionCall;
      const given = context.callIds?.[toolCalls.length];
      toolCalls.push(createToolCall(given ?? uniqueId(id), name ?? "", args, { truncated }));
    } else if (typeof part.text === "string" && part.thought) {
      reasoning.push({
        text: part.text,
        provider: "google",
        ...(part.thoughtSignature !== undefined && { signature: part.thoughtSignature }),
      });
    } else if (typeof part.text === "string") {
      text.push(part.text);
    }
  }
  const blockedNotice = describeBlock(checked, candidate);
  const content = text.join("") || (blockedNotice ?? "");
  const metadata: GoogleMessageMetadata = { parts, ...(blockedNotice !== undefined && content === blockedNotice && { blockedNotice }) };
  const usage = mapGoogleUsage(checked.usageMetadata);
  return {
    message: {
      role: "assistant",
      content,
      ...(toolCalls.length > 0 && { toolCalls }),
      ...(reasoning.length > 0 && { reasoning }),
      providerMetadata: { google: metadata },
    },
    stopReason: blockedNotice !== undefined ? "refusal" : mapGoogleFinishReason(candidate.finishReason, toolCalls.length > 0),
    ...(usage && { usage }),
  };
}

/** What was blocked and why, in words, or undefined when nothing was. */
function describeBlock(response: GoogleResponse, candidate: GoogleCandidate): string | undefined {
  const { blockReason, blockReasonMessage } = response.promptFeedback ?? {};
  if (blockReason !== undefined && blockReason !== "BLOCKED_REASON_UNSPECIFIED") {
    return `Gemini blocked the prompt (blockReason ${blockReason}${blockReasonMessage ? `: ${blockReasonMessage}` : ""}).`;
  }
  if (!isBlockingFinishReason(candidate.finishReason)) return undefined;
  const categories = (candidate.safetyRatings ?? []).filter((rating) => rating.blocked).map((rating) => rating.category);
  const why = [`finishReason ${candidate.finishReason}`, ...(categories.length > 0 ? [`blocked: ${categories.join(", ")}`] : [])];
  return `Gemini blocked the response (${why.join("; ")}${candidate.finishMessage ? `: ${candidate.finishMessage}` : ""}).`;
}

function checkResponse(response: unknown): GoogleResponse {
  const candidate = response as GoogleResponse | null;
  if (typeof candidate !== "object" || candidate === null || Array.isArray(candidate)) {
    throw createMalformedResponseError("google", `expected a GenerateContentResponse object, got ${describeReceived(response)}`);
  }
  if (candidate.candidates !== undefined && !Array.isArray(candidate.candidates)) {
    throw createMalformedResponseError("google", `"candidates" is not an array`);
  }
  const parts = candidate.candidates?.[0]?.content?.parts;
  if (parts !== undefined && !(Array.isArray(parts) && parts.every((part) => typeof part === "object" && part !== null))) {
    throw createMalformedResponseError("google", `"candidates[0].content.parts" is not an array of parts`);
  }
  return candidate;
}
