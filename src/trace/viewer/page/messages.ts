/// <reference lib="dom" />

/** A message part as the tracer writes it (the OpenTelemetry GenAI conventions' JSON). */
export type MessagePart =
  | { type: "text"; content: string }
  | { type: "reasoning"; content: string }
  | { type: "tool_call"; id: string; name: string; arguments: unknown }
  | { type: "tool_call_response"; id: string; response: string }
  /** An image or a document: its type, size and hash; a session's small images carry their bytes (`content`, base64). */
  | { type: "blob"; modality: string; mime_type: string; size_bytes?: number; sha256?: string; uri?: string; content?: string };

export type TracedMessage = { role: string; parts: MessagePart[]; finish_reason?: string };

/**
 * Messages from an attribute's JSON text, or undefined when the text is not (a payload cut at the tracer's
 * limit ends with a marker and is no longer JSON: the page shows it as text).
 */
export function parseMessages(text: string): TracedMessage[] | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? (value as TracedMessage[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Every part's text, for search. */
export function messagesText(messages: TracedMessage[] | string): string {
  if (typeof messages === "string") return messages;
  const parts: string[] = [];
  // The JSON comes from a file: messages or parts that are not objects, and fields that are not strings, are
  // searched as their JSON rather than thrown on.
  const text = (value: unknown): string => (typeof value === "string" ? value : (JSON.stringify(value) ?? ""));
  for (const message of messages) {
    if (typeof message !== "object" || message === null) continue;
    for (const part of Array.isArray(message.parts) ? (message.parts as unknown[]) : []) {
      if (typeof part !== "object" || part === null) continue;
      const typed = part as MessagePart;
      if (typed.type === "text" || typed.type === "reasoning") parts.push(text(typed.content));
      else if (typed.type === "tool_call") parts.push(text(typed.name), text(typed.arguments));
      else if (typed.type === "tool_call_response") parts.push(text(typed.response));
    }
  }
  return parts.join("\n");
}
