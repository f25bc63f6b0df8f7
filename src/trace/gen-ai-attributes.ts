import type { ContentPart, Message, StopReason, Usage } from "../core/types.js";
import type { SpanAttributes } from "./trace.js";

/**
 * Attribute names of the OpenTelemetry GenAI semantic conventions that minagent writes, and its own
 * (`minagent.*`) where the conventions have none.
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/
 */
export const traceAttributes = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  requestModel: "gen_ai.request.model",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  timeToFirstChunk: "gen_ai.response.time_to_first_chunk",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationInputTokens: "gen_ai.usage.cache_creation.input_tokens",
  reasoningOutputTokens: "gen_ai.usage.reasoning.output_tokens",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  toolName: "gen_ai.tool.name",
  toolType: "gen_ai.tool.type",
  toolCallId: "gen_ai.tool.call.id",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  errorType: "error.type",
  /** The run's user input. */
  runInput: "minagent.run.input",
  /** The run's final answer. */
  runFinal: "minagent.run.final",
  /** The run's id (`RunResult.runId`, every event's `runId`). */
  runId: "minagent.run.id",
  /** How the run ended: `completed`, `max_steps` or `interrupted` (absent when it failed). */
  runStatus: "minagent.run.status",
  /** True when the run completed. Kept for readers of older traces; `minagent.run.status` says more. */
  runConverged: "minagent.run.converged",
  /** Model calls the run made (a resumed run counts those before the interruption too). */
  runTurns: "minagent.run.turns",
  /** Calls an interrupted run waits on. */
  runPendingCount: "minagent.run.pending_count",
  /** The 0-based turn, as in the trajectory's `[i]`. */
  turnIndex: "minagent.turn.index",
  /** True on a turn whose tool calls ran without a model call in this run: a resumed run's pending calls. */
  turnResumed: "minagent.turn.resumed",
  /** True on the spans of a tool call that was not run: its permission decision was "ask". */
  toolPending: "minagent.tool.pending",
  /** Why the call needs a decision, when the permission check said (a payload). */
  toolPendingReason: "minagent.tool.pending_reason",
  /** Names of the tools offered to the model on this call. */
  requestToolNames: "minagent.request.tool_names",
  /** Messages sent on this call (the whole conversation so far). */
  requestMessageCount: "minagent.request.message_count",
  /**
   * The 0-based index of the first message this call adds to the conversation (those sent after the
   * previous call's); 0 when the whole conversation is new to the trace (the first call).
   */
  requestNewMessageIndex: "minagent.request.new_message_index",
  /**
   * The messages this call adds (from `minagent.request.new_message_index` on), as the conventions' JSON.
   * Recorded instead of `gen_ai.input.messages`, which would repeat the whole history on every call.
   */
  requestNewMessages: "minagent.request.new_messages",
} as const;

/** `gen_ai.operation.name` values minagent uses. */
export const genAiOperations = { invokeAgent: "invoke_agent", chat: "chat", executeTool: "execute_tool" } as const;

/** Token counts as GenAI attributes; optional counters only when reported. */
export function usageAttributes(usage: Usage): SpanAttributes {
  const attributes: SpanAttributes = {
    [traceAttributes.inputTokens]: usage.inputTokens,
    [traceAttributes.outputTokens]: usage.outputTokens,
  };
  if (usage.cacheReadTokens !== undefined) attributes[traceAttributes.cacheReadInputTokens] = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined) attributes[traceAttributes.cacheCreationInputTokens] = usage.cacheWriteTokens;
  if (usage.reasoningTokens !== undefined) attributes[traceAttributes.reasoningOutputTokens] = usage.reasoningTokens;
  return attributes;
}

/** A message part in the conventions' `gen_ai.input.messages` / `gen_ai.output.messages` JSON. */
export type GenAiPart =
  | { type: "text"; content: string }
  | { type: "reasoning"; content: string }
  | { type: "tool_call"; id: string; name: string; arguments: unknown }
  | { type: "tool_call_response"; id: string; response: string }
  /** An image or a document, by its size and SHA-256: a trace never holds the bytes (or a URL's, for a linked image). */
  | {
      type: "blob";
      modality: "image" | "document";
      mime_type: string;
      size_bytes?: number;
      sha256?: string;
      uri?: string;
      /** The bytes, base64: only in the viewer's rendering of a session file (its small images), never in a trace. */
      content?: string;
    };

