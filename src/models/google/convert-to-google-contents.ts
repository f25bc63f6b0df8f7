import type { Message, ToolSchema } from "../../core/types.js";
import type { GoogleContent, GoogleFunctionDeclaration, GoogleMessageMetadata, GooglePart } from "./google-wire-types.js";

/** Our conversation as the Gemini API wants it: the system prompt apart, then `user` and `model` turns. */
export type GooglePrompt = { systemInstruction: string | undefined; contents: GoogleContent[] };

/** A tool call of the conversation, as its result must name it: the function, and the API's own call id if it sent one. */
type CallOrigin = { name: string; providerId: string | undefined };

/**
 * Converts our messages to Gemini contents. System messages become the `systemInstruction`. An assistant
 * message that came from Gemini goes back as the parts received (kept in its `providerMetadata.google`),
 * unchanged and in their order, so every `thoughtSignature` returns on the part it arrived on (Gemini 3
 * refuses a function call sent back without its signature). Any other assistant message, or one changed
 * since it was received, is rebuilt from its text and tool calls, without signatures. Gemini's function
 * calls have no id of their own (or only on newer API versions): a tool message is answered by a
 * `functionResponse` naming the function of the call it answers (found by our id), with the API's id when
 * there was one; the results of one turn go together in one `user` turn.
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export function convertToGoogleContents(messages: readonly Message[]): GooglePrompt {
  const system: string[] = [];
  const contents: GoogleContent[] = [];
  const calls = new Map<string, CallOrigin>();
  // The results' images and documents follow all of the turn's functionResponses, in the same user turn: Gemini
  // wants a turn's function responses together.
  let resultParts: GooglePart[] = [];
  messages.forEach((message, index) => {
    if (message.role === "system") system.push(message.content);
    else if (message.role === "assistant") pushTurn(contents, "model", modelParts(message, calls));
    else if (message.role === "tool") {
      pushTurn(contents, "user", [functionResponsePart(message, calls)]);
      resultParts.push(...inlineParts(message));
    } else pushTurn(contents, "user", [...(message.content === "" ? [] : [{ text: message.content }]), ...inlineParts(message)]);
    if (resultParts.length > 0 && messages[index + 1]?.role !== "tool") {
      pushTurn(contents, "user", resultParts);
      resultParts = [];
    }
  });
  return { systemInstruction: system.length > 0 ? system.join("\n\n") : undefined, contents };
}

/** Our tool schemas as one Gemini tool of function declarations, each with its JSON Schema as `parametersJsonSchema`. */
export function convertToGoogleTools(tools: readonly ToolSchema[]): { functionDeclarations: GoogleFunctionDeclaration[] }[] {
  if (tools.length === 0) return [];
  return [
    {
      functionDeclarations: tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parametersJsonSchema: tool.parameters,
      })),
    },
  ];
}

function modelParts(message: Message, calls: Map<string, CallOrigin>): GooglePart[] {
  const toolCalls = message.toolCalls ?? [];
  const received = receivedParts(message);
  if (received) {
    const callParts = received.filter((part) => part.functionCall);
    for (const [index, call] of toolCalls.entries())
      calls.set(call.id, { name: call.name, providerId: callParts[index]?.functionCall?.id });
    // A copy: pushTurn may append the next turn's parts to this array.
    return [...received];
  }
  for (const call of toolCalls) calls.set(call.id, { name: call.name, providerId: undefined });
  return [
    ...(message.content === "" ? [] : [{ text: message.content }]),
    ...toolCalls.map((call) => ({ functionCall: { name: call.name, args: call.arguments } })),
  ];
}

/**
 * The parts this message was received as, when it still says what they say: the same text, the same calls
 * (names and arguments; the ids are ours). A message edited since is rebuilt instead, so the edit is not undone.
 */
function receivedParts(message: Message): GooglePart[] | undefined {
  const metadata = message.providerMetadata?.google as Partial<GoogleMessageMetadata> | undefined;
  const parts = metadata?.parts;
  if (!Array.isArray(parts) || !parts.every((part) => typeof part === "object" && part !== null)) return undefined;
  const text = parts
    .filter((part) => typeof part.text === "string" && !part.thought)
    .map((part) => part.text)
    .join("");
  const calls = parts
    .filter((part) => part.functionCall)
    .map((part) => JSON.stringify([part.functionCall?.name, part.functionCall?.args ?? {}]));
  const expected = (message.toolCalls ?? []).map((call) => JSON.stringify([call.name, call.arguments]));
  const sameText = text === message.content || (text === "" && metadata?.blockedNotice === message.content);
  const sameCalls = calls.length === expected.length && calls.every((call, index) => call === expected[index]);
  return sameText && sameCalls ? parts : undefined;
}

/**
 * A message's images and documents as Gemini parts: bytes as `inlineData`. An image known only by a web URL is
 * named in words: the API fetches only files it stores (Files API, Cloud Storage), not any URL.
 */
function inlineParts(message: Message): GooglePart[] {
  return (message.parts ?? []).map((part): GooglePart => {
    if (part.data !== undefined) return { inlineData: { mimeType: part.mediaType, data: part.data } };
    return { text: `[An image at ${part.url}, which cannot be sent to this model as a URL: fetch it and send its bytes.]` };
  });
}

function functionResponsePart(message: Message, calls: Map<string, CallOrigin>): GooglePart {
  const call = calls.get(message.toolCallId ?? "");
  return {
    functionResponse: {
      // A result whose call is not in the conversation (a trimmed history) still needs a name: its id is all there is.
      name: call?.name ?? message.toolCallId ?? "",
      ...(call?.providerId !== undefined && { id: call.providerId }),
      response: message.isError ? { error: message.content } : { output: message.content },
    },
  };
}

/** Appends parts as a turn, merging with the previous turn of the same role (turns alternate; a turn's results go together). */
function pushTurn(contents: GoogleContent[], role: "user" | "model", parts: GooglePart[]): void {
  if (parts.length === 0) return;
  const previous = contents.at(-1);
  if (previous?.role === role && Array.isArray(previous.parts)) previous.parts.push(...parts);
  else contents.push({ role, parts });
}
