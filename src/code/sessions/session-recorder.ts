import { createRequire } from "node:module";
import { resolve } from "node:path";
import {
  type AgentEvent,
  type AgentEventListener,
  type Message,
  OpenTurn,
  type SecretScrubber,
  toolResultMessage,
  UsageError,
} from "../../engine.js";
import { commonStart } from "./common-start.js";
import { createSessionScrubber, environmentSecrets, scrubMessage, scrubToolCall } from "./scrub-message.js";
import { type SessionEntry, type SessionHeader, type SessionModel, sessionFormatVersion } from "./session-format.js";
import type { LoadedSession, SessionStore } from "./session-store.js";

/** Settings of a {@link SessionRecorder}. */
export type SessionRecorderOptions = {
  /** Where the session is kept (e.g. a `JsonLinesSessionStore`). */
  store: SessionStore;
  /** The folder the agent works in (default: the resumed session's, else `process.cwd()`). */
  cwd?: string | undefined;
  /** The new session's id (default: a random UUID). Ignored when resuming without `fork`. */
  sessionId?: string | undefined;
  /** A loaded session to go on with: its conversation is what is on record, and lines go to its file. */
  resume?: LoadedSession | undefined;
  /** With `resume`: record into a new session (a fork), which starts with the resumed conversation; the old file is left as it was. */
  fork?: boolean | undefined;
  /** The model for the header when no run has said (the header names the first run's). */
  model?: SessionModel | undefined;
  /** Read at each event of the conversation: a new value is written as a `permission-mode` line (`() => permissions.mode`). */
  permissionMode?: (() => string | undefined) | undefined;
  /**
   * More values never to write (they are hidden wherever they appear). The values of credential-named environment
   * variables (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`…) are added.
   */
  secrets?: readonly (string | undefined)[] | undefined;
  /** The environment whose credential-named variables are hidden (default: `process.env`). */
  env?: NodeJS.ProcessEnv | undefined;
  /** Replaces the scrubber entirely (then `secrets` and `env` are not read). */
  scrubber?: SecretScrubber | undefined;
  /** Told when a write fails; recording stops there (default: a process warning). The run goes on. */
  onError?: ((error: unknown) => void) | undefined;
  /** The clock (tests). */
  now?: (() => Date) | undefined;
};

/**
 * Writes a conversation to a session store as it happens. Pass `listen` as a run's (or an agent's) `onEvent`:
 * the prompt (and the system prompt of a new conversation) when a run starts, each assistant message when the
 * model answers, each tool result when its call ends (in the order calls finish; readers restore call order),
 * a `compaction` line when `prepareTurn` replaces the history, `pending` lines for calls that wait for a decision,
 * and how each run ended. Each event's lines are appended before the listener returns, so everything is stored
 * before the next model call. Child runs (sub-agents) are recorded beside the conversation, in `child-*` lines the
 * conversation's readers skip. Secrets are hidden
 * first (see `scrubMessage`). The session's file is created with the first lines, not before.
 * @example
 * const recorder = new SessionRecorder({ store: new JsonLinesSessionStore(), cwd: process.cwd() });
 * await agent.run("Fix the failing test", { onEvent: recorder.listen });
 */
export class SessionRecorder {
  /** The session lines are written to. */
  readonly sessionId: string;
  /** The conversation as recorded (each turn's results in call order): the `history` to go on with. */
  get messages(): readonly Message[] {
    return this.#mirror;
  }
  /** The last name given the session (`recordName`; a resumed session's, not a fork's), if any. */
  get name(): string | undefined {
    return this.#name;
  }
  /** The error that stopped recording, if a write failed. */
  get error(): unknown {
    return this.#error;
  }

  readonly #options: SessionRecorderOptions;
  readonly #store: SessionStore;
  readonly #cwd: string;
  readonly #scrubber: SecretScrubber;
  readonly #now: () => Date;
  /** The header, until it is written with the first lines. */
  #header: Omit<SessionHeader, "createdAt" | "model"> | undefined;
  /** Lines waiting for the header (a permission mode set before the first prompt). */
  #queued: SessionEntry[] = [];
  /** The conversation's messages as the runs hold them (not scrubbed), to tell what is new. */
  #mirror: Message[];
  /** A fork's conversation, until it is in the mirror (its first run, or a line that must follow it, puts it there). */
  #forkStart: readonly Message[] | undefined;
  /** The turn whose results are coming in, to put them in call order. */
  #turn = new OpenTurn([], -1);
  /** The runs heard of: the conversation's, and their child runs. */
  readonly #runs = new Map<string, { kind: "conversation"; messages: readonly Message[] } | { kind: "child" }>();
  #model: SessionModel | undefined;
  #permissionMode: string | undefined;
  #name: string | undefined;
  #error: unknown;