/** A message in the conventions' JSON shape. */
export type GenAiMessage = { role: Message["role"]; parts: GenAiPart[]; finish_reason?: StopReason };

/**
 * Converts messages to the shape the conventions define for `gen_ai.input.messages`, so that GenAI-aware
 * backends can display them. Pass `stopReason` for an output message.
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-input-messages.json
 */
export function toGenAiMessages(
  messages: readonly Message[],
  stopReason?: StopReason,
  describePart: PartDescriber = describePartSize,
): GenAiMessage[] {
  return messages.map((message) => {
    const parts: GenAiPart[] = [];
    for (const part of message.reasoning ?? []) if (part.text) parts.push({ type: "reasoning", content: part.text });
    if (message.role === "tool") parts.push({ type: "tool_call_response", id: message.toolCallId ?? "", response: message.content });
    else if (message.content) parts.push({ type: "text", content: message.content });
    for (const call of message.toolCalls ?? []) parts.push({ type: "tool_call", id: call.id, name: call.name, arguments: call.arguments });
    for (const part of message.parts ?? []) parts.push(describePart(part));
    return stopReason ? { role: message.role, parts, finish_reason: stopReason } : { role: message.role, parts };
  });
}

/**
 * What a trace keeps of an image or a document (never its bytes): its kind, type and size, or a linked image's URL.
 * The tracer's describer adds the bytes' SHA-256 (`describePartWithDigest`, apart from this file, which the trace
 * viewer's page compiles for the browser too).
 */
export type PartDescriber = (part: ContentPart) => GenAiPart;

/** {@link PartDescriber} without a digest: the size from the base64's length. */
export const describePartSize: PartDescriber = (part) => {
  const modality = part.type === "document" ? "document" : "image";
  if (part.data === undefined) return { type: "blob", modality, mime_type: part.mediaType ?? "image/*", uri: part.url };
  const padding = part.data.endsWith("==") ? 2 : part.data.endsWith("=") ? 1 : 0;
  return { type: "blob", modality, mime_type: part.mediaType, size_bytes: Math.floor((part.data.length * 3) / 4) - padding };
};

/**
 * The JSON text of `toGenAiMessages(messages, stopReason)`, written directly (twice as fast as building
 * the objects and stringifying them, and a tracer does it on every call). `embed` writes a tool call's
 * arguments. Returns undefined as soon as the text would pass `budget` characters.
 */
export function writeGenAiMessages(
  messages: readonly Message[],
  stopReason: StopReason | undefined,
  embed: (value: unknown) => string | undefined,
  budget: number,
  describePart: PartDescriber = describePartSize,
): string | undefined {
  let json = "[";
  for (const message of messages) {
    if (json.length > budget) return undefined;
    let parts = "";
    for (const part of message.reasoning ?? []) {
      if (part.text) parts += `,{"type":"reasoning","content":${quote(part.text, budget)}}`;
    }
    if (message.role === "tool") {
      parts += `,{"type":"tool_call_response","id":${quote(message.toolCallId ?? "", budget)},"response":${quote(message.content, budget)}}`;
    } else if (message.content) {
      parts += `,{"type":"text","content":${quote(message.content, budget)}}`;
    }
    for (const call of message.toolCalls ?? []) {
      const args = embed(call.arguments);
      if (args === undefined) return undefined;
      parts += `,{"type":"tool_call","id":${quote(call.id, budget)},"name":${quote(call.name, budget)},"arguments":${args}}`;
    }
    for (const part of message.parts ?? []) parts += `,${JSON.stringify(describePart(part))}`;
    const finish = stopReason ? `,"finish_reason":${JSON.stringify(stopReason)}` : "";
    json += `${json.length > 1 ? "," : ""}{"role":${JSON.stringify(message.role)},"parts":[${parts.slice(1)}]${finish}}`;
  }
  return json.length > budget ? undefined : `${json}]`;
}

/** A JSON string; past the budget, no more than it takes to fail (the caller checks the length). */
function quote(text: string, budget: number): string {
  return JSON.stringify(text.length > budget ? text.slice(0, budget + 1) : text);
}

/** The root span's attributes that say what a session is called (the title the lists show, from src/session-title.ts). */
export const sessionAttributes = { name: "minagent.session.name", title: "minagent.session.title" } as const;
