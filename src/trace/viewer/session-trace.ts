import type { Message, ToolCall, Usage } from "../../core/types.js";
import { addUsage } from "../../core/usage.js";
import { UsageError } from "../../errors.js";
import { genAiOperations, toGenAiMessages, traceAttributes, usageAttributes } from "../gen-ai-attributes.js";
import type { SpanAttributes, SpanStatus, SpanType, Trace, TraceSpan } from "../trace.js";

/**
 * Reads a `minagent code` session file (JSON Lines, docs/sessions.md) as a trace, so that the viewer shows it
 * like any other: the session is the root run, each prompt a run under it, each assistant message a turn with
 * its model call, each tool result a tool call. A session records when each line was written, not when each
 * call started: a model call spans from the line before its answer to its answer, a tool call from the
 * message that asked for it to its result. Sub-agents are not in a session file (only their tokens are).
 * Throws a UsageError when the first line is not a session header.
 */
export function readSessionAsTrace(text: string, source: string): Trace {
  const lines = text.split("\n");
  const header = parseLine(lines[0]);
  if (header?.type !== "session" || typeof header.sessionId !== "string")
    throw new UsageError(`${source} is not a minagent session: its first line is not a session header.`);
  const builder = new SessionSpans(String(header.sessionId), header);
  // A line torn by a crash (or still being written) is not JSON: it is passed over, as the session reader does.
  for (let index = 1; index < lines.length; index++) {
    const line = parseLine(lines[index]);
    if (line) builder.add(line);
  }
  return builder.finish();
}

type SessionModelFields = { provider?: unknown; modelId?: unknown };

type Line = Record<string, unknown> & { type?: unknown; at?: unknown; usage?: Usage | undefined };

function parseLine(raw: string | undefined): Line | undefined {
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as unknown;
    return typeof value === "object" && value !== null ? (value as Line) : undefined;
  } catch {
    return undefined;
  }
}

/** Builds the spans line by line; times come from each line's `at`. */
class SessionSpans {
  readonly #spans: TraceSpan[] = [];
  readonly #root: TraceSpan;
  #run: TraceSpan | undefined;
  #turnCount = 0;
  #turn: TraceSpan | undefined;
  /** The open tool calls of the current turn, by call id: their client and server spans. */
  #calls = new Map<string, { client: TraceSpan; server: TraceSpan }>();
  #model: SessionModelFields | undefined;
  #lastTime: number;
  readonly #usage: Usage = { inputTokens: 0, outputTokens: 0 };
  #runUsage: Usage = { inputTokens: 0, outputTokens: 0 };
  #counter = 0;
  /** Messages written since the last answer: what the next model call adds to the conversation. */
  #added: Message[] = [];
  readonly #traceId: string;

