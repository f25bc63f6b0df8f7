import type { Message, ToolSchema } from "../../../core/types.js";
import { createToolCall } from "../../create-tool-call.js";
import { reasoningText } from "./convert-responses-response.js";
import type {
  ResponsesInputContent,
  ResponsesInputItem,
  ResponsesMessageMetadata,
  ResponsesOutputItem,
  ResponsesTool,
} from "./responses-wire-types.js";

/** Our conversation as the Responses API wants it: the leading system prompt apart, then input items. */
export type ResponsesPrompt = { instructions: string | undefined; input: ResponsesInputItem[] };

/** How messages are converted. */
export type ResponsesInputOptions = {
  /** The provider whose `providerMetadata` and reasoning parts are this API's (e.g. "openai"). */
  provider: string;
  /**
   * Whether the server keeps responses (`store: true`). Without it, a reasoning item can only be sent back
   * with its `encrypted_content`: the server has nothing to look its id up in.
   */
  store: boolean;
};

/**
 * Converts our messages to Responses input items. The system messages before the conversation become
 * `instructions` (the API's place for them, sent on every request since nothing is stored); a system message
 * later on becomes a `developer` item where it stands, so it keeps its place in time. A tool result is a
 * `function_call_output` answering its `call_id`.
 *
 * An assistant message that came from this API goes back as the output items received (kept in its
 * `providerMetadata`), byte for byte and in their order: a reasoning item must be followed by the item that
 * followed it, or the API refuses the request. An assistant message from elsewhere, one changed since it was
 * received (text, tool calls or reasoning), or one whose reasoning cannot be sent back (no `encrypted_content`
 * while nothing is stored) is rebuilt as its text and its function calls, without reasoning and without item ids.
 * @see https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context
 */
export function convertToResponsesInput(messages: readonly Message[], options: ResponsesInputOptions): ResponsesPrompt {
  const system: string[] = [];
  const input: ResponsesInputItem[] = [];
  for (const message of messages) {
    if (message.role === "system") {
      if (input.length === 0) system.push(message.content);
      else input.push({ role: "developer", content: message.content });
    } else if (message.role === "user")
      input.push({ role: "user", content: message.parts?.length ? [...textInput(message), ...partInputs(message)] : message.content });
    else if (message.role === "tool")
      input.push({
        type: "function_call_output",
        call_id: message.toolCallId ?? "",
        // A function's output may be a list of inputs: its text, then its images and files.
        output: message.parts?.length ? [...textInput(message), ...partInputs(message)] : message.content,
      });
    else input.push(...assistantItems(message, options));
  }
  return { instructions: system.length > 0 ? system.join("\n\n") : undefined, input };
}

function textInput(message: Message): ResponsesInputContent[] {
  return message.content === "" ? [] : [{ type: "input_text", text: message.content }];
}

/** A message's images and documents as Responses inputs: `input_image` (a data: URL for bytes), `input_file` for a PDF. */
function partInputs(message: Message): ResponsesInputContent[] {
  return (message.parts ?? []).map((part): ResponsesInputContent => {
    if (part.type === "document")
      return { type: "input_file", filename: part.name ?? "document.pdf", file_data: `data:${part.mediaType};base64,${part.data}` };
    return {
      type: "input_image",
      detail: "auto",
      image_url: part.data !== undefined ? `data:${part.mediaType};base64,${part.data}` : part.url,
    };
  });
}

/**
 * Our tool schemas as function tools. `strict` is false: strict mode wants every property required and
 * `additionalProperties: false`, which ordinary tool schemas do not say (arguments are checked by the registry).
 */
export function convertToResponsesTools(tools: readonly ToolSchema[]): ResponsesTool[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  }));
}

function assistantItems(message: Message, options: ResponsesInputOptions): ResponsesInputItem[] {
  const received = receivedItems(message, options);
  if (received) return received as unknown as ResponsesInputItem[];
  const items: ResponsesInputItem[] = [];
  if (message.content !== "") items.push({ role: "assistant", content: message.content });
  for (const call of message.toolCalls ?? [])
    items.push({ type: "function_call", call_id: call.id, name: call.name, arguments: JSON.stringify(call.arguments) });
  return items;
}

/**
 * The output items this message was received as, when they still say what it says (same text, same tool
 * calls with the same ids, same reasoning) and can be sent back; otherwise undefined, and it is rebuilt.
 */
function receivedItems(message: Message, options: ResponsesInputOptions): ResponsesOutputItem[] | undefined {
  const output = (message.providerMetadata?.[options.provider] as Partial<ResponsesMessageMetadata> | undefined)?.output;
  if (!Array.isArray(output) || output.length === 0) return undefined;
  if (!output.every((item) => typeof item === "object" && item !== null && typeof item.type === "string")) return undefined;
  const ofType = (type: string) => output.filter((item) => item.type === type);
  const text = ofType("message")
    .flatMap((item) => item.content ?? [])
    .map((part) => (part.type === "output_text" ? part.text : part.type === "refusal" ? part.refusal : ""))
    .join("");
  const calls = ofType("function_call").map((item) =>
    JSON.stringify([item.call_id, item.name ?? "", createToolCall("", "", item.arguments).arguments]),
  );
  const expectedCalls = (message.toolCalls ?? []).map((call) => JSON.stringify([call.id, call.name, call.arguments]));
  const reasoning = ofType("reasoning");
  const expectedReasoning = (message.reasoning ?? []).filter((part) => part.provider === options.provider).map((part) => part.text);
  const sendable = options.store || reasoning.every((item) => typeof item.encrypted_content === "string" && item.encrypted_content !== "");
  const same = (left: unknown[], right: unknown[]) => left.length === right.length && left.every((value, index) => value === right[index]);
  return sendable && text === message.content && same(calls, expectedCalls) && same(reasoning.map(reasoningText), expectedReasoning)
    ? output
    : undefined;
}
