import { addUsage, emptyUsage, type Message, OpenTurn, type PendingToolCall, type Usage, UsageError } from "../../engine.js";
import { isTitlePrompt, sessionTitle } from "../../session-title.js";
import { type SessionEntry, type SessionHeader, type SessionModel, sessionFormatVersion, toPendingToolCall } from "./session-format.js";
import type { LoadedSession, SessionProblem, SessionStatus, SessionSummary } from "./session-store.js";

/**
 * Reads a session file's text: the header, then every line in order. A last line without its newline that is
 * not JSON was torn by a crash and is skipped; so is a damaged line elsewhere, or one whose shape is wrong; each
 * is reported in `problems`. Lines of a type this version does not know are skipped silently (newer writers).
 * Throws a UsageError when the first line is not a version-1 header. `source` names the file in errors.
 */
export function readSession(text: string, source: string): LoadedSession {
  return readFromLastCompaction(text, source) ?? readWhole(text, source);
}

/**
 * `readSession` by replaying every line from the first, never from the last compaction: what `readSession` must
 * always give (its tests compare the two), and slower for a long session.
 */
export function readWhole(text: string, source: string): LoadedSession {
  const { reader, problems } = replayLines(text, source, () => false);
  return reader.result(problems);
}

const compactionLine = '{"type":"compaction",';
const lastOfType = ['{"type":"model",', '{"type":"permission-mode",', '{"type":"name",'] as const;
/** What only a replay of every line can tell, read from one when first asked for (see readFromLastCompaction). */
const tallied = ["firstPrompt", "title", "prompts", "turns", "usage", "compactions", "problems"] as const;

/**
 * A long session read from its last compaction: what came before it replaced everything but the first `keep`
 * messages, so the lines in between are not parsed, only looked at for the last model, permission mode and name
 * lines (found by how they start: the recorder writes `type` first, and JSON text holds no raw newline). Resuming a
 * 10,000-message session parsed about four times the JSON it needed. The counts and sums over every line (usage,
 * prompts, turns, the first prompt, problems) are replayed from the whole text when first read, so the result is
 * what `readWhole` gives. Undefined, and the whole file is replayed, when that sameness is not certain: no complete
 * compaction line, an earlier compaction that may have changed the kept messages, a line in between that does not
 * start with its type, an unreadable last model, mode or name line.
 */
function readFromLastCompaction(text: string, source: string): LoadedSession | undefined {
  const at = text.lastIndexOf(`\n${compactionLine}`);
  const lineEnd = at === -1 ? -1 : text.indexOf("\n", at + 1);
  if (lineEnd === -1) return undefined;
  const compaction = parseEntry(text.slice(at + 1, lineEnd));
  if (compaction?.type !== "compaction" || !Number.isInteger(compaction.keep) || typeof compaction.at !== "string") return undefined;
  const before = text.slice(0, at).split("\n");
  const reader = new ConversationReader(readHeader(before[0], source));
  // The head: replayed until its first `keep` messages can no longer change (a result spliced into an open turn
  // among them could still move them).
  let index = 1;
  for (; index < before.length && !reader.holdsStable(compaction.keep); index++) {
    const entry = parseEntry(before[index] as string);
    if (entry !== undefined) reader.apply(entry);
  }
  const last: (string | undefined)[] = [];
  for (; index < before.length; index++) {
    const line = before[index] as string;
    if (line.startsWith(compactionLine)) {
      // An earlier compaction keeps the head if it keeps at least as much, and its own messages hold the open turn.
      const earlier = parseEntry(line);
      if (earlier?.type === "compaction" && Array.isArray(earlier.messages))
        if (!(earlier.keep >= compaction.keep && earlier.messages.some((message) => message?.role !== "tool"))) return undefined;
    } else if (line.startsWith('{"type":"')) {
      for (let kind = 0; kind < lastOfType.length; kind++) if (line.startsWith(lastOfType[kind] as string)) last[kind] = line;
    } else if (line !== "") return undefined; // written by another hand, or damaged: its type is not where it is looked for
  }
  for (const line of last) {
    const entry = line === undefined ? undefined : parseEntry(line);
    if (line !== undefined && (entry === undefined || reader.apply(entry) !== undefined)) return undefined;
  }
  if (reader.apply(compaction) !== undefined) return undefined;
  const after = text.slice(lineEnd + 1);
  const lines = after.split("\n");
  const lastLine = after.endsWith("\n") ? lines.length - 2 : lines.length - 1;
  for (let index = 0; index <= lastLine; index++) {
    const raw = lines[index] as string;
    const entry = raw === "" ? undefined : parseEntry(raw);
    if (entry !== undefined) reader.apply(entry);
  }
  const result = reader.result([]);
  let whole: LoadedSession | undefined;
  const replayed = () => {
    whole ??= readWhole(text, source);
    return whole;
  };
  for (const field of tallied)
    Object.defineProperty(result, field, {
      get: () => replayed()[field],
      enumerable: true,
      configurable: true,
    });
  return result;
}