  constructor(sessionId: string, header: Line) {
    this.#traceId = hexOf(sessionId, 32);
    this.#model = header.model as SessionModelFields;
    this.#lastTime = timeOf(header.createdAt) ?? 0;
    this.#root = this.#start("run", `session ${sessionId}`, undefined, this.#lastTime, {
      [traceAttributes.operationName]: genAiOperations.invokeAgent,
      [traceAttributes.agentName]: "minagent code",
      "minagent.session.id": sessionId,
      ...(typeof header.cwd === "string" && { "minagent.session.cwd": header.cwd }),
      ...this.#modelAttributes(),
    });
  }

  add(line: Line): void {
    const at = timeOf(line.at) ?? this.#lastTime;
    if (line.usage) this.#addUsage(line.usage);
    if (line.type === "message" && isMessage(line.message)) this.#message(line.message, at, line.usage);
    else if (line.type === "model" && typeof line.model === "object" && line.model !== null) this.#model = line.model as SessionModelFields;
    else if (line.type === "run-end") this.#endRun(at, String(line.status), typeof line.error === "string" ? line.error : undefined);
    else if (line.type === "pending" && typeof line.toolCall === "object" && line.toolCall !== null) {
      const call = this.#calls.get(String((line.toolCall as ToolCall).id));
      if (call) for (const span of [call.client, call.server]) span.attributes[traceAttributes.toolPending] = true;
    }
    this.#lastTime = Math.max(this.#lastTime, at);
  }

  #message(message: Message, at: number, usage: Usage | undefined): void {
    if (message.role !== "assistant") this.#added.push(message);
    if (message.role === "user" || message.role === "system") this.#startRun(message, at);
    else if (message.role === "assistant") this.#answer(message, at, usage);
    else if (message.role === "tool") this.#result(message, at);
  }

  #startRun(message: Message, at: number): void {
    // A prompt after the model has answered starts the next run, even when no run-end line closed the last one (a crash).
    if (this.#run && message.role === "user" && this.#turnCount > 0) this.#endRun(this.#lastTime);
    if (!this.#run) {
      this.#run = this.#start("run", "invoke_agent", this.#root, at, {
        [traceAttributes.operationName]: genAiOperations.invokeAgent,
        ...this.#modelAttributes(),
      });
      this.#turnCount = 0;
      this.#runUsage = { inputTokens: 0, outputTokens: 0 };
    }
    if (message.role === "user") this.#run.attributes[traceAttributes.runInput] = message.content;
    else this.#run.attributes["minagent.run.system"] = message.content;
  }

  #answer(message: Message, at: number, usage: Usage | undefined): void {
    if (!this.#run) this.#startRun({ role: "user", content: "" }, this.#lastTime);
    const run = this.#run as TraceSpan;
    this.#closeTurn();
    const modelId = typeof this.#model?.modelId === "string" ? this.#model.modelId : undefined;
    this.#turn = this.#start("turn", `turn ${this.#turnCount}`, run, this.#lastTime, { [traceAttributes.turnIndex]: this.#turnCount });
    this.#turnCount++;
    const stopReason = message.toolCalls?.length ? "tool_use" : "end_turn";
    const call = this.#start("model-call", modelId ? `chat ${modelId}` : "chat", this.#turn, this.#lastTime, {
      [traceAttributes.operationName]: genAiOperations.chat,
      ...this.#modelAttributes(),
      [traceAttributes.requestNewMessages]: JSON.stringify(toGenAiMessages(this.#added)),
      [traceAttributes.outputMessages]: JSON.stringify(toGenAiMessages([message], stopReason)),
      ...(usage && usageAttributes(usage)),
    });
    this.#added = [];
    end(call, at);
    end(this.#turn, at);
    this.#calls = new Map();
    for (const toolCall of message.toolCalls ?? []) {
      const attributes: SpanAttributes = {
        [traceAttributes.toolName]: toolCall.name,
        [traceAttributes.toolCallId]: toolCall.id,
        [traceAttributes.toolCallArguments]: JSON.stringify(toolCall.arguments ?? {}),
      };
      const client = this.#start("tool-call", `execute_tool ${toolCall.name}`, this.#turn, at, {
        [traceAttributes.operationName]: genAiOperations.executeTool,
        ...attributes,
      });
      const server = this.#start("tool-execution", toolCall.name, client, at, { ...attributes });
      this.#calls.set(toolCall.id, { client, server });
    }
    run.attributes[traceAttributes.runFinal] = message.content;
    run.attributes[traceAttributes.runTurns] = this.#turnCount;
  }

  #result(message: Message, at: number): void {
    const call = this.#calls.get(message.toolCallId ?? "");
    if (!call) return;
    call.server.attributes[traceAttributes.toolCallResult] = message.content;
    for (const span of [call.server, call.client]) {
      if (message.isError) fail(span, message.content, "tool_error");
      end(span, at);
    }
    if (this.#turn) end(this.#turn, Math.max(this.#turn.endTime, at));
    this.#calls.delete(message.toolCallId ?? "");
  }

  #endRun(at: number, status?: string, error?: string): void {
    const run = this.#run;
    if (!run) return;
    this.#closeTurn();
    if (status === "failed") fail(run, error ?? "the run failed", "run_error");
    else if (status !== undefined) run.attributes[traceAttributes.runStatus] = status;
    if (status === "max_steps") run.status = { code: "error", message: "Did not converge (max_steps)." };
    Object.assign(run.attributes, usageAttributes(this.#runUsage));
    end(run, Math.max(at, this.#lastTime));
    this.#run = undefined;
  }

  /** Calls of the previous turn that never got a result (a crash, a pending approval) end with their turn. */
  #closeTurn(): void {
    for (const { client, server } of this.#calls.values()) for (const span of [server, client]) end(span, this.#lastTime);
    this.#calls = new Map();
    this.#turn = undefined;
  }

  #addUsage(usage: Usage): void {
    // A session file is read as written: counters it lacks count as none.
    const counted = { ...usage, inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 };
    addUsage(this.#usage, counted);
    addUsage(this.#runUsage, counted);
  }

  #modelAttributes(): SpanAttributes {
    const { provider, modelId } = this.#model ?? {};
    return {
      ...(typeof provider === "string" && { [traceAttributes.providerName]: provider }),
      ...(typeof modelId === "string" && { [traceAttributes.requestModel]: modelId }),
    };
  }

  #start(type: SpanType, name: string, parent: TraceSpan | undefined, at: number, attributes: SpanAttributes): TraceSpan {
    this.#counter++;
    const span: TraceSpan = {
      spanId: this.#counter.toString(16).padStart(16, "0"),
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
    this.#spans.push(span);
    return span;
  }

  finish(): Trace {
    const open = this.#run;
    if (open) {
      this.#closeTurn();
      Object.assign(open.attributes, usageAttributes(this.#runUsage));
      end(open, this.#lastTime);
    }
    const root = this.#root;
    Object.assign(root.attributes, usageAttributes(this.#usage));
    root.attributes[traceAttributes.runTurns] = this.#spans.filter((span) => span.type === "turn").length;
    if (open) root.attributes[traceAttributes.runStatus] = "running";
    else {
      const last = this.#spans.findLast((span) => span.type === "run" && span !== root);
      // The session ends as its last run did; the run's error stays on the run (counted once).
      const status =
        last?.status.code === "error" && last.attributes[traceAttributes.errorType] === "run_error"
          ? "failed"
          : last?.attributes[traceAttributes.runStatus];
      if (typeof status === "string") root.attributes[traceAttributes.runStatus] = status;
    }
    // The header's time may be a moment after the first line's (it is written with it).
    for (const span of this.#spans) root.startTime = Math.min(root.startTime, span.startTime);
    end(root, this.#lastTime);
    return { format: "minagent-trace", version: 1, traceId: this.#traceId, spans: this.#spans };
  }
}

function end(span: TraceSpan, at: number): void {
  span.endTime = Math.max(span.startTime, at);
  span.durationMs = span.endTime - span.startTime;
}

function fail(span: TraceSpan, message: string, type: string): void {
  const status: SpanStatus = { code: "error", message };
  span.status = status;
  span.attributes[traceAttributes.errorType] = type;
}

function timeOf(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

function isMessage(value: unknown): value is Message {
  const message = value as Message | null;
  return typeof message === "object" && message !== null && typeof message.role === "string" && typeof message.content === "string";
}

/** A stable hex id of `length` digits from any text (a session id is a UUID, or any name the user chose). */
function hexOf(text: string, length: number): string {
  const plain = text.toLowerCase().replace(/[^0-9a-f]/g, "");
  if (plain.length >= length) return plain.slice(0, length);
  let hash = 2166136261;
  let hex = plain;
  for (let round = 0; hex.length < length; round++) {
    for (const char of `${text}#${round}`) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0;
    hex += hash.toString(16).padStart(8, "0");
  }
  return hex.slice(0, length);
}
