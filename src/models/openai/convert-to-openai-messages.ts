import type { Message, ToolSchema } from "../../core/types.js";
import type { OpenAIAssistantMessageParam, OpenAIMessageParam, OpenAITool } from "./openai-wire-types.js";

/** How messages are converted. */
export type OpenAIMessageConversionOptions = {
  /**
   * Send an assistant message's reasoning produced by this provider back as `reasoning_content`
   * (DeepSeek's thinking mode wants it back during tool calls). Unset: reasoning is not sent back.
   */
  reasoningProvider?: string | undefined;
};

/**
 * Converts our messages to Chat Completions messages. Tool calls go back with their arguments as
 * JSON text; each tool message answers its call by `tool_call_id`. Reasoning is not sent back unless
 * asked for (`reasoningProvider`): Chat Completions has no field for it, and servers differ
 * (DeepSeek's reasoner rejects `reasoning_content` in input; its thinking mode with tools wants it).
 */
export function convertToOpenAIMessages(messages: readonly Message[], options: OpenAIMessageConversionOptions = {}): OpenAIMessageParam[] {
  return messages.map((message) => convertMessage(message, options));
}

function convertMessage(message: Message, options: OpenAIMessageConversionOptions): OpenAIMessageParam {
  if (message.role === "system") return { role: "system", content: message.content };
  if (message.role === "user") return { role: "user", content: message.content };
  if (message.role === "tool") return { role: "tool", tool_call_id: message.toolCallId ?? "", content: message.content };
  const reasoning = reasoningOf(message, options.reasoningProvider);
  const calls = message.toolCalls ?? [];
  const assistant: OpenAIAssistantMessageParam =
    calls.length === 0
      ? { role: "assistant", content: message.content }
      : {
          role: "assistant",
          // With tool calls and no text, the API expects null rather than "".
          content: message.content === "" ? null : message.content,
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          })),
        };
  return reasoning === "" ? assistant : { ...assistant, reasoning_content: reasoning };
}

/** The message's reasoning text from `provider` (or of unknown origin); "" when there is none or none is wanted. */
function reasoningOf(message: Message, provider: string | undefined): string {
  if (provider === undefined) return "";
  return (message.reasoning ?? [])
    .filter((part) => (part.provider === undefined || part.provider === provider) && part.redactedData === undefined)
    .map((part) => part.text)
    .join("");
}

/** Our tool schemas as Chat Completions function tools. */
export function convertToOpenAITools(tools: readonly ToolSchema[]): OpenAITool[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}
