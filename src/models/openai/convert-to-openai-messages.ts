import type { Message, ToolSchema } from "../../core/types.js";
import type { OpenAIMessageParam, OpenAITool } from "./openai-wire-types.js";

/**
 * Converts our messages to Chat Completions messages. Tool calls go back with their arguments as
 * JSON text; each tool message answers its call by `tool_call_id`. Reasoning is not sent back:
 * Chat Completions has no field for it (and DeepSeek rejects its own `reasoning_content` in input).
 */
export function convertToOpenAIMessages(messages: readonly Message[]): OpenAIMessageParam[] {
  return messages.map(convertMessage);
}

function convertMessage(message: Message): OpenAIMessageParam {
  if (message.role === "system") return { role: "system", content: message.content };
  if (message.role === "user") return { role: "user", content: message.content };
  if (message.role === "tool") return { role: "tool", tool_call_id: message.toolCallId ?? "", content: message.content };
  const calls = message.toolCalls ?? [];
  if (calls.length === 0) return { role: "assistant", content: message.content };
  return {
    role: "assistant",
    // With tool calls and no text, the API expects null rather than "".
    content: message.content === "" ? null : message.content,
    tool_calls: calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    })),
  };
}

/** Our tool schemas as Chat Completions function tools. */
export function convertToOpenAITools(tools: readonly ToolSchema[]): OpenAITool[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}
