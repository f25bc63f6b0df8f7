import type { ContentPart, Message, Usage } from "../../core/types.js";
import { addUsage } from "../../core/usage.js";
import { describePartWithDigest } from "../describe-part.js";
import { type GenAiPart, genAiOperations, toGenAiMessages, traceAttributes, usageAttributes } from "../gen-ai-attributes.js";
import type { SpanAttributes, SpanStatus, SpanType, TraceSpan } from "../trace.js";

/**
 * On the spans that stand for sub-agents whose calls a session file does not hold, only their tokens (files of
 * recorders that write no `child-*` lines): a run and one model call carrying those tokens, priced at the
 * session's model as `minagent code` prices them.
 */
export const unrecordedCallsAttribute = "minagent.session.unrecorded_calls";

/** On both spans of a tool call that was still running when its run was stopped (an abort, a crash). */
export const interruptedAttribute = "minagent.tool.interrupted";

/** The model of a run, as session lines name it. */
export type SessionModelFields = { provider?: unknown; modelId?: unknown };

type ToolSpans = { client: TraceSpan; server: TraceSpan; name: string; arguments: unknown };

/** Every span of the trace being built, in the order they start, with ids in that order. */
export class SpanList {
  readonly spans: TraceSpan[] = [];

  start(type: SpanType, name: string, parent: TraceSpan | undefined, at: number, attributes: SpanAttributes): TraceSpan {
    const span: TraceSpan = {
      spanId: (this.spans.length + 1).toString(16).padStart(16, "0"),
      ...(parent && { parentSpanId: parent.spanId }),
      name,
      type,
      kind: type === "model-call" || type === "tool-call" ? "client" : type === "tool-execution" ? "server" : "internal",
      startTime: at,
      endTime: at,
      durationMs: 0,
      status: { code: "ok" },
      attributes,
    };
    this.spans.push(span);
    return span;
  }
}

/**
 * The spans of one run read from a session's lines (a prompt of the conversation, or a sub-agent's run): each
 * answer a turn with its model call, drawn from the run's line before it to the answer, and each call the model
 * made a tool call, from the answer to its result.
 */
export class RunSpans {
  readonly span: TraceSpan;
  readonly usage: Usage = { inputTokens: 0, outputTokens: 0 };
  /** The run whose call started this one (a sub-agent's), if it is one: its tokens count there too. */
  readonly parent: RunSpans | undefined;
  readonly #list: SpanList;
  #model: SessionModelFields | undefined;
  #turns = 0;
  #turn: TraceSpan | undefined;
  /** The calls of the last turn, by id (a sub-agent's run goes under its call's execution). */
  #calls = new Map<string, ToolSpans>();
  /** Those without a result yet. */
  readonly #open = new Set<string>();
  /** Messages since the last answer: what the next model call adds to the conversation. */
  #added: Message[] = [];
  #lastTime: number;
  #ended = false;
  #lastAnswer: string | undefined;
  /** The spans drawn for unrecorded sub-agents, by the span they are under. */
  readonly #unrecorded = new Map<string, { run: TraceSpan; calls: TraceSpan; usage: Usage }>();

  constructor(
    list: SpanList,
    name: string,
    parentSpan: TraceSpan | undefined,
    at: number,
    model: SessionModelFields | undefined,
    parent?: RunSpans | undefined,
  ) {
    this.#list = list;
    this.#model = model;
    this.parent = parent;
    this.#lastTime = at;
    this.span = list.start("run", name, parentSpan, at, {
      [traceAttributes.operationName]: genAiOperations.invokeAgent,
      ...modelAttributes(model),
    });
  }

  get turns(): number {
    return this.#turns;
  }

  set model(model: SessionModelFields | undefined) {
    this.#model = model;
  }

