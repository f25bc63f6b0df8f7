import type { Message, ToolSchema } from "../../core/types.js";
import type { OpenAIAssistantMessageParam, OpenAIContentPart, OpenAIMessageParam, OpenAITool } from "./openai-wire-types.js";

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
  const converted: OpenAIMessageParam[] = [];
  // A tool message carries text only: the images and documents of a turn's results follow its last result, as the
  // user's message (the turn's tool messages must stay together after the call).
  let resultParts: OpenAIContentPart[] = [];
  messages.forEach((message, index) => {
    converted.push(convertMessage(message, options));
    if (message.role === "tool" && message.parts?.length)
      resultParts.push({ type: "text", text: `The result of call ${message.toolCallId ?? ""} shows:` }, ...contentParts(message));
    if (resultParts.length > 0 && messages[index + 1]?.role !== "tool") {
      converted.push({ role: "user", content: resultParts });
      resultParts = [];
    }
  });
  return converted;
}

/** A message's images and documents as Chat Completions content parts: images by URL (data: URLs for bytes), PDFs as files. */
function contentParts(message: Message): OpenAIContentPart[] {
  return (message.parts ?? []).map((part): OpenAIContentPart => {
    if (part.type === "document")
      return { type: "file", file: { filename: part.name ?? "document.pdf", file_data: `data:${part.mediaType};base64,${part.data}` } };
    return { type: "image_url", image_url: { url: part.data !== undefined ? `data:${part.mediaType};base64,${part.data}` : part.url } };
  });
}

function convertMessage(message: Message, options: OpenAIMessageConversionOptions): OpenAIMessageParam {
  if (message.role === "system") return { role: "system", content: message.content };
  if (message.role === "user")
    return message.parts?.length
      ? {
          role: "user",
          content: [...(message.content === "" ? [] : [{ type: "text" as const, text: message.content }]), ...contentParts(message)],
        }
      : { role: "user", content: message.content };
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
