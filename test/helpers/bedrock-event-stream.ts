import { EventStreamCodec } from "@smithy/eventstream-codec";

// @smithy/util-utf8 is not installed here; TextEncoder/TextDecoder are the same conversions.
const codec = new EventStreamCodec(
  (bytes) => new TextDecoder().decode(bytes),
  (text) => new TextEncoder().encode(text),
);

const string = (value: string) => ({ type: "string" as const, value });

/**
 * Frames ConverseStream events as AWS event-stream messages, each `{ "<event type>": payload }`, with the
 * headers Bedrock sends (`:event-type`, `:content-type`, `:message-type: event`, in that order). An
 * `exception` ends the stream with an exception message (`:exception-type`), as Bedrock reports a failure
 * after the stream began.
 */
export function encodeBedrockEvents(events: readonly Record<string, unknown>[], exception?: { type: string; message: string }): Uint8Array {
  const frames = events.map((event) => {
    const [type, payload] = Object.entries(event)[0] ?? ["", {}];
    return codec.encode({
      headers: { ":event-type": string(type), ":content-type": string("application/json"), ":message-type": string("event") },
      body: new TextEncoder().encode(JSON.stringify(payload)),
    });
  });
  if (exception)
    frames.push(
      codec.encode({
        headers: {
          ":exception-type": string(exception.type),
          ":content-type": string("application/json"),
          ":message-type": string("exception"),
        },
        body: new TextEncoder().encode(JSON.stringify({ message: exception.message })),
      }),
    );
  return Buffer.concat(frames);
}

type Block = { type: "text"; text: string } | { type: "toolUse"; id: string; name: string; input: Record<string, unknown> };

/**
 * The ConverseStream events of a message we write ourselves: text in word-sized deltas, a toolUse started with
 * its id and name and its input as JSON text in two pieces, then messageStop and the usage in metadata.
 */
export function bedrockStreamEvents(blocks: Block[], stopReason: string, usage = { inputTokens: 100, outputTokens: 20 }) {
  const events: Record<string, unknown>[] = [{ messageStart: { role: "assistant" } }];
  blocks.forEach((block, contentBlockIndex) => {
    if (block.type === "text") {
      for (const piece of block.text.match(/\S+\s*/g) ?? [])
        events.push({ contentBlockDelta: { contentBlockIndex, delta: { text: piece } } });
    } else {
      events.push({ contentBlockStart: { contentBlockIndex, start: { toolUse: { toolUseId: block.id, name: block.name } } } });
      const json = JSON.stringify(block.input);
      const middle = Math.floor(json.length / 2);
      for (const input of [json.slice(0, middle), json.slice(middle)])
        events.push({ contentBlockDelta: { contentBlockIndex, delta: { toolUse: { input } } } });
    }
    events.push({ contentBlockStop: { contentBlockIndex } });
  });
  events.push({ messageStop: { stopReason } });
  events.push({ metadata: { usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens }, metrics: { latencyMs: 10 } } });
  return events;
}