/** A line's JSON when it is an object; undefined when it is not JSON (torn or damaged) or not an object. */
function parseEntry(raw: string): SessionEntry | undefined {
  try {
    const entry = JSON.parse(raw) as SessionEntry | null;
    return typeof entry === "object" && entry !== null ? entry : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The conversation as it stood before a checkpoint: the file's lines replayed up to (not including) the first
 * that is the `checkpoint` marker with that id or a rewind's `compaction` line with it, so exactly what
 * `readSession(…).messages` was then (call order restored, compactions before it applied). Undefined when the
 * file has no such line. Torn and damaged lines are skipped as `readSession` skips them; throws as it does for a
 * file that is not a session.
 */
export function conversationBefore(text: string, source: string, checkpointId: string): Message[] | undefined {
  const { reader, stopped } = replayLines(
    text,
    source,
    (entry) => (entry.type === "checkpoint" || entry.type === "compaction") && entry.checkpointId === checkpointId,
  );
  return stopped ? reader.result([]).messages : undefined;
}

/** The header of a session file's text; throws a UsageError as `readSession` does when it is not one. */
export function readSessionHeader(text: string, source: string): SessionHeader {
  const end = text.indexOf("\n");
  return readHeader(end === -1 ? text : text.slice(0, end), source);
}

/** Replays the lines after the header into a reader, until `stop` is true of a line (which is not applied). */
function replayLines(
  text: string,
  source: string,
  stop: (entry: SessionEntry) => boolean,
): { reader: ConversationReader; problems: SessionProblem[]; stopped: boolean } {
  const lines = text.split("\n");
  const problems: SessionProblem[] = [];
  const reader = new ConversationReader(readHeader(lines[0], source));
  const last = text.endsWith("\n") ? lines.length - 2 : lines.length - 1;
  for (let index = 1; index <= last; index++) {
    const raw = lines[index] as string;
    if (raw === "") continue;
    let entry: SessionEntry;
    try {
      entry = JSON.parse(raw) as SessionEntry;
    } catch {
      problems.push({ line: index + 1, reason: index === last && !text.endsWith("\n") ? tornLine : damagedLine });
      continue;
    }
    if (typeof entry === "object" && entry !== null && stop(entry)) return { reader, problems, stopped: true };
    const problem = reader.apply(entry);
    if (problem !== undefined) problems.push({ line: index + 1, reason: problem });
  }
  return { reader, problems, stopped: false };
}

const tornLine = "the last line is incomplete: the process stopped while writing it";
const damagedLine = "not JSON: a line torn by a crash, or a damaged file";

function readHeader(raw: string | undefined, source: string): SessionHeader {
  let header: Partial<SessionHeader> | undefined;
  try {
    header = raw ? (JSON.parse(raw) as Partial<SessionHeader>) : undefined;
  } catch {
    header = undefined;
  }
  if (header?.type !== "session" || typeof header.sessionId !== "string" || typeof header.cwd !== "string")
    throw new UsageError(`${source} is not a minagent session: its first line is not a complete session header.`);
  if (header.version !== sessionFormatVersion)
    throw new UsageError(
      `${source} has session format version ${String(header.version)}; this minagent reads version ${sessionFormatVersion}.`,
    );
  return header as SessionHeader;
}

const roles = new Set(["system", "user", "assistant", "tool"]);

function isMessage(value: unknown): value is Message {
  const message = value as Message | null;
  return (
    typeof message === "object" &&
    message !== null &&
    roles.has(message.role) &&
    typeof message.content === "string" &&
    (message.toolCalls === undefined || Array.isArray(message.toolCalls))
  );
}

/** Replays lines into the conversation, restoring each turn's results to call order. */
class ConversationReader {
  readonly #header: SessionHeader;
  #messages: Message[] = [];
  /** The turn whose calls are being answered. */
  #turn = new OpenTurn([], -1);
  #pending = new Map<string, PendingToolCall>();
  #firstPrompt: string | undefined;
  /** The first prompt worth titling the session by, and the last name given it. */
  #titlePrompt: string | undefined;
  #name: string | undefined;
  #prompts = 0;
  #turns = 0;
  #compactions = 0;
  readonly #usage: Usage = emptyUsage();
  #updatedAt: string;
  #model: SessionModel | undefined;
  #permissionMode: string | undefined;
  #status: SessionStatus = "unfinished";

  constructor(header: SessionHeader) {
    this.#header = header;
    this.#updatedAt = header.createdAt;
    this.#model = header.model;
  }

  /**
   * Whether the conversation's first `keep` messages are settled: there are that many, and no turn open among them
   * could splice a result in before their end.
   */
  holdsStable(keep: number): boolean {
    return this.#messages.length >= keep && (this.#turn.start === -1 || this.#turn.start >= keep - 1);
  }

  /** Applies one line; returns why it was skipped, if it was. */
  apply(entry: SessionEntry): string | undefined {
    if (typeof entry !== "object" || entry === null) return "not a session line";
    if (entry.usage) addUsage(this.#usage, entry.usage);
    if (typeof entry.at === "string") this.#updatedAt = entry.at;
    switch (entry.type) {
      case "message":
        if (!isMessage(entry.message)) return "a message line without a valid message";
        this.#status = "unfinished";
        return this.#addMessage(entry.message, entry.event === "tool-call-end");
      case "compaction": {
        if (!Number.isInteger(entry.keep) || entry.keep < 0 || !Array.isArray(entry.messages) || !entry.messages.every(isMessage))
          return "a compaction line without a valid history";
        this.#status = "unfinished";
        this.#compactions++;
        this.#messages = this.#messages.slice(0, entry.keep).concat(entry.messages);
        // After a compaction the last assistant message's calls are still open if only tool messages follow it.
        this.#openTurn(OpenTurn.last(this.#messages));
        return undefined;
      }
      case "pending":
        if (typeof entry.toolCall?.id !== "string") return "a pending line without a tool call";
        if (this.#turn.includes(entry.toolCall.id)) this.#pending.set(entry.toolCall.id, toPendingToolCall(entry));
        return undefined;
      case "run-end":
        this.#status = entry.status;
        return undefined;
      case "permission-mode":
        this.#permissionMode = entry.mode;
        return undefined;
      case "model":
        this.#model = entry.model;
        return undefined;
      case "name":
        if (typeof entry.name !== "string") return "a name line without a name";
        this.#name = entry.name;
        return undefined;
      default:
        return undefined;
    }
  }

  #addMessage(message: Message, inCallOrder: boolean): string | undefined {
    if (message.role === "tool") return this.#addResult(message, inCallOrder);
    this.#messages.push(message);
    if (message.role === "user") {
      this.#prompts++;
      this.#firstPrompt ??= message.content;
      if (this.#titlePrompt === undefined && isTitlePrompt(message.content)) this.#titlePrompt = message.content;
    }
    if (message.role === "assistant") this.#turns++;
    this.#openTurn(new OpenTurn(this.#messages, message.toolCalls?.length ? this.#messages.length - 1 : -1));
    return undefined;
  }

  /**
   * A result written when its call ended goes after the results of the calls made before its own (they may have
   * finished later); any other result (the engine's answer to a call a crash cut short) stays where it was written.
   */
  #addResult(message: Message, inCallOrder: boolean): string | undefined {
    const id = message.toolCallId ?? "";
    if (!this.#turn.includes(id)) {
      this.#messages.push(message);
      return undefined;
    }
    if (this.#turn.isAnswered(this.#messages, id)) return `a second result for the call "${id}"`;
    this.#messages.splice(inCallOrder ? this.#turn.position(this.#messages, id) : this.#messages.length, 0, message);
    this.#pending.delete(id);
    return undefined;
  }

  #openTurn(turn: OpenTurn): void {
    this.#turn = turn;
    this.#pending = new Map();
  }

  result(problems: SessionProblem[]): LoadedSession {
    const header = this.#header;
    const turn = this.#turn;
    const pending = [...this.#pending.values()].sort((a, b) => (turn.order(a.toolCall.id) ?? 0) - (turn.order(b.toolCall.id) ?? 0));
    return {
      sessionId: header.sessionId,
      header,
      messages: this.#messages,
      firstPrompt: this.#firstPrompt,
      name: this.#name,
      title: sessionTitle({ name: this.#name, firstPrompt: this.#titlePrompt }),
      prompts: this.#prompts,
      turns: this.#turns,
      usage: this.#usage,
      createdAt: header.createdAt,
      updatedAt: this.#updatedAt,
      model: this.#model,
      permissionMode: this.#permissionMode,
      status: this.#status,
      pending,
      compactions: this.#compactions,
      problems,
    };
  }
}

// Listing reads no conversation: it finds lines by how they start. The recorder writes every message line with
// these keys first, and JSON text holds no raw newline, so a match is always the start of a line.
const assistantLine = Buffer.from('\n{"type":"message","message":{"role":"assistant"');
const userLine = Buffer.from('\n{"type":"message","message":{"role":"user"');
const nameLine = Buffer.from('\n{"type":"name","name":');

/**
 * What `list` shows of a session file, read without parsing the conversation: the header, the first prompt, the
 * last name given and the title, the counts of assistant and user message lines, and the time of the last complete line. Undefined for a file
 * that is not a session (no complete header) or of another format version.
 */
export function summarizeSession(bytes: Buffer): SessionSummary | undefined {
  const firstEnd = bytes.indexOf(10);
  let header: SessionHeader;
  try {
    header = readHeader(bytes.toString("utf8", 0, firstEnd === -1 ? bytes.length : firstEnd), "");
  } catch {
    return undefined;
  }
  // A torn last line is left out, as `load` leaves it out.
  let end = bytes.length;
  if (bytes[end - 1] !== 10 && parseLine(bytes, end) === undefined) end = bytes.lastIndexOf(10, end - 1) + 1;
  const complete = bytes.subarray(0, end);
  const firstPrompt = parseLineAt(complete, complete.indexOf(userLine))?.message?.content;
  const name = lastName(complete);
  return {
    sessionId: header.sessionId,
    cwd: header.cwd,
    firstPrompt,
    name,
    title: sessionTitle({ name, firstPrompt: firstTitlePrompt(complete, firstPrompt) }),
    turns: countOccurrences(complete, assistantLine),
    prompts: countOccurrences(complete, userLine),
    createdAt: header.createdAt,
    updatedAt: lastTime(bytes, end) ?? header.createdAt,
    model: header.model,
    forkedFrom: header.forkedFrom?.sessionId,
  };
}

type ListedLine = { message?: Partial<Message>; name?: unknown };

/** The line starting after the newline at `newline`, parsed; undefined when there is none or it is not JSON. */
function parseLineAt(bytes: Buffer, newline: number): ListedLine | undefined {
  if (newline === -1) return undefined;
  const lineEnd = bytes.indexOf(10, newline + 1);
  try {
    return JSON.parse(bytes.toString("utf8", newline + 1, lineEnd === -1 ? bytes.length : lineEnd)) as ListedLine;
  } catch {
    return undefined;
  }
}

/** The last name given the session (a `name` line), if any. */
function lastName(bytes: Buffer): string | undefined {
  const name = parseLineAt(bytes, bytes.lastIndexOf(nameLine))?.name;
  return typeof name === "string" ? name : undefined;
}

/** The first prompt worth a title: usually the first; else the next user lines are read until one is. */
function firstTitlePrompt(bytes: Buffer, first: string | undefined): string | undefined {
  if (first === undefined || isTitlePrompt(first)) return first;
  let at = bytes.indexOf(userLine);
  for (let tries = 0; tries < 20 && at !== -1; tries++) {
    at = bytes.indexOf(userLine, at + userLine.length);
    const content = parseLineAt(bytes, at)?.message?.content;
    if (typeof content === "string" && isTitlePrompt(content)) return content;
  }
  return undefined;
}

/** The line that ends at `end` (a newline there, or the end of the file), parsed; undefined if it is not JSON. */
function parseLine(bytes: Buffer, end: number): { at?: unknown } | undefined {
  const stop = bytes[end - 1] === 10 ? end - 1 : end;
  const start = bytes.lastIndexOf(10, stop - 1) + 1;
  try {
    return JSON.parse(bytes.toString("utf8", start, stop)) as { at?: unknown };
  } catch {
    return undefined;
  }
}

/** The time of the last line before `end` that has one (a damaged line is passed over; at most a few are tried). */
function lastTime(bytes: Buffer, end: number): string | undefined {
  for (let tries = 0, stop = end; tries < 8 && stop > 0; tries++) {
    const at = parseLine(bytes, stop)?.at;
    if (typeof at === "string") return at;
    stop = bytes.lastIndexOf(10, stop - 2) + 1;
  }
  return undefined;
}

function countOccurrences(bytes: Buffer, pattern: Buffer): number {
  let count = 0;
  for (let index = bytes.indexOf(pattern); index !== -1; index = bytes.indexOf(pattern, index + pattern.length)) count++;
  return count;
}
