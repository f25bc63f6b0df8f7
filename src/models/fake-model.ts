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
    const request = recordRequest(this.#transcript(messages), messages.length, tools.slice());
    if (toolChoice !== undefined) request.toolChoice = typeof toolChoice === "string" ? toolChoice : { ...toolChoice };
    if (responseFormat !== undefined) request.responseFormat = responseFormat;
    this.requests.push(request);
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

/** Hands back the object it is given: a subclass's private fields are then put on that (plain) object. */
class OnObject {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the point: RequestSource's fields go on a plain object.
    return target;
  }
}

/**
 * Where a request's `messages` come from: the first `length` of `transcript`, sliced when first read (and then kept).
 * Kept in private fields on the request itself, which stays a plain object (`toStrictEqual({ messages, tools })`
 * holds) and shows nothing more: a WeakMap from requests did the same at about twice the cost per model call.
 */
class RequestSource extends OnObject {
  #transcript: readonly Message[];
  #length: number;
  #messages: Message[] | undefined;

  constructor(request: object, transcript: readonly Message[], length: number) {
    super(request);
    this.#transcript = transcript;
    this.#length = length;
  }

  static read(request: RequestSource): Message[] {
    request.#messages ??= request.#transcript.slice(0, request.#length);
    return request.#messages;
  }

  static write(request: RequestSource, messages: Message[]): void {
    request.#messages = messages;
  }
}

/**
 * `messages` of every request: one getter and one setter for all of them. Accessors made per request (closures)
 * gave every request object a shape of its own, a slow dictionary object per model call; shared ones let V8 give
 * all requests one shape.
 */
const messagesProperty: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: RequestSource): Message[] {
    return RequestSource.read(this);
  },
  set(this: RequestSource, value: Message[]) {
    RequestSource.write(this, value);
  },
};

/** A request whose `messages` are the first `length` of `transcript`, sliced when first read (and then kept). */
function recordRequest(transcript: readonly Message[], length: number, tools: ToolSchema[]): FakeModelRequest {
  const request = {} as FakeModelRequest;
  Object.defineProperty(request, "messages", messagesProperty);
  new RequestSource(request, transcript, length);
  request.tools = tools;
  return request;
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
