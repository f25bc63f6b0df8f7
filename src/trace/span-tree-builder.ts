import type { AgentEvent } from "../core/events.js";
import type { Message, Model, StopReason, ToolCall } from "../core/types.js";
import { addUsage, emptyUsage } from "../core/usage.js";
import { genAiOperations, toGenAiMessages, traceAttributes, usageAttributes, writeGenAiMessages } from "./gen-ai-attributes.js";
import type { SecretScrubber } from "./scrub-secrets.js";
import type { SpanAttributes, SpanKind, SpanStatus, SpanType, Trace, TraceSpan } from "./trace.js";

/** What a listener is told about the traced agent: its name, and optionally which model to name (else run-start's). */
export type TraceSubject = {
  /** The agent's model; its `provider` and `modelId` name the model-call spans. */
  model?: Pick<Model, "provider" | "modelId">;
  /** Written as `gen_ai.agent.name` and into the run span's name. */
  agentName?: string;
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

// Every field present from the start (one object shape for all spans); #finish drops what is undefined.
type OpenSpan = Omit<TraceSpan, "endTime" | "durationMs" | "parentSpanId"> & {
  parentSpanId: string | undefined;
  endTime: number | undefined;
};

/** The client span of a tool call (the action) and, once it runs, its server span (the execution). */
type ToolSpans = { client: OpenSpan; server?: OpenSpan };

/**
 * Builds the span tree of one run from its events, timestamping each event on receipt (events are
 * delivered synchronously as things happen). A tool call's client span starts when the model asks
 * for it and its server span when it starts running, so waiting under a concurrency limit is visible.
 */
export class SpanTreeBuilder {
  readonly #options: SpanTreeBuilderOptions;
  readonly #traceId: string;
  /** Span ids are this random prefix and a counter from a random start: unique within the trace, and cheap. */
  readonly #spanIdPrefix: string;
  #spanCounter: number;
  readonly #spans: OpenSpan[] = [];
  readonly #run: OpenSpan;
  readonly #tools = new Map<ToolCall, ToolSpans>();
  readonly #usage = emptyUsage();
  #usageReported = false;
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

  constructor(start: Extract<AgentEvent, { type: "run-start" }>, options: SpanTreeBuilderOptions) {
    this.#options = options.subject.model ? options : { ...options, subject: { ...options.subject, model: start.model } };
    this.#traceId = options.createId(16);
    this.#spanIdPrefix = options.createId(4);
    this.#spanCounter = Number.parseInt(options.createId(4), 16);
    const { provider, modelId } = this.#options.subject.model ?? {};
    this.#modelAttributes = {
      ...(provider && { [traceAttributes.providerName]: options.scrubber.text(provider) }),
      ...(modelId && { [traceAttributes.requestModel]: options.scrubber.text(modelId) }),
    };
    const { agentName } = options.subject;
    this.#run = this.#start("run", "internal", agentName ? `invoke_agent ${agentName}` : "invoke_agent", undefined, {
      [traceAttributes.operationName]: genAiOperations.invokeAgent,
      ...this.#modelAttributes,
      ...(agentName && { [traceAttributes.agentName]: agentName }),
    });
    this.#payload(this.#run, traceAttributes.runInput, start.input);
  }

  /** Applies one event. Returns the finished trace once the run has ended or failed. */
  add(event: AgentEvent): Trace | undefined {
    switch (event.type) {
      case "model-call-start":
        this.#startTurn(event.turn, event.messages, event.tools);
        return undefined;
      case "text-delta":
      case "reasoning-delta":
      case "tool-input-start":
        this.#markFirstChunk();
        return undefined;
      case "model-call-end":
        this.#endModelCall(event);
        return undefined;
      case "tool-call-start":
        this.#startToolExecution(event.toolCall);
        return undefined;
      case "tool-call-end":
        this.#endToolCall(event.toolCall, event.result.content, event.result.isError);
        return undefined;
      case "run-end":
        return this.#endRun(event);
      case "run-error":
        return this.interrupt(describeError(event.error), errorType(event.error));
      default:
        return undefined;
    }
  }

  /** Ends every open span with an error (the run failed or was abandoned) and returns the trace. */
  interrupt(message: string, type = "interrupted"): Trace {
    const now = this.#options.now();
    const status: SpanStatus = { code: "error", message: this.#options.scrubber.text(message) };
    for (const span of this.#spans) {
      if (span.endTime !== undefined) continue;
      span.status = status;
      span.attributes[traceAttributes.errorType] = type;
      span.endTime = now;
    }
    return this.#finish();
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
      this.#end(span, now);
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

  #startToolExecution(call: ToolCall): void {
    const now = this.#options.now();
    const spans = this.#toolSpans(call, now);
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

  #endToolCall(call: ToolCall, content: string, isError: boolean): void {
    const now = this.#options.now();
    const spans = this.#toolSpans(call, now);
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
    this.#end(server, now);
    this.#end(spans.client, now);
    this.#tools.delete(call);
  }

  #toolSpans(call: ToolCall, now: number): ToolSpans {
    let spans = this.#tools.get(call);
    if (!spans) {
      // A call the model-call-end event did not announce (a custom loop): trace it all the same.
      spans = { client: this.#startToolCall(call, now) };
      this.#tools.set(call, spans);
    }
    return spans;
  }

  #endRun(event: Extract<AgentEvent, { type: "run-end" }>): Trace {
    this.#endTurn();
    const run = this.#run;
    run.attributes[traceAttributes.runConverged] = event.status === "completed";
    run.attributes[traceAttributes.runTurns] = event.turns;
    this.#payload(run, traceAttributes.runFinal, event.final);
    // A run that hit maxSteps is an outcome, not an exception, but a trace reader should see it at once.
    if (event.status === "max_steps") run.status = { code: "error", message: `Did not converge within ${event.turns} model calls.` };
    this.#end(run, this.#options.now());
    return this.#finish();
  }

  #endTurn(): void {
    const turn = this.#turn;
    if (!turn) return;
    let end = turn.startTime;
    for (const span of this.#turnChildren) end = Math.max(end, span.endTime ?? this.#options.now());
    this.#end(turn, end);
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
      (embed, budget) => writeGenAiMessages(messages, stopReason, embed, budget),
      () => toGenAiMessages(messages, stopReason),
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
    this.#spanCounter = (this.#spanCounter + 1) >>> 0;
    const span: OpenSpan = {
      spanId: this.#spanIdPrefix + this.#spanCounter.toString(16).padStart(8, "0"),
      parentSpanId: parent?.spanId,
      name,
      type,
      kind,
      startTime: now,
      endTime: undefined,
      status: { code: "ok" },
      attributes,
    };
    this.#spans.push(span);
    if (parent !== undefined && parent === this.#turn) this.#turnChildren.push(span);
    return span;
  }

  #end(span: OpenSpan, now: number): void {
    if (span.endTime === undefined) span.endTime = Math.max(now, span.startTime);
  }

  #finish(): Trace {
    // Unknown usage is left out rather than written as zero, as the conventions ask.
    if (this.#usageReported) Object.assign(this.#run.attributes, usageAttributes(this.#usage));
    const spans = this.#spans.map(
      ({ spanId, parentSpanId, name, type, kind, startTime, endTime = startTime, status, attributes }): TraceSpan => {
        // Microseconds are the clock's honest precision.
        const durationMs = Math.round((endTime - startTime) * 1000) / 1000;
        return parentSpanId === undefined
          ? { spanId, name, type, kind, startTime, endTime, durationMs, status, attributes }
          : { spanId, parentSpanId, name, type, kind, startTime, endTime, durationMs, status, attributes };
      },
    );
    return { format: "minagent-trace", version: 1, traceId: this.#traceId, spans };
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function errorType(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
