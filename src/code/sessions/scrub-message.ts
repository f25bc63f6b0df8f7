import { createSecretScrubber, type Message, type ReasoningPart, type SecretScrubber, type ToolCall } from "../../engine.js";

/**
 * The scrubber sessions use: the trace scrubber's patterns (API keys, tokens, private keys, credentials in URLs
 * and in `name: value` / `NAME=value` text, secret object keys), the given values, and nothing cut (a session must
 * give back whole messages).
 */
export function createSessionScrubber(secrets: readonly (string | undefined)[]): SecretScrubber {
  return createSecretScrubber({ secrets, maxPayloadLength: Number.POSITIVE_INFINITY });
}

/**
 * Values of this environment's variables whose names say they hold credentials (`ANTHROPIC_API_KEY`,
 * `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `DB_PASSWORD`…), so that they are hidden wherever they appear, even in
 * a shape no pattern knows. Values under 8 characters and plain words are left out: hiding every "true" would
 * garble the conversation and protect nothing.
 */
export function environmentSecrets(env: NodeJS.ProcessEnv, scrubber: SecretScrubber): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < 8 || /^[A-Za-z]+$/.test(value)) continue;
    if (scrubber.isSecretKey(name)) secrets.push(value);
  }
  return secrets;
}

/**
 * A message as a session may keep it: secrets hidden in its text, its tool calls' arguments (values of secret
 * keys too) and its reasoning. Reasoning whose text changed loses its signature (a provider must not be sent
 * modified reasoning as if it were the original), and a message that changed loses its `providerMetadata` (the
 * raw response, which holds the same secrets), so that an adapter rebuilds it from the scrubbed fields.
 * Keys are written in a fixed order, `role` first: `list` counts lines by how they start.
 */
export function scrubMessage(message: Message, scrubber: SecretScrubber): Message {
  const content = scrubber.text(message.content);
  let changed = content !== message.content;
  const toolCalls = message.toolCalls?.map((call) => {
    const scrubbed = scrubToolCall(call, scrubber);
    if (scrubbed !== call) changed = true;
    return scrubbed;
  });
  const reasoning = message.reasoning?.map((part) => {
    const scrubbed = scrubReasoning(part, scrubber);
    if (scrubbed !== part) changed = true;
    return scrubbed;
  });
  return {
    role: message.role,
    content,
    ...(toolCalls && { toolCalls }),
    ...(message.toolCallId !== undefined && { toolCallId: message.toolCallId }),
    ...(message.isError !== undefined && { isError: message.isError }),
    ...(reasoning && { reasoning }),
    // Images and documents are kept as they are: bytes, not text a secret could be found in.
    ...(message.parts && { parts: message.parts }),
    ...(message.providerMetadata && !changed && { providerMetadata: scrubber.value(message.providerMetadata) }),
  };
}

/** A tool call with secrets hidden in its arguments; the same object when there were none. */
export function scrubToolCall(call: ToolCall, scrubber: SecretScrubber): ToolCall {
  const json = JSON.stringify(call.arguments);
  const args = scrubber.value(call.arguments);
  const argumentsError = call.argumentsError === undefined ? undefined : scrubber.text(call.argumentsError);
  if (JSON.stringify(args) === json && argumentsError === call.argumentsError) return call;
  return { id: call.id, name: call.name, arguments: args, ...(argumentsError !== undefined && { argumentsError }) };
}

function scrubReasoning(part: ReasoningPart, scrubber: SecretScrubber): ReasoningPart {
  const text = scrubber.text(part.text);
  if (text === part.text) return part;
  const { signature: _dropped, ...rest } = part;
  return { ...rest, text };
}