  /**
   * A message the run sends without a model call: the system prompt, a prompt, or a tool result, which ends its
   * call; a result written later (the engine's answer to a call a stop left unanswered) only gives the call its text.
   */
  add(message: Message, at: number): void {
    this.#added.push(message);
    if (message.role === "user") this.span.attributes[traceAttributes.runInput] ??= message.content;
    else if (message.role === "system") this.span.attributes["minagent.run.system"] ??= message.content;
    else if (message.role === "tool") this.#result(message, at);
    this.#at(at);
  }

  /** Whether a call of the last turn is still running (no result yet). */
  isOpen(toolCallId: string | undefined): boolean {
    return toolCallId !== undefined && this.#open.has(toolCallId);
  }

  /** The model's answer: a turn, its model call (carrying `usage`), and a tool call for each call it makes. */
  answer(message: Message, at: number, usage: Usage | undefined): void {
    this.#closeCalls(undefined);
    const modelId = typeof this.#model?.modelId === "string" ? this.#model.modelId : undefined;
    const turn = this.#list.start("turn", `turn ${this.#turns}`, this.span, this.#lastTime, { [traceAttributes.turnIndex]: this.#turns });
    this.#turn = turn;
    this.#turns++;
    const stopReason = message.toolCalls?.length ? "tool_use" : "end_turn";
    const call = this.#list.start("model-call", modelId ? `chat ${modelId}` : "chat", turn, this.#lastTime, {
      [traceAttributes.operationName]: genAiOperations.chat,
      ...modelAttributes(this.#model),
      [traceAttributes.requestNewMessages]: JSON.stringify(toGenAiMessages(this.#added, undefined, describeSessionPart)),
      [traceAttributes.outputMessages]: JSON.stringify(toGenAiMessages([message], stopReason, describeSessionPart)),
      ...(usage && usageAttributes(usage)),
    });
    this.#added = [];
    end(call, at);
    end(turn, at);
    this.#calls = new Map();
    for (const toolCall of message.toolCalls ?? []) {
      const attributes: SpanAttributes = {
        [traceAttributes.toolName]: toolCall.name,
        [traceAttributes.toolCallId]: toolCall.id,
        [traceAttributes.toolCallArguments]: JSON.stringify(toolCall.arguments ?? {}),
      };
      const client = this.#list.start("tool-call", `execute_tool ${toolCall.name}`, turn, at, {
        [traceAttributes.operationName]: genAiOperations.executeTool,
        ...attributes,
      });
      const server = this.#list.start("tool-execution", toolCall.name, client, at, { ...attributes });
      this.#calls.set(toolCall.id, { client, server, name: toolCall.name, arguments: toolCall.arguments });
      this.#open.add(toolCall.id);
    }
    this.#lastAnswer = message.content;
    this.span.attributes[traceAttributes.runTurns] = this.#turns;
    this.#at(at);
  }

  /** A call of the last turn waits for a decision (the run ends `interrupted`). */
  pending(toolCallId: string): void {
    const call = this.#calls.get(toolCallId);
    if (call) for (const span of [call.client, call.server]) span.attributes[traceAttributes.toolPending] = true;
  }

  /** The execution span of a call of the last turn, where the runs it started go. */
  execution(toolCallId: string | undefined): TraceSpan | undefined {
    return toolCallId === undefined ? undefined : this.#calls.get(toolCallId)?.server;
  }

  /** The sub-agent type an Agent call of this run asked for (its `subagent_type`), if it did. */
  subagentType(toolCallId: string | undefined): string | undefined {
    const input =
      toolCallId === undefined ? undefined : (this.#calls.get(toolCallId)?.arguments as { subagent_type?: unknown } | undefined);
    return typeof input?.subagent_type === "string" ? input.subagent_type : undefined;
  }

  /** Tokens a line carries for this run: its own calls', its sub-agents'. They count in its parents' runs too. */
  count(usage: Usage): void {
    addUsage(this.usage, usage);
    this.parent?.count(usage);
  }

  /**
   * Tokens of sub-agents whose calls are not in the file (a recorder that writes no `child-*` lines puts their
   * tokens on the run's next line), written on a line of this run at `at`. They are drawn as a sub-agent run under
   * the call that started it — an Agent call among the one whose result carries them and the open ones, else that
   * one, else an open one — with one model call carrying the tokens, so that every total and cost counts them as
   * `minagent code` does. More tokens for the same call are added to the same spans. `result` is the carrying
   * line's tool result, if it is one: when it is the Agent call's, it is the sub-agent's answer (or its error).
   */
  unrecordedSubagent(usage: Usage, result: Message | undefined, at: number): void {
    const toolCallId = result?.toolCallId;
    const candidates = [...(toolCallId === undefined ? [] : [toolCallId]), ...this.#open];
    const id = candidates.find((candidate) => startsSubagents(this.#calls.get(candidate)?.name)) ?? candidates[0];
    const call = id === undefined ? undefined : this.#calls.get(id);
    const parent = call?.server ?? this.span;
    const known = this.#unrecorded.get(parent.spanId);
    if (known) {
      addUsage(known.usage, usage);
      for (const span of [known.run, known.calls]) {
        Object.assign(span.attributes, usageAttributes(known.usage));
        end(span, at);
      }
      return;
    }
    const input = call?.arguments as { description?: unknown; prompt?: unknown; subagent_type?: unknown } | undefined;
    const type = typeof input?.subagent_type === "string" ? input.subagent_type : undefined;
    const label = [type, typeof input?.description === "string" ? input.description : undefined].filter(Boolean).join(": ");
    const run = this.#list.start("run", `invoke_agent ${label || "(sub-agent)"}`, parent, parent.startTime, {
      [traceAttributes.operationName]: genAiOperations.invokeAgent,
      ...(type && { [traceAttributes.agentName]: type }),
      ...modelAttributes(this.#model),
      ...(typeof input?.prompt === "string" && { [traceAttributes.runInput]: input.prompt }),
      ...usageAttributes(usage),
      [unrecordedCallsAttribute]: true,
    });
    const modelId = typeof this.#model?.modelId === "string" ? this.#model.modelId : undefined;
    const calls = this.#list.start("model-call", `${modelId ? `chat ${modelId}` : "chat"} (calls not recorded)`, run, parent.startTime, {
      [traceAttributes.operationName]: genAiOperations.chat,
      ...modelAttributes(this.#model),
      ...usageAttributes(usage),
      [unrecordedCallsAttribute]: true,
    });
    for (const span of [calls, run]) end(span, at);
    this.#unrecorded.set(parent.spanId, { run, calls, usage: { ...usage } });
    if (call !== undefined && result !== undefined && id === toolCallId) {
      if (result.isError) fail(run, result.content, "run_error");
      else Object.assign(run.attributes, { [traceAttributes.runStatus]: "completed", [traceAttributes.runFinal]: result.content });
    }
  }

  /**
   * The run ended (`status` as its line says; undefined when a later prompt shows it ended without one: a crash).
   * Calls still running then were interrupted: they end here, marked, unless they wait for a decision.
   */
  end(at: number, status: string | undefined, error?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    const stoppedAt = Math.max(at, this.#lastTime);
    this.#closeCalls(
      status === "failed"
        ? `Interrupted: the run was stopped (${error ?? "it failed"}) before this call returned.`
        : status === undefined
          ? "Interrupted: the session's next prompt came before this call returned (the process stopped, or was killed)."
          : undefined,
      stoppedAt,
    );
    const run = this.span;
    if (status === "failed") fail(run, error ?? "the run failed", "run_error");
    else if (status !== undefined) run.attributes[traceAttributes.runStatus] = status;
    if (status === "max_steps") run.status = { code: "error", message: "Did not converge (max_steps)." };
    // Only a completed run has a final answer; an answer before a stop, a failure or a limit is not one.
    if (status === "completed" && this.#lastAnswer !== undefined) run.attributes[traceAttributes.runFinal] = this.#lastAnswer;
    Object.assign(run.attributes, usageAttributes(this.usage));
    end(run, stoppedAt);
  }

  /** Still open at the end of the file: its calls end with its last line, not marked (they may still be running). */
  finishOpen(): void {
    this.#closeCalls(undefined);
    Object.assign(this.span.attributes, usageAttributes(this.usage));
    end(this.span, this.#lastTime);
  }

  /** The final answer of the run, when it completed. */
  get final(): string | undefined {
    const final = this.span.attributes[traceAttributes.runFinal];
    return typeof final === "string" ? final : undefined;
  }

  #result(message: Message, at: number): void {
    const id = message.toolCallId ?? "";
    const call = this.#calls.get(id);
    if (!call) return;
    if (!this.#open.delete(id)) {
      // The engine's answer to a call it found unanswered (after a stop), sent with the next prompt: its text.
      if (call.server.attributes[traceAttributes.toolCallResult] === undefined)
        call.server.attributes[traceAttributes.toolCallResult] = message.content;
      return;
    }
    call.server.attributes[traceAttributes.toolCallResult] = message.content;
    for (const span of [call.server, call.client]) {
      if (message.isError) fail(span, message.content, "tool_error");
      end(span, at);
    }
    if (this.#turn) end(this.#turn, Math.max(this.#turn.endTime, at));
  }

  /** Ends the calls still open at `at` (default: the run's last line); with `interrupted`, marks them so. */
  #closeCalls(interrupted: string | undefined, at = this.#lastTime): void {
    for (const id of this.#open) {
      const call = this.#calls.get(id) as ToolSpans;
      const waits = call.client.attributes[traceAttributes.toolPending] === true;
      for (const span of [call.server, call.client]) {
        if (interrupted !== undefined && !waits) {
          fail(span, interrupted, "interrupted");
          span.attributes[interruptedAttribute] = true;
        }
        end(span, at);
      }
      if (this.#turn) end(this.#turn, Math.max(this.#turn.endTime, at));
    }
    this.#open.clear();
  }

  #at(at: number): void {
    this.#lastTime = Math.max(this.#lastTime, at);
  }
}

/** The tools that start sub-agents: Claude Code's Agent tool, and its older name. */
function startsSubagents(toolName: string | undefined): boolean {
  return toolName === "Agent" || toolName === "Task";
}

/** The GenAI attributes naming a session's model. */
export function modelAttributes(model: SessionModelFields | undefined): SpanAttributes {
  const { provider, modelId } = model ?? {};
  return {
    ...(typeof provider === "string" && { [traceAttributes.providerName]: provider }),
    ...(typeof modelId === "string" && { [traceAttributes.requestModel]: modelId }),
  };
}

/** Ends a span at `at` (never before it started). */
export function end(span: TraceSpan, at: number): void {
  span.endTime = Math.max(span.startTime, at);
  span.durationMs = span.endTime - span.startTime;
}

function fail(span: TraceSpan, message: string, type: string): void {
  const status: SpanStatus = { code: "error", message };
  span.status = status;
  span.attributes[traceAttributes.errorType] = type;
}

/** Images up to this many bytes go to the page with their bytes, for a thumbnail; larger ones by their size only. */
const thumbnailBytes = 512 * 1024;

/**
 * A session's image or document as the page shows it. A session file holds the bytes (it is the person's own record,
 * on their disk), so a small image comes with them, for a thumbnail; a trace never does.
 */
function describeSessionPart(part: ContentPart): GenAiPart {
  const described = describePartWithDigest(part);
  if (part.type !== "image" || part.data === undefined || described.type !== "blob") return described;
  return (described.size_bytes ?? Number.POSITIVE_INFINITY) <= thumbnailBytes ? { ...described, content: part.data } : described;
}
