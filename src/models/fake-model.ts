import type { Message, Model, ModelCallOptions, ModelResponse, ResponseFormat, ToolChoice, ToolSchema } from "../core/types.js";
import { throwIfAborted, UsageError } from "../errors.js";
import { toText } from "../text.js";

/**
 * One scripted reply: a final answer, a whole response, or a function of what the model was sent
 * (the messages, the tools, and the call's options, e.g. its `toolChoice`).
 */
export type FakeModelScriptItem =
  | string
  | ModelResponse
  | ((messages: Message[], tools: ToolSchema[], options: ModelCallOptions) => ModelResponse | Promise<ModelResponse>);

/**
 * What a FakeModel was sent on one call, as it was at that call. `messages` is made when first read
 * (see {@link FakeModel.requests}).
 */
export type FakeModelRequest = {
  messages: Message[];
  tools: ToolSchema[];
  /** The call's tool choice; absent when the caller gave none (the provider's default, `"auto"`). */
  toolChoice?: ToolChoice;
  /** The call's response format (native structured output); absent when the caller gave none. */
  responseFormat?: ResponseFormat;
};

/** Settings of a {@link FakeModel}. */
export type FakeModelOptions = {
  /** Say that the model has native structured output, so that an agent with an output schema sends `responseFormat` (default false). */
  supportsResponseFormat?: boolean | undefined;
};

/**
 * A scripted model for tests and offline demos: it answers each call with the next script item
 * and records every request for assertions (`fake.requests[0].tools`, `fake.requests[0].toolChoice`).
 */
export class FakeModel implements Model {
  readonly provider = "fake";
  readonly modelId = "fake-model";
  readonly supportsResponseFormat: boolean;
  /**
   * Every request received, in order: `requests[i].messages` is exactly what call i was sent. Without
   * copying the conversation at every call (10,000 steps would hold 10,000 growing copies, quadratic
   * memory): each conversation array is kept once, as a copy extended with what is appended to it
   * (a run appends to one array; `prepareTurn` rewrites give a new one), and `requests[i].messages` is
   * that copy's first messages, sliced when first read.
   */
  readonly requests: FakeModelRequest[] = [];
  readonly #script: readonly FakeModelScriptItem[];
  /** Each conversation array seen, and the copy of its messages so far. */
  readonly #transcripts = new WeakMap<readonly Message[], Message[]>();

  constructor(script: readonly FakeModelScriptItem[], options: FakeModelOptions = {}) {
    if (!Array.isArray(script)) throw new UsageError("FakeModel expects an array of script items (strings, ModelResponses or functions).");
    this.#script = script;
    this.supportsResponseFormat = options.supportsResponseFormat ?? false;
  }

  /** How many script items have not been used yet. */
  get remaining(): number {
    return this.#script.length - this.requests.length;
  }

  async complete(messages: Message[], tools: ToolSchema[], options: ModelCallOptions = {}): Promise<ModelResponse> {
    throwIfAborted(options.signal);
    const call = this.requests.length;
    const { toolChoice, responseFormat } = options;
    this.requests.push(
      recordRequest(this.#transcript(messages), messages.length, {
        tools: tools.slice(),
        ...(toolChoice !== undefined && { toolChoice: typeof toolChoice === "string" ? toolChoice : { ...toolChoice } }),
        ...(responseFormat !== undefined && { responseFormat }),
      }),
    );
    const item = this.#script[call];
    if (item === undefined) {
      throw new UsageError(
        `FakeModel script ran out: call ${call + 1} was made but the script has ${this.#script.length} item(s). Add a reply for this call.`,
      );
    }
    const response = typeof item === "function" ? await item(messages.slice(), tools, options) : toResponse(item);
    throwIfAborted(options.signal);
    if (options.onEvent) streamResponse(response, options.onEvent);
    return response;
  }

  /**
   * The copy of a conversation, brought up to date: the messages appended since the last call are added
   * to it (messages are never mutated once appended, so copying the references keeps what was sent). A
   * conversation that shrank or whose ends changed was rewritten: it gets a new copy, and the requests
   * that used the old one keep it.
   */
  #transcript(messages: readonly Message[]): Message[] {
    let copy = this.#transcripts.get(messages);
    const length = copy?.length ?? 0;
    if (!copy || length > messages.length || (length > 0 && (messages[0] !== copy[0] || messages[length - 1] !== copy[length - 1]))) {
      copy = [];
      this.#transcripts.set(messages, copy);
    }
    for (let index = copy.length; index < messages.length; index++) copy.push(messages[index] as Message);
    return copy;
  }
}

/** A request whose `messages` are the first `length` of `transcript`, sliced when first read (and then kept). */
function recordRequest(transcript: readonly Message[], length: number, rest: Omit<FakeModelRequest, "messages">): FakeModelRequest {
  let messages: Message[] | undefined;
  const request = {} as FakeModelRequest;
  Object.defineProperty(request, "messages", {
    enumerable: true,
    configurable: true,
    get: () => {
      messages ??= transcript.slice(0, length);
      return messages;
    },
    set: (value: Message[]) => {
      messages = value;
    },
  });
  return Object.assign(request, rest);
}

function toResponse(item: string | ModelResponse): ModelResponse {
  return typeof item === "string" ? { message: { role: "assistant", content: item }, stopReason: "end_turn" } : item;
}

/** Replays a scripted response as stream events, so streaming consumers can be tested offline. */
function streamResponse(response: ModelResponse, onEvent: NonNullable<ModelCallOptions["onEvent"]>): void {
  for (const part of response.message.reasoning ?? []) if (part.text) onEvent({ type: "reasoning-delta", text: part.text });
  if (response.message.content) onEvent({ type: "text-delta", text: response.message.content });
  response.message.toolCalls?.forEach((toolCall, index) => {
    onEvent({ type: "tool-input-start", index, id: toolCall.id, name: toolCall.name });
    onEvent({ type: "tool-input-delta", index, argumentsDelta: toText(toolCall.arguments) });
    onEvent({ type: "tool-input-end", index, toolCall });
  });
  if (response.usage) onEvent({ type: "usage", usage: response.usage });
}
