/// <reference lib="dom" />

/** A message part as the tracer writes it (the OpenTelemetry GenAI conventions' JSON). */
export type MessagePart =
  | { type: "text"; content: string }
  | { type: "reasoning"; content: string }
  | { type: "tool_call"; id: string; name: string; arguments: unknown }
  | { type: "tool_call_response"; id: string; response: string };

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
  for (const message of messages) {
    for (const part of message.parts ?? []) {
      if (part.type === "text" || part.type === "reasoning") parts.push(part.content);
      else if (part.type === "tool_call") parts.push(part.name, JSON.stringify(part.arguments));
      else if (part.type === "tool_call_response") parts.push(part.response);
    }
  }
  return parts.join("\n");
}
