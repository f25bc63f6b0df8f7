import type { Message, ToolCall, Usage } from "../../core/types.js";
import { addUsage } from "../../core/usage.js";
import { UsageError } from "../../errors.js";
import { isTitlePrompt, sessionTitle } from "../../session-title.js";
import { genAiOperations, sessionAttributes, traceAttributes, usageAttributes } from "../gen-ai-attributes.js";
import type { Trace, TraceSpan } from "../trace.js";
import { end, modelAttributes, RunSpans, type SessionModelFields, SpanList } from "./session-run-spans.js";

/**
 * Reads a `minagent code` session file (JSON Lines, docs/sessions.md) as a trace, so that the viewer shows it
 * like any other: the session is the root run, each prompt a run under it, each assistant message a turn with
 * its model call, each tool result a tool call. A session records when each line was written, not when each
 * call started: a model call spans from the line before its answer to its answer, a tool call from the
 * message that asked for it to its result. A call still running when its run was stopped is marked interrupted.
 * Sub-agents' runs are drawn from `child-run-start`, `child-message` and `child-run-end` lines under the call that
 * started them; a file without such lines has only their tokens (on the next line written), which are drawn as a
 * sub-agent run with one model call carrying them, so that the totals and the cost are the session's.
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
  readonly #list = new SpanList();
  readonly #root: TraceSpan;
  /** The conversation's run now (a prompt's), and the last one. */
  #run: RunSpans | undefined;
  #lastRun: RunSpans | undefined;
  /** Sub-agents' runs now open, by run id (from `child-*` lines). */
  readonly #children = new Map<string, RunSpans>();
  /** Messages written while no run was open (the engine's answers to calls a stop left unanswered): the next run sends them. */
  #carried: Message[] = [];
  #model: SessionModelFields | undefined;
  #lastTime: number;
  readonly #usage: Usage = { inputTokens: 0, outputTokens: 0 };
  #firstPrompt: string | undefined;
  /** The first prompt worth a title, and the last name the person gave the session (`name` lines): its title. */
  #titlePrompt: string | undefined;
  #name: string | undefined;
  /** Turns of the conversation's runs (not of sub-agents). */
  #turns = 0;
  readonly #traceId: string;

  constructor(sessionId: string, header: Line) {
    this.#traceId = hexOf(sessionId, 32);
    this.#model = header.model as SessionModelFields;
    this.#lastTime = timeOf(header.createdAt) ?? 0;
    this.#root = this.#list.start("run", `session ${sessionId}`, undefined, this.#lastTime, {
      [traceAttributes.operationName]: genAiOperations.invokeAgent,
      [traceAttributes.agentName]: "minagent code",
      "minagent.session.id": sessionId,
      ...(typeof header.cwd === "string" && { "minagent.session.cwd": header.cwd }),
      ...modelAttributes(this.#model),
    });
  }

  add(line: Line): void {
    const at = timeOf(line.at) ?? this.#lastTime;
    const usage = line.usage ? counted(line.usage) : undefined;
    if (usage) addUsage(this.#usage, usage);
    if (typeof line.type === "string" && line.type.startsWith("child-")) this.#child(line, at, usage);
    else this.#conversation(line, at, usage);
    this.#lastTime = Math.max(this.#lastTime, at);
  }

  #conversation(line: Line, at: number, usage: Usage | undefined): void {
    const message = line.type === "message" && isMessage(line.message) ? line.message : undefined;
    // Tokens on any line but an answer are sub-agents' (a recorder that writes no child lines puts them on the next one).
    const subagents = usage && message?.role !== "assistant" ? usage : undefined;
    if (subagents) {
      this.#run?.unrecordedSubagent(subagents, message?.role === "tool" ? message : undefined, at);
      (this.#run ?? this.#lastRun)?.count(subagents);
    }
    if (message) this.#message(message, at, line.event === "tool-call-end", subagents ? undefined : usage);
    else if (line.type === "model" && typeof line.model === "object" && line.model !== null) {
      this.#model = line.model as SessionModelFields;
      if (this.#run) this.#run.model = this.#model;
    } else if (line.type === "name" && typeof line.name === "string") this.#name = line.name;
    else if (line.type === "run-end") this.#endRun(at, String(line.status), typeof line.error === "string" ? line.error : undefined);
    else if (line.type === "pending" && typeof line.toolCall === "object" && line.toolCall !== null)
      this.#run?.pending(String((line.toolCall as ToolCall).id));
  }

  #message(message: Message, at: number, endsCall: boolean, usage: Usage | undefined): void {
    if (message.role === "user") {
      this.#firstPrompt ??= message.content;
      if (this.#titlePrompt === undefined && isTitlePrompt(message.content)) this.#titlePrompt = message.content;
    }
    // A prompt after the model has answered starts the next run, even when no run-end line closed the last one (a crash).
    if (message.role === "user" && this.#run && this.#run.turns > 0) this.#endRun(this.#lastTime, undefined);
    // A result that does not end its call, for a call still open: the engine answering, before the next prompt, a
    // call the last run left unanswered when it stopped without a run-end line (a crash).
    if (message.role === "tool" && !endsCall && this.#run?.isOpen(message.toolCallId)) this.#endRun(this.#lastTime, undefined);
    if (!this.#run && message.role !== "tool") this.#startRun(at);
    const run = this.#run;
    if (!run) {
      this.#lastRun?.add(message, at);
      this.#carried.push(message);
    } else if (message.role === "assistant") {
      run.answer(message, at, usage);
      this.#turns++;
      if (usage) run.count(usage);
    } else run.add(message, at);
  }

  #startRun(at: number): void {
    const run = new RunSpans(this.#list, "invoke_agent", this.#root, at, this.#model);
    for (const message of this.#carried) run.add(message, at);
    this.#carried = [];
    this.#run = run;
  }

  #endRun(at: number, status: string | undefined, error?: string): void {
    const run = this.#run;
    if (!run) return;
    // Its sub-agents end with it.
    for (const [id, child] of this.#children)
      if (isBelow(child, run)) {
        child.end(at, status === "failed" ? "failed" : undefined, error);
        this.#children.delete(id);
      }
    run.end(at, status, error);
    this.#lastRun = run;
    this.#run = undefined;
  }

  /** A line of a sub-agent's run (`child-run-start`, `child-message`, `child-run-end`; see docs/tracing.md). */
  #child(line: Line, at: number, usage: Usage | undefined): void {
    const runId = typeof line.runId === "string" ? line.runId : undefined;
    if (line.type === "child-run-start" && runId !== undefined) {
      const parentRun = (typeof line.parentRunId === "string" && this.#children.get(line.parentRunId)) || this.#run;
      if (!parentRun) return;
      const parentSpan = parentRun.execution(typeof line.parentToolCallId === "string" ? line.parentToolCallId : undefined);
      const model = typeof line.model === "object" && line.model !== null ? (line.model as SessionModelFields) : this.#model;
      const name = typeof line.name === "string" && line.name !== "" ? `invoke_agent ${line.name}` : "invoke_agent";
      const child = new RunSpans(this.#list, name, parentSpan ?? parentRun.span, at, model, parentRun);
      const type = parentRun.subagentType(typeof line.parentToolCallId === "string" ? line.parentToolCallId : undefined);
      if (type !== undefined) child.span.attributes[traceAttributes.agentName] = type;
      for (const message of Array.isArray(line.messages) ? line.messages : []) if (isMessage(message)) child.add(message, at);
      this.#children.set(runId, child);
      return;
    }
    const child = runId === undefined ? undefined : this.#children.get(runId);
    if (usage) (child ?? this.#run ?? this.#lastRun)?.count(usage);
    if (!child || runId === undefined) return;
    if (line.type === "child-message" && isMessage(line.message)) {
      if (line.message.role === "assistant") child.answer(line.message, at, usage);
      else child.add(line.message, at);
    } else if (line.type === "child-run-end") {
      child.end(at, String(line.status), typeof line.error === "string" ? line.error : undefined);
      this.#children.delete(runId);
    }
  }

  finish(): Trace {
    for (const child of this.#children.values()) child.finishOpen();
    const open = this.#run;
    open?.finishOpen();
    const root = this.#root;
    Object.assign(root.attributes, usageAttributes(this.#usage));
    root.attributes[traceAttributes.runTurns] = this.#turns;
    if (this.#firstPrompt !== undefined) root.attributes[traceAttributes.runInput] = this.#firstPrompt;
    if (this.#name !== undefined) root.attributes[sessionAttributes.name] = this.#name;
    const title = sessionTitle({ name: this.#name, firstPrompt: this.#titlePrompt });
    if (title !== undefined) root.attributes[sessionAttributes.title] = title;
    if (open) root.attributes[traceAttributes.runStatus] = "running";
    else {
      const last = this.#lastRun?.span;
      // The session ends as its last run did; the run's error stays on the run (counted once).
      const status =
        last?.status.code === "error" && last.attributes[traceAttributes.errorType] === "run_error"
          ? "failed"
          : last?.attributes[traceAttributes.runStatus];
      if (typeof status === "string") root.attributes[traceAttributes.runStatus] = status;
      // What the agent answered last, when its last run completed.
      const final = this.#lastRun?.final;
      if (final !== undefined) root.attributes[traceAttributes.runFinal] = final;
    }
    // The header's time may be a moment after the first line's (it is written with it).
    for (const span of this.#list.spans) root.startTime = Math.min(root.startTime, span.startTime);
    end(root, this.#lastTime);
    return { format: "minagent-trace", version: 1, traceId: this.#traceId, spans: this.#list.spans };
  }
}

/** Whether `run` is `ancestor` or was started, at any depth, by one of its calls. */
function isBelow(run: RunSpans, ancestor: RunSpans): boolean {
  for (let current: RunSpans | undefined = run; current; current = current.parent) if (current === ancestor) return true;
  return false;
}

/** A session file is read as written: counters it lacks count as none. */
function counted(usage: Usage): Usage {
  return { ...usage, inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 };
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
