import type { AgentEvent } from "../core/events.js";
import type { Message, Model, StopReason, ToolCall } from "../core/types.js";
import { addUsage, emptyUsage } from "../core/usage.js";
import { describePartWithDigest } from "./describe-part.js";
import { genAiOperations, toGenAiMessages, traceAttributes, usageAttributes, writeGenAiMessages } from "./gen-ai-attributes.js";
import type { SecretScrubber } from "./scrub-secrets.js";
import type { SpanAttributes, SpanKind, SpanStatus, SpanType } from "./trace.js";
import { endSpan, type OpenSpan, TraceSpans } from "./trace-spans.js";

/** What a listener is told about the traced agent: its name, and optionally which model to name (else run-start's). */
export type TraceSubject = {
  /** The agent's model; its `provider` and `modelId` name the model-call spans. */
  model?: Pick<Model, "provider" | "modelId"> | undefined;
  /** Written as `gen_ai.agent.name` and into the run span's name. */
  agentName?: string | undefined;
};

/** Settings a builder gets from its tracer. */
export type SpanTreeBuilderOptions = {
  subject: TraceSubject;
  scrubber: SecretScrubber;
  /** Record messages, arguments, results and answers (scrubbed and truncated), not only names and sizes. */
  recordPayloads: boolean;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Random hex of `bytes` bytes. */
  createId: (bytes: number) => string;
};

type RunStart = Extract<AgentEvent, { type: "run-start" }>;

/** The client span of a tool call (the action) and, once it runs, its server span (the execution). */
type ToolSpans = { client: OpenSpan; server?: OpenSpan };

/**
 * Builds the spans of one run from its events, timestamping each event on receipt (events are
 * delivered synchronously as things happen). A top-level run starts a trace; a run started under it
 * ({@link startChild}) draws its spans in the same trace, under the tool call that started it.
 * A tool call's client span starts when the model asks for it and its server span when it starts
 * running, so waiting under a concurrency limit is visible.
 */
export class SpanTreeBuilder {
  /** The run this builder draws. */
  readonly runId: string;
  /** The trace it draws into: its own for a top-level run, else its parent's. */
  readonly trace: TraceSpans;
  /** Which of its tracer's listeners records this run (the first to hear it): any token the tracer chooses. */
  readonly recordedBy: unknown;
  readonly #options: SpanTreeBuilderOptions;
  readonly #parent: SpanTreeBuilder | undefined;
  /** Child runs that have not ended: a run that ends first closes them. */
  readonly #openChildren = new Set<SpanTreeBuilder>();
  #closed = false;
  readonly #run: OpenSpan;
  readonly #tools = new Map<ToolCall, ToolSpans>();
  /** Tokens of this run's model calls and of its ended child runs'. */
  readonly #usage = emptyUsage();
  #usageReported = false;
  #pendingCount = 0;
  #turn: OpenSpan | undefined;
  /** The spans started under the current turn, so that ending it looks at them alone. */
  #turnChildren: OpenSpan[] = [];
  #modelCall: OpenSpan | undefined;
  /** The model's attributes, scrubbed once: every model-call span carries them. */
  readonly #modelAttributes: SpanAttributes;
  /** Messages the previous model call was sent, the last of them, and its reply: to find what each call adds. */
  #sentCount = 0;
  #lastSent: Message | undefined;
  #lastReply: Message | undefined;
  /** The tool list of the previous call and its scrubbed names: the same list on every call of a run. */
  #offeredTools: { tools: readonly { name: string }[]; names: string[] } | undefined;

