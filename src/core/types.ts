/**
 * The engine's vocabulary: messages, tool calls, model responses, steps and results.
 * Everything a provider, a pattern or a test speaks is defined here.
 */

/** A request from the model to run one tool. */
export type ToolCall = {
  /** Provider-assigned id; the tool message answering this call carries it as `toolCallId`. */
  id: string;
  /** Name of the tool to run, as the model wrote it (it may not exist). */
  name: string;
  /** Parsed arguments. Checked against the tool's schema before the tool runs. */
  arguments: Record<string, unknown>;
  /**
   * Set by a model adapter when the model's arguments could not be read as a JSON object (invalid or
   * truncated JSON): why, in words the model can act on. `arguments` is then `{}`, and the executor
   * answers the call with this as an error observation instead of running the tool.
   */
  argumentsError?: string;
};

/**
 * Model reasoning that a provider asks to be sent back unchanged, such as an Anthropic
 * `thinking` block with its signature. Recorders may read `text`; nothing parses it.
 */
export type ReasoningPart = {
  /** The reasoning text, when the provider shows it ("" for redacted reasoning). */
  text: string;
  /** Provider signature that must accompany `text` when it is sent back. */
  signature?: string;
  /** Opaque encrypted reasoning (Anthropic `redacted_thinking`), sent back as is. */
  redactedData?: string;
  /** Which provider produced this part; other providers drop it. */
  provider?: string;
};

/** The image formats every provider adapter sends (Anthropic's, OpenAI's, Gemini's and Bedrock's common set). */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/**
 * What a message shows the model beside its text: an image (its bytes, base64, or a URL the provider fetches) or a
 * PDF document (its bytes, base64). Adapters map each to their wire's blocks; a provider that cannot take one (a URL
 * where only bytes are accepted) is told in words instead, never silently given nothing.
 */
export type ContentPart =
  | { type: "image"; mediaType: ImageMediaType; data: string; url?: undefined }
  | { type: "image"; url: string; mediaType?: ImageMediaType | undefined; data?: undefined }
  | {
      type: "document";
      mediaType: "application/pdf";
      data: string;
      /** A name the model may see (the file's name). */
      name?: string | undefined;
    };

/** One entry of the conversation the model sees. */
export type Message = {
  role: "system" | "user" | "assistant" | "tool";
  /** Text of the message. For an assistant turn with tool calls this is the model's "thought". */
  content: string;
  /**
   * Images and documents that go with `content` (a pasted screenshot, the PNG a Read returned, an MCP tool's chart),
   * after its text: on user and tool messages. `content` stays the message's text, so readers of text need not
   * know about parts.
   */
  parts?: ContentPart[];
  /** Tool calls the assistant asked for in this message. */
  toolCalls?: ToolCall[];
  /** On a tool message: the id of the call it answers. */
  toolCallId?: string;
  /** On a tool message: true when the observation reports a failure (bad arguments, a throw, a timeout). */
  isError?: boolean;
  /** Provider-preserved reasoning on an assistant message, in the order it was produced. */
  reasoning?: ReasoningPart[];
  /**
   * Opaque data a provider adapter stores on a message and reads back verbatim when the same provider
   * is called again (e.g. the message exactly as the provider sent it), keyed by provider name. Other
   * providers ignore it; the engine never reads it. It must stay JSON-serialisable.
   */
  providerMetadata?: Record<string, unknown>;
};

/**
 * Why the model stopped. `tool_use` and `end_turn` are the two primitives the loop is built on;
 * the others are reported as they happened.
 */
export type StopReason = "tool_use" | "end_turn" | "max_tokens" | "stop_sequence" | "refusal" | "pause_turn";

/** Token accounting of one model call or of a whole run. */
export type Usage = {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache (part of `inputTokens` or in addition, as the provider reports). */
  cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache. */
  cacheWriteTokens?: number;
  /** Output tokens spent on hidden reasoning. */
  reasoningTokens?: number;
};

/** What one model call returns. */
export type ModelResponse = {
  message: Message;
  stopReason: StopReason;
  usage?: Usage;
};

/** The description of a tool that a model is sent. */
export type ToolSchema = {
  name: string;
  description: string;
  /** A JSON Schema object describing the arguments. */
  parameters: JsonSchema;
};

/** A JSON Schema document, as a plain object. */
export type JsonSchema = Record<string, unknown>;

/** Events a model may emit while it streams a response (see {@link ModelCallOptions.onEvent}). */
export type ModelStreamEvent =
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  | { type: "tool-input-start"; index: number; id: string; name: string }
  | { type: "tool-input-delta"; index: number; argumentsDelta: string }
  | { type: "tool-input-end"; index: number; toolCall: ToolCall }
  | { type: "usage"; usage: Usage }
  /**
   * The call failed and will be tried again after `delayMs` (`attempt` is the attempt that failed, 1 for
   * the first). Whatever was streamed since the call started is void: the next attempt streams its
   * response from the beginning, so a listener that showed text drops it or marks it replaced. `streamed`
   * says whether the failed attempt had streamed anything. `error` describes the failure, without
   * secrets: its provider, minagent's kind (`connection`, `timeout`, `api`…), HTTP status, the
   * provider's error type, and the provider's message.
   */
  | {
      type: "model-call-retry";
      attempt: number;
      delayMs: number;
      streamed: boolean;
      error: { provider: string; kind: string; status?: number; errorType?: string; message: string };
    };