  /** The listener to pass as `onEvent`. It never throws: a failed write stops recording and is reported to `onError`. */
  readonly listen: AgentEventListener = (event) => {
    if (this.#error !== undefined) return;
    try {
      this.#handle(event);
    } catch (error) {
      this.#fail(error);
    }
  };

  constructor(options: SessionRecorderOptions) {
    if (typeof options?.store?.append !== "function")
      throw new UsageError("SessionRecorder needs a store, e.g. { store: new JsonLinesSessionStore(), cwd: process.cwd() }.");
    const { resume, fork } = options;
    if (fork && !resume)
      throw new UsageError("SessionRecorder: fork needs the session to fork ({ resume: await store.load(id), fork: true }).");
    this.#options = options;
    this.#store = options.store;
    this.#now = options.now ?? (() => new Date());
    this.#cwd = resolve(options.cwd ?? resume?.header.cwd ?? process.cwd());
    this.#scrubber =
      options.scrubber ??
      (() => {
        const base = createSessionScrubber([]);
        return createSessionScrubber([...(options.secrets ?? []), ...environmentSecrets(options.env ?? process.env, base)]);
      })();
    this.#model = resume?.model;
    if (resume && !fork) {
      this.#permissionMode = resume.permissionMode;
      this.#name = resume.name;
      this.sessionId = resume.sessionId;
      this.#mirror = resume.messages.slice();
      this.#turn = OpenTurn.last(this.#mirror);
    } else {
      this.sessionId = options.sessionId ?? globalThis.crypto.randomUUID();
      this.#mirror = [];
      this.#forkStart = fork ? resume?.messages : undefined;
      this.#header = {
        type: "session",
        version: sessionFormatVersion,
        sessionId: this.sessionId,
        cwd: this.#cwd,
        ...optional("minagentVersion", readMinagentVersion()),
        ...(resume && { forkedFrom: { sessionId: resume.sessionId } }),
      };
      // A fork starts with the resumed conversation, written with its first run (which sends it as its history).
      if (resume?.permissionMode !== undefined) this.recordPermissionMode(resume.permissionMode);
    }
  }