  /** Starts a top-level run's trace, or (with `parent`) a child run in its parent's trace. */
  constructor(start: RunStart, options: SpanTreeBuilderOptions, recordedBy: unknown, parent?: SpanTreeBuilder) {
    this.runId = start.runId;
    this.recordedBy = recordedBy;
    this.#options = options.subject.model ? options : { ...options, subject: { ...options.subject, model: start.model } };
    this.#parent = parent;
    this.trace = parent ? parent.trace : new TraceSpans(options.createId);
    const { provider, modelId } = this.#options.subject.model ?? {};
    this.#modelAttributes = {
      ...(provider && { [traceAttributes.providerName]: options.scrubber.text(provider) }),
      ...(modelId && { [traceAttributes.requestModel]: options.scrubber.text(modelId) }),
    };
    // The listener's name for its own agent wins; a child run is named by whoever started it.
    const agentName = options.subject.agentName ?? start.name;
    this.#run = this.#start(
      "run",
      "internal",
      agentName ? `invoke_agent ${agentName}` : "invoke_agent",
      parent === undefined ? undefined : parent.#spanForChild(start),
      {
        [traceAttributes.operationName]: genAiOperations.invokeAgent,
        ...this.#modelAttributes,
        ...(agentName && { [traceAttributes.agentName]: agentName }),
        ...(start.attributes && scrubbedAttributes(start.attributes, options.scrubber)),
        [traceAttributes.runId]: start.runId,
      },
    );
    this.#payload(this.#run, traceAttributes.runInput, start.input);
    if (parent !== undefined) parent.#openChildren.add(this);
  }

  /** True for a run started by no run this tracer knows: its end finishes the trace. */
  get isTopLevel(): boolean {
    return this.#parent === undefined;
  }

  /** The builder of a run started under this one (by one of its tool calls, or by a pattern). */
  startChild(start: RunStart, options: SpanTreeBuilderOptions, recordedBy: unknown): SpanTreeBuilder {
    return new SpanTreeBuilder(start, options, recordedBy, this);
  }

  /** Applies one event of this run. Returns true once the run has ended or failed. */
  add(event: AgentEvent): boolean {
    if (this.#closed) return event.type === "run-end" || event.type === "run-error";
    switch (event.type) {
      case "model-call-start":
        this.#startTurn(event.turn, event.messages, event.tools);
        return false;
      case "text-delta":
      case "reasoning-delta":
      case "tool-input-start":
        this.#markFirstChunk();
        return false;
      case "model-call-end":
        this.#endModelCall(event);
        return false;
      case "tool-call-start":
        this.#startToolExecution(event.toolCall, event.turn);
        return false;
      case "tool-call-end":
        this.#endToolCall(event.toolCall, event.turn, event.result.content, event.result.isError);
        return false;
      case "tool-call-pending":
        this.#pendToolCall(event.toolCall, event.turn, event.reason);
        return false;
      case "run-end":
        this.#endRun(event);
        return true;
      case "run-error":
        this.#fail(describeError(event.error), errorType(event.error));
        return true;
      default:
        return false;
    }
  }

  /** Where a child run's span goes: under the execution of the tool call that started it, else under this run. */
  #spanForChild({ parentToolCallId }: RunStart): OpenSpan {
    if (parentToolCallId === undefined) return this.#run;
    for (const [call, spans] of this.#tools) if (call.id === parentToolCallId) return spans.server ?? spans.client;
    return this.#run;
  }

  #startTurn(turn: number, messages: readonly Message[], tools: readonly { name: string }[]): void {
    const now = this.#options.now();
    this.#endTurn();
    this.#turn = this.#start("turn", "internal", `turn ${turn}`, this.#run, { [traceAttributes.turnIndex]: turn }, now);
    this.#turnChildren = [];
    const modelId = this.#options.subject.model?.modelId;
    const firstNew = this.#firstNewMessage(messages);
    this.#modelCall = this.#start(
      "model-call",
      "client",
      modelId ? `chat ${modelId}` : "chat",
      this.#turn,
      {
        [traceAttributes.operationName]: genAiOperations.chat,
        ...this.#modelAttributes,
        [traceAttributes.requestMessageCount]: messages.length,
        [traceAttributes.requestNewMessageIndex]: firstNew,
        [traceAttributes.requestToolNames]: this.#toolNames(tools),
      },
      now,
    );
    // Only what this call adds: recording the whole conversation on every call would cost each turn
    // as much as the history so far. The first call (or one after the history was rewritten) adds all.
    if (firstNew === 0) this.#messagesPayload(this.#modelCall, traceAttributes.inputMessages, messages);
    else this.#messagesPayload(this.#modelCall, traceAttributes.requestNewMessages, messages.slice(firstNew));
  }

  /**
   * Where the messages this call adds begin: after those the previous call was sent and its reply
   * (already recorded as its output), if they are still there; else 0, the whole conversation.
   */
  #firstNewMessage(messages: readonly Message[]): number {
    const sent = this.#sentCount;
    const continues = sent > 0 && messages.length >= sent && messages[sent - 1] === this.#lastSent;
    this.#sentCount = messages.length;
    this.#lastSent = messages[messages.length - 1];
    if (!continues) return 0;
    return messages[sent] !== undefined && messages[sent] === this.#lastReply ? sent + 1 : sent;
  }

  #toolNames(tools: readonly { name: string }[]): string[] {
    if (this.#offeredTools?.tools !== tools) {
      this.#offeredTools = { tools, names: tools.map((tool) => this.#options.scrubber.text(tool.name)) };
    }
    return this.#offeredTools.names;
  }

  #markFirstChunk(): void {
    const span = this.#modelCall;
    if (!span || span.endTime !== undefined || traceAttributes.timeToFirstChunk in span.attributes) return;
    // The conventions measure it in seconds.
    span.attributes[traceAttributes.timeToFirstChunk] = (this.#options.now() - span.startTime) / 1000;
  }

  #endModelCall(event: Extract<AgentEvent, { type: "model-call-end" }>): void {
    const now = this.#options.now();
    const { message, stopReason, usage } = event.response;
    addUsage(this.#usage, usage);
    this.#lastReply = message;
    if (usage) this.#usageReported = true;
    const span = this.#modelCall;
    if (span) {
      span.attributes[traceAttributes.responseFinishReasons] = [stopReason];
      if (usage) Object.assign(span.attributes, usageAttributes(usage));
      this.#messagesPayload(span, traceAttributes.outputMessages, [message], stopReason);
      endSpan(span, now);
    }
    for (const call of message.toolCalls ?? []) this.#tools.set(call, { client: this.#startToolCall(call, now) });
  }

  #startToolCall(call: ToolCall, now: number): OpenSpan {
    const name = this.#options.scrubber.text(call.name);
    const span = this.#start(
      "tool-call",
      "client",
      `execute_tool ${name}`,
      this.#turn ?? this.#run,
      {
        [traceAttributes.operationName]: genAiOperations.executeTool,
        [traceAttributes.toolName]: name,
        [traceAttributes.toolType]: "function",
        [traceAttributes.toolCallId]: this.#options.scrubber.text(call.id),
      },
      now,
    );
    this.#payload(span, traceAttributes.toolCallArguments, () => call.arguments);
    return span;
  }

  #startToolExecution(call: ToolCall, turn: number): void {
    const now = this.#options.now();
    const spans = this.#toolSpans(call, turn, now);
    const name = this.#options.scrubber.text(call.name);
    spans.server = this.#start(
      "tool-execution",
      "server",
      name,
      spans.client,
      {
        [traceAttributes.toolName]: name,
        [traceAttributes.toolCallId]: this.#options.scrubber.text(call.id),
      },
      now,
    );
  }

  #endToolCall(call: ToolCall, turn: number, content: string, isError: boolean): void {
    const now = this.#options.now();
    const spans = this.#toolSpans(call, turn, now);
    const server = spans.server ?? this.#start("tool-execution", "server", spans.client.name, spans.client, {}, now);
    this.#payload(server, traceAttributes.toolCallResult, content);
    if (isError) {
      // The observation is what the model read; it is also the clearest error message there is.
      const status: SpanStatus = { code: "error", message: this.#options.scrubber.text(content) };
      for (const span of [server, spans.client]) {
        span.status = status;
        span.attributes[traceAttributes.errorType] = "tool_error";
      }
    }
    endSpan(server, now);
    endSpan(spans.client, now);
    this.#tools.delete(call);
  }

  /** A call that waits for a person's decision: not an error, and not run. Its spans say so and end. */
  #pendToolCall(call: ToolCall, turn: number, reason: string | undefined): void {
    const now = this.#options.now();
    const spans = this.#toolSpans(call, turn, now);
    const server = spans.server ?? this.#start("tool-execution", "server", spans.client.name, spans.client, {}, now);
    for (const span of [server, spans.client]) {
      span.attributes[traceAttributes.toolPending] = true;
      if (reason !== undefined) this.#payload(span, traceAttributes.toolPendingReason, reason);
      endSpan(span, now);
    }
    this.#tools.delete(call);
    this.#pendingCount += 1;
  }

  #toolSpans(call: ToolCall, turn: number, now: number): ToolSpans {
    let spans = this.#tools.get(call);
    if (!spans) {
      // A resumed run answers the interrupted turn's pending calls without a model call: their own turn span.
      if (this.#turn === undefined) {
        this.#turn = this.#start(
          "turn",
          "internal",
          `turn ${turn}`,
          this.#run,
          { [traceAttributes.turnIndex]: turn, [traceAttributes.turnResumed]: true },
          now,
        );
      }
      // A call the model-call-end event did not announce (a resumed run, a custom loop): trace it all the same.
      spans = { client: this.#startToolCall(call, now) };
      this.#tools.set(call, spans);
    }
    return spans;
  }

  #endRun(event: Extract<AgentEvent, { type: "run-end" }>): void {
    this.#endTurn();
    const run = this.#run;
    const attributes = run.attributes;
    attributes[traceAttributes.runStatus] = event.status;
    attributes[traceAttributes.runConverged] = event.status === "completed";
    attributes[traceAttributes.runTurns] = event.turns;
    if (event.status === "interrupted") attributes[traceAttributes.runPendingCount] = this.#pendingCount;
    this.#payload(run, traceAttributes.runFinal, event.final);
    // A run that hit maxSteps is an outcome, not an exception, but a trace reader should see it at once.
    // An interrupted run is neither: it waits for a decision, and its pending calls say which.
    if (event.status === "max_steps") run.status = { code: "error", message: `Did not converge within ${event.turns} model calls.` };
    const now = this.#options.now();
    for (const child of this.#openChildren) child.#fail("The parent run ended before this run did.", "abandoned", now);
    endSpan(run, now);
    this.#close();
  }

  /** Ends every open span of this run and of its open child runs with an error (the run failed or was abandoned). */
  #fail(message: string, type: string, now = this.#options.now()): void {
    for (const child of this.#openChildren) child.#fail(message, type, now);
    const status: SpanStatus = { code: "error", message: this.#options.scrubber.text(message) };
    const open: (OpenSpan | undefined)[] = [this.#modelCall, this.#turn, this.#run];
    for (const { client, server } of this.#tools.values()) open.push(client, server);
    for (const span of open) {
      if (span === undefined || span.endTime !== undefined) continue;
      span.status = status;
      span.attributes[traceAttributes.errorType] = type;
      span.endTime = now;
    }
    this.#close();
  }

  /** The run has ended: its tokens go on its span and count in its parent's, and it takes no more events. */
  #close(): void {
    this.#closed = true;
    // Unknown usage is left out rather than written as zero, as the conventions ask.
    if (this.#usageReported) Object.assign(this.#run.attributes, usageAttributes(this.#usage));
    const parent = this.#parent;
    if (!parent) return;
    parent.#openChildren.delete(this);
    addUsage(parent.#usage, this.#usage);
    if (this.#usageReported) parent.#usageReported = true;
  }

  #endTurn(): void {
    const turn = this.#turn;
    if (!turn) return;
    let end = turn.startTime;
    for (const span of this.#turnChildren) end = Math.max(end, span.endTime ?? this.#options.now());
    endSpan(turn, end);
    this.#turn = undefined;
    this.#turnChildren = [];
  }

  /** Records a payload, scrubbed and truncated, unless payloads are off. A function defers the work until it is needed. */
  #payload(span: OpenSpan, key: string, value: unknown): void {
    if (!this.#options.recordPayloads) return;
    const resolved = typeof value === "function" ? (value as () => unknown)() : value;
    span.attributes[key] = this.#options.scrubber.payload(resolved);
  }

  /** Records messages as the conventions' JSON, scrubbed and truncated, unless payloads are off. */
  #messagesPayload(span: OpenSpan, key: string, messages: readonly Message[], stopReason?: StopReason): void {
    if (!this.#options.recordPayloads) return;
    span.attributes[key] = this.#options.scrubber.written(
      (embed, budget) => writeGenAiMessages(messages, stopReason, embed, budget, describePartWithDigest),
      () => toGenAiMessages(messages, stopReason, describePartWithDigest),
    );
  }

  #start(
    type: SpanType,
    kind: SpanKind,
    name: string,
    parent: OpenSpan | undefined,
    attributes: SpanAttributes,
    now = this.#options.now(),
  ): OpenSpan {
    const span = this.trace.start(type, kind, name, parent, attributes, now);
    if (parent !== undefined && parent === this.#turn) this.#turnChildren.push(span);
    return span;
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function errorType(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/** The starter's attributes for the run span (`RunOptions.attributes`), their values scrubbed like any text. */
function scrubbedAttributes(attributes: Readonly<Record<string, string>>, scrubber: SecretScrubber): SpanAttributes {
  const scrubbed: SpanAttributes = {};
  for (const [key, value] of Object.entries(attributes)) scrubbed[key] = scrubber.text(value);
  return scrubbed;
}