/**
 * How the model may use the tools it is sent on one call: as it likes (`"auto"`, the default), not at all
 * (`"none"`), at least one (`"required"`), or the one named. Adapters map it to their wire's `tool_choice`,
 * sent only when the call has tools. A model may be unable to force a tool: Anthropic's API refuses it with
 * extended thinking, so there `"required"` and `{ name }` are sent as `auto` (see docs/providers.md).
 */
export type ToolChoice = "auto" | "none" | "required" | { name: string };

/** Per-call options the engine passes to a model. */
export type ModelCallOptions = {
  /** Aborts the call; a model must reject promptly with an AbortError. */
  signal?: AbortSignal | undefined;
  /** When given, a model that can stream does so and reports deltas here; it still resolves to the full response. */
  onEvent?: ((event: ModelStreamEvent) => void) | undefined;
  /** How the model may use the tools of this call (default: the provider's, `"auto"`). */
  toolChoice?: ToolChoice | undefined;
  /**
   * Ask that a final answer (a turn without tool calls) be JSON text matching this schema, through the
   * provider's native structured output. The engine sends it only to a model whose `supportsResponseFormat`
   * is true; for other models typed output goes through a final-answer tool instead.
   */
  responseFormat?: ResponseFormat | undefined;
};

/** A JSON Schema the model's final answer must match (see {@link ModelCallOptions.responseFormat}). */
export type ResponseFormat = {
  /** A name for the schema, as providers ask for one: letters, digits, `_` and `-`. */
  name: string;
  /** The JSON Schema of the answer. */
  schema: JsonSchema;
};

/** A language model the engine can call. Implement this to plug in any provider. */
export interface Model {
  /** Provider name for traces and errors, e.g. "anthropic". */
  readonly provider?: string;
  /** Model id for traces, e.g. "claude-sonnet-4-6". */
  readonly modelId?: string;
  /** True when this model honours {@link ModelCallOptions.responseFormat} (native structured output). */
  readonly supportsResponseFormat?: boolean;
  /** Sends the conversation and the available tools; resolves to the model's next message. */
  complete(messages: Message[], tools: ToolSchema[], options?: ModelCallOptions): Promise<ModelResponse>;
}

/** Kinds of step a recorder writes. Patterns add their own (e.g. "plan", "reflection"). */
export type StepKind = "thought" | "action" | "observation" | "approval" | "final" | "error" | (string & {});

/** One entry of a run's trajectory. */
export type Step = {
  /** The 0-based turn (model call) the step belongs to. */
  index: number;
  kind: StepKind;
  /** Human-readable detail: the thought text, `tool(args)`, the tool's result, why a call waits for approval, the final answer. */
  detail: string;
};

/**
 * How a run ended: the model answered (`completed`), it used up `maxSteps` model calls (`max_steps`), or a
 * tool call needs a decision before the run can go on (`interrupted`: see `pending` and `Agent.resume`).
 */
export type RunStatus = "completed" | "max_steps" | "interrupted";

/** A tool call an interrupted run is waiting on: a person (or a program) must allow or deny it. */
export type PendingToolCall = {
  /** The call exactly as the model made it. */
  toolCall: ToolCall;
  /** Why it needs a decision, when the permission check said. */
  reason?: string;
  /**
   * Not started because an earlier call of its turn waits for a decision (a registry with `orderEffects` keeps
   * the model's order of effects). It needs no decision of its own: on resume it runs after the earlier ones,
   * through the usual permission checks, unless a decision is given for it.
   */
  deferred?: true;
  /** The tools its turn offered, when `prepareTurn` restricted them: on resume a deferred call is held to them. */
  offeredTools?: string[];
};

/**
 * What a run returns. It is plain JSON: `JSON.stringify` it to resume an interrupted run in another process.
 * `Output` is the type of `output`, from the agent's output schema.
 */
export type RunResult<Output = unknown> = {
  /** This run's id; every event of the run carries it. */
  runId: string;
  /** How the run ended. */
  status: RunStatus;
  /** The whole conversation, including any history the run continued. */
  messages: Message[];
  /** The recorded trajectory. */
  steps: Step[];
  /** The final answer; "" unless `status` is `completed`. With an output schema, the answer as JSON text. */
  final: string;
  /**
   * The answer, validated by the agent's output schema (`AgentOptions.output`, after the schema library's
   * transforms): present when the agent has one and `status` is `completed`.
   */
  output?: Output;
  /** Tokens used by all model calls of the run, its child runs' included. */
  usage: Usage;
  /** Model calls made (a resumed run counts those before the interruption too). */
  turns: number;
  /** The calls an `interrupted` run waits on (empty otherwise), in call order. */
  pending: PendingToolCall[];
};