  /** Records a permission mode change now (when `permissionMode` is not given to read it). */
  recordPermissionMode(mode: string): void {
    if (mode === this.#permissionMode || this.#error !== undefined) return;
    this.#permissionMode = mode;
    this.#recordLine({ type: "permission-mode", mode, at: this.#at() });
  }

  /**
   * Names the session now (`/rename`): a `name` line, which lists title the session by from then on. Before the
   * session's first lines it is queued behind the header, as a permission mode is (an empty session is never written).
   */
  recordName(name: string): void {
    if (this.#error !== undefined) return;
    this.#name = name;
    this.#recordLine({ type: "name", name: this.#scrubber.text(name), at: this.#at() });
  }

  /** A line written now, or queued behind the header of a session with no lines yet (an empty one is never written). */
  #recordLine(line: SessionEntry): void {
    if (this.#header) {
      this.#queued.push(line);
      return;
    }
    try {
      this.#write([line]);
    } catch (error) {
      this.#fail(error);
    }
  }

  /**
   * Marks a checkpoint now: where the conversation stands before the prompt about to run (call it before
   * `agent.run`), so that `conversationBefore(…, checkpointId)` finds it. Before the session's first lines it is
   * queued behind the header, as a permission mode is; on a fork, after the conversation the fork starts with.
   */
  markCheckpoint(checkpointId: string): void {
    if (this.#error !== undefined) return;
    const line: SessionEntry = { type: "checkpoint", checkpointId, at: this.#at() };
    if (this.#header) {
      this.#queued.push(...this.#forkLines(), line);
      return;
    }
    try {
      this.#write([line]);
    } catch (error) {
      this.#fail(error);
    }
  }

  /**
   * Appends `messages` to the recorded conversation now, between runs: what the person adds without the model (the
   * output of a command they ran themselves), kept even if no run follows. The next run, given them as the end of
   * its history, writes them no second time.
   */
  recordMessages(messages: readonly Message[]): void {
    if (this.#error !== undefined || messages.length === 0) return;
    try {
      const lines = this.#header ? this.#forkLines() : [];
      const at = this.#at();
      for (const message of messages) lines.push({ type: "message", message: scrubMessage(message, this.#scrubber), at });
      this.#write(lines);
      this.#mirror = this.#mirror.concat(messages);
      this.#turn = OpenTurn.last(this.#mirror);
    } catch (error) {
      this.#fail(error);
    }
  }

  /**
   * Makes the recorded conversation `messages` now (a rewind, between runs): one `compaction` line with
   * `reason: "rewind"` and the rewind's own `checkpointId` (the conversation just before it is what an undo goes
   * back to), keeping the start it shares with the recorded one. The next run, given `messages` as its history,
   * writes no second compaction.
   */
  rewindConversation(messages: readonly Message[], checkpointId: string): void {
    if (this.#error !== undefined) return;
    try {
      const lines = this.#header ? this.#forkLines() : [];
      const mirror = this.#mirror;
      const keep = commonStart(mirror, messages);
      const added = messages.slice(keep);
      lines.push({
        type: "compaction",
        reason: "rewind",
        keep,
        messages: added.map((message) => scrubMessage(message, this.#scrubber)),
        checkpointId,
        at: this.#at(),
      });
      this.#write(lines);
      this.#mirror = mirror.slice(0, keep).concat(added);
      this.#turn = OpenTurn.last(this.#mirror);
    } catch (error) {
      this.#fail(error);
    }
  }

  /**
   * A fork not yet written: its starting conversation as message lines, put in the mirror, so that a line that
   * marks where the conversation stands follows it (the first run then writes only what it adds).
   */
  #forkLines(): SessionEntry[] {
    const start = this.#forkStart;
    if (start === undefined) return [];
    this.#forkStart = undefined;
    this.#mirror = start.slice();
    this.#turn = OpenTurn.last(this.#mirror);
    const at = this.#at();
    return start.map((message) => ({ type: "message", message: scrubMessage(message, this.#scrubber), at }));
  }

  #fail(error: unknown): void {
    this.#error = error ?? new Error("unknown error");
    (this.#options.onError ?? warn(this.sessionId))(error);
  }

  #handle(event: AgentEvent): void {
    if (event.type === "run-start") {
      const parent = event.parentRunId === undefined ? undefined : this.#runs.get(event.parentRunId);
      if (parent) {
        this.#runs.set(event.runId, { kind: "child" });
        this.#write([
          {
            type: "child-run-start",
            runId: event.runId,
            parentRunId: event.parentRunId as string,
            ...optional("parentToolCallId", event.parentToolCallId),
            ...optional("name", event.name),
            model: event.model,
            messages: event.messages.map((message) => scrubMessage(message, this.#scrubber)),
            at: this.#at(),
          },
        ]);
      } else this.#startRun(event.runId, event.messages, event.model);
      return;
    }
    const run = this.#runs.get(event.runId);
    if (run?.kind === "child") {
      this.#write(this.#childLines(event));
      return;
    }
    if (!run || !recordedEvents.has(event.type)) return;
    const lines = this.#modeChange();
    const at = this.#at();
    switch (event.type) {
      case "model-call-start":
        if (event.messages !== run.messages) {
          this.#runs.set(event.runId, { kind: "conversation", messages: event.messages });
          this.#sync(event.messages, "prepare-turn", lines);
        }
        break;
      case "model-call-end": {
        const message = event.response.message;
        lines.push({ type: "message", message: scrubMessage(message, this.#scrubber), at, ...optional("usage", event.response.usage) });
        this.#mirror.push(message);
        this.#turn = new OpenTurn(this.#mirror, message.toolCalls?.length ? this.#mirror.length - 1 : -1);
        break;
      }
      case "tool-call-end": {
        const message = toolResultMessage(event.toolCall, event.result);
        lines.push({ type: "message", message: scrubMessage(message, this.#scrubber), event: "tool-call-end", at });
        this.#mirror.splice(this.#turn.position(this.#mirror, event.toolCall.id), 0, message);
        break;
      }
      case "tool-call-pending":
        lines.push({
          type: "pending",
          toolCall: scrubToolCall(event.toolCall, this.#scrubber),
          ...optional("reason", event.reason === undefined ? undefined : this.#scrubber.text(event.reason)),
          ...(event.deferred && { deferred: true as const }),
          at,
        });
        break;
      case "run-end":
        lines.push({ type: "run-end", status: event.status, at });
        this.#runs.delete(event.runId);
        break;
      case "run-error":
        lines.push({ type: "run-end", status: "failed", error: this.#scrubber.text(errorText(event.error)), at });
        this.#runs.delete(event.runId);
        break;
      default:
        break;
    }
    this.#write(lines);
  }

  /** A sub-agent's answers, results and end, as lines of their own (its streaming and starts write none). */
  #childLines(event: AgentEvent): SessionEntry[] {
    const { runId } = event;
    const at = this.#at();
    switch (event.type) {
      case "model-call-end":
        return [
          {
            type: "child-message",
            runId,
            message: scrubMessage(event.response.message, this.#scrubber),
            ...optional("usage", event.response.usage),
            at,
          },
        ];
      case "tool-call-end":
        return [
          { type: "child-message", runId, message: scrubMessage(toolResultMessage(event.toolCall, event.result), this.#scrubber), at },
        ];
      case "run-end":
        this.#runs.delete(runId);
        return [{ type: "child-run-end", runId, status: event.status, at }];
      case "run-error":
        this.#runs.delete(runId);
        return [{ type: "child-run-end", runId, status: "failed", error: this.#scrubber.text(errorText(event.error)), at }];
      default:
        return [];
    }
  }

  #startRun(runId: string, messages: readonly Message[], model: SessionModel): void {
    this.#runs.set(runId, { kind: "conversation", messages });
    const lines = this.#modeChange();
    const known = this.#model;
    this.#model = model;
    if (!this.#header && known !== undefined && (known.provider !== model.provider || known.modelId !== model.modelId))
      lines.push({ type: "model", model, at: this.#at() });
    this.#sync(messages, "history", lines);
    this.#write(lines);
  }

  /**
   * Brings the record up to `messages`: what follows the recorded conversation is appended; a history that differs
   * from it is a `compaction` line keeping the common start.
   */
  #sync(messages: readonly Message[], reason: "prepare-turn" | "history", lines: SessionEntry[]): void {
    const mirror = this.#mirror;
    const keep = commonStart(mirror, messages);
    const added = messages.slice(keep);
    const at = this.#at();
    if (keep === mirror.length)
      for (const message of added) lines.push({ type: "message", message: scrubMessage(message, this.#scrubber), at });
    else lines.push({ type: "compaction", reason, keep, messages: added.map((message) => scrubMessage(message, this.#scrubber)), at });
    this.#mirror = mirror.slice(0, keep).concat(added);
    this.#turn = OpenTurn.last(this.#mirror);
  }

  #modeChange(): SessionEntry[] {
    const mode = this.#options.permissionMode?.();
    if (mode === undefined || mode === this.#permissionMode) return [];
    this.#permissionMode = mode;
    return [{ type: "permission-mode", mode, at: this.#at() }];
  }

  /** Appends the lines (after the header and queued lines, the first time). */
  #write(lines: SessionEntry[]): void {
    if (lines.length === 0) return;
    if (this.#header) {
      const header: SessionHeader = { ...this.#header, createdAt: this.#at(), ...optional("model", this.#model ?? this.#options.model) };
      this.#store.append(this.sessionId, [header, ...this.#queued, ...lines]);
      this.#header = undefined;
      this.#queued = [];
      this.#forkStart = undefined; // written by now: by #forkLines, or as the first run's history
    } else {
      this.#store.append(this.sessionId, lines);
    }
  }

  #at(): string {
    return this.#now().toISOString();
  }
}

/** The events of a conversation run that write lines (streaming deltas and tool-call starts write none). */
const recordedEvents = new Set<AgentEvent["type"]>([
  "model-call-start",
  "model-call-end",
  "tool-call-end",
  "tool-call-pending",
  "run-end",
  "run-error",
]);

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function warn(sessionId: string): (error: unknown) => void {
  return (error) =>
    process.emitWarning(`Session ${sessionId} is no longer recorded: ${errorText(error)}`, { type: "MinagentSessionWarning" });
}

/** The version of this minagent, from its package.json (src/ and dist/ are both three folders below it). */
function readMinagentVersion(): string | undefined {
  try {
    const version = (createRequire(import.meta.url)("../../../package.json") as { version?: unknown }).version;
    return typeof version === "string" ? version : undefined;
  } catch {
    return undefined;
  }
}
