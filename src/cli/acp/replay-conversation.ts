import type * as acp from "@agentclientprotocol/sdk";
import type { Message, ToolCall } from "../../core/types.js";
import { commandOutput, textContent, toolKind, toolLocations, toolTitle } from "./describe-tool-call.js";

/**
 * A saved conversation as the updates that draw it in the editor (`session/load`): the person's prompts as
 * `user_message_chunk`, the agent's words and thinking as `agent_message_chunk` and `agent_thought_chunk`, each tool
 * call as a `tool_call` ended with its result, completed or failed. Notes the engine added (an interruption, a
 * compaction's summary) are shown as the agent's, in brackets, so that the editor's transcript matches what the model
 * reads.
 */
export function replayConversation(messages: readonly Message[], root: string): acp.SessionUpdate[] {
  const updates: acp.SessionUpdate[] = [];
  const calls = new Map<string, ToolCall>();
  for (const message of messages) {
    switch (message.role) {
      case "user":
        if (message.content !== "") updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: message.content } });
        break;
      case "assistant": {
        const thought = (message.reasoning ?? []).map((part) => part.text).join("");
        if (thought !== "") updates.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: thought } });
        if (message.content !== "")
          updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: message.content } });
        for (const call of message.toolCalls ?? []) {
          calls.set(call.id, call);
          updates.push({
            sessionUpdate: "tool_call",
            toolCallId: call.id,
            title: toolTitle(call, root),
            kind: toolKind(call),
            status: "pending",
            locations: toolLocations(call, root),
            rawInput: call.arguments,
          });
        }
        break;
      }
      case "tool": {
        if (message.toolCallId === undefined) break;
        const call = calls.get(message.toolCallId);
        const content = call?.name === "Bash" && !message.isError ? commandOutput(message.content) : textContent(message.content);
        updates.push({
          sessionUpdate: "tool_call_update",
          toolCallId: message.toolCallId,
          status: message.isError ? "failed" : "completed",
          content: [content],
        });
        break;
      }
      default:
        break;
    }
  }
  // A call the conversation has no result for was cut short (a cancel, a crash): it ended, failed.
  const answered = new Set(messages.flatMap((message) => (message.role === "tool" && message.toolCallId ? [message.toolCallId] : [])));
  for (const id of calls.keys())
    if (!answered.has(id))
      updates.push({
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: "failed",
        content: [textContent("Interrupted: this call did not finish.")],
      });
  return updates;
}
