import type { AgentEvent } from "../../core/events.js";
import type { Message } from "../../core/types.js";

/**
 * One line of `--output-format stream-json` for an engine event: the event as docs/architecture.md lists it, with
 * `session_id`, lighter where it would repeat the conversation (`run-start` and `model-call-start` give
 * `messageCount` instead of `messages`, and no `tools`), without provider metadata on messages, and with a run
 * error as `{ name, message }`.
 */
export function toStreamJsonLine(event: AgentEvent, sessionId: string): Record<string, unknown> {
  switch (event.type) {
    case "run-start": {
      const { messages, ...rest } = event;
      return { ...rest, messageCount: messages.length, session_id: sessionId };
    }
    case "model-call-start": {
      const { messages, tools: _, ...rest } = event;
      return { ...rest, messageCount: messages.length, session_id: sessionId };
    }
    case "model-call-end":
      return { ...event, response: { ...event.response, message: withoutMetadata(event.response.message) }, session_id: sessionId };
    case "run-error": {
      const error =
        event.error instanceof Error ? { name: event.error.name, message: event.error.message } : { message: String(event.error) };
      return { ...event, error, session_id: sessionId };
    }
    default:
      return { ...event, session_id: sessionId };
  }
}

function withoutMetadata(message: Message): Message {
  const { providerMetadata: _, ...rest } = message;
  return rest;
}
