import { randomUUID } from "node:crypto";
import { appendFile, mkdir, readdir, readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "../../core/events.js";
import type { Message } from "../../core/types.js";
import { UsageError } from "../../errors.js";
import type { CodeSession, CodeSessionStore, CodeSessionSummary } from "./session-context.js";

// The CLI's own session files, behind CodeSessionStore until src/code/sessions lands: one JSONL file per session
// under <home>/projects/<encoded cwd>/<id>.jsonl, a header line then one line per message, appended as the run goes.

/** Where minagent keeps its files: `MINAGENT_HOME`, else `~/.minagent`. */
export function minagentHome(env: Record<string, string | undefined>): string {
  return env.MINAGENT_HOME || join(homedir(), ".minagent");
}

/** A folder's name for its sessions, as Claude Code writes it: every character but letters and digits becomes "-". */
export function encodeProjectPath(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, "-");
}

type SessionLine =
  | { type: "session"; id: string; cwd: string; createdAt: string; forkedFrom?: string }
  | { type: "message"; message: Message; timestamp: string };

const sessionIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** The session files of the project folder `cwd`. */
export function createSessionFileStore(options: { cwd: string; home: string }): CodeSessionStore {
  const folder = join(options.home, "projects", encodeProjectPath(options.cwd));
  const fileOf = (id: string) => join(folder, `${id}.jsonl`);

  const create: CodeSessionStore["create"] = async (seed = {}) => {
    const id = randomUUID();
    const header: SessionLine = {
      type: "session",
      id,
      cwd: options.cwd,
      createdAt: new Date().toISOString(),
      ...(seed.forkedFrom !== undefined && { forkedFrom: seed.forkedFrom }),
    };
    return openSessionFile({
      id,
      file: fileOf(id),
      folder,
      history: [...(seed.history ?? [])],
      pending: [header, ...messageLines(seed.history ?? [])],
    });
  };

  const open: CodeSessionStore["open"] = async (id) => {
    if (!sessionIdPattern.test(id))
      throw new UsageError(`"${id}" is not a session id (ids look like 1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed).`);
    const file = fileOf(id);
    const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") throw new UsageError(`No session ${id} in ${options.cwd} (looked for ${file}).`);
      throw error;
    });
    return openSessionFile({ id, file, folder, history: readMessages(text), pending: [] });
  };

  const list: CodeSessionStore["list"] = async () => {
    const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [] as string[];
      throw error;
    });
    const summaries: (CodeSessionSummary & { mtimeMs: number })[] = [];
    for (const name of names) {
      if (!name.endsWith(".jsonl")) continue;
      const file = join(folder, name);
      const [info, text] = await Promise.all([stat(file), readFile(file, "utf8")]).catch(() => [undefined, ""] as const);
      if (!info) continue;
      const messages = readMessages(text);
      const firstPrompt = messages.find((message) => message.role === "user")?.content;
      summaries.push({
        id: name.slice(0, -".jsonl".length),
        file,
        updatedAt: info.mtime.toISOString(),
        mtimeMs: info.mtimeMs,
        messageCount: messages.length,
        firstPrompt,
      });
    }
    summaries.sort((a, b) => b.mtimeMs - a.mtimeMs || a.id.localeCompare(b.id));
    return summaries.map(({ mtimeMs: _, ...summary }) => summary);
  };

  return { create, open, list };
}

/** The messages of a session file; a last line cut short by a crash is passed over. */
function readMessages(text: string): Message[] {
  const messages: Message[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let entry: SessionLine;
    try {
      entry = JSON.parse(line) as SessionLine;
    } catch {
      continue;
    }
    if (entry?.type === "message" && typeof entry.message === "object" && entry.message !== null) messages.push(entry.message);
  }
  return messages;
}

function messageLines(messages: readonly Message[]): SessionLine[] {
  const timestamp = new Date().toISOString();
  return messages.map((message) => ({ type: "message", message, timestamp }));
}

/**
 * A session whose file grows with each run: the messages a run starts with that the file lacks (the prompt) at
 * `run-start`, each model response at `model-call-end`, the conversation at each later `model-call-start` (which
 * holds the tool results in call order), and at the run's end or failure the results that came in since. Events of
 * child runs are not the conversation and are passed over.
 */
function openSessionFile(parts: { id: string; file: string; folder: string; history: Message[]; pending: SessionLine[] }): CodeSession {
  let written = parts.history.length;
  let runId: string | undefined;
  let lastCalls: readonly { id: string }[] = [];
  let results = new Map<string, Message>();
  let queue: Promise<void> = Promise.resolve();
  let failure: unknown;
  let created = parts.pending.length === 0;
  let lines = parts.pending;

  // A new session's header (and a fork's copied history) is written with its first message: no empty files.
  const write = (entries: SessionLine[]) => {
    lines.push(...entries);
    const batch = lines;
    lines = [];
    queue = queue.then(async () => {
      if (!created) await mkdir(parts.folder, { recursive: true });
      created = true;
      await appendFile(parts.file, batch.map((line) => `${JSON.stringify(line)}\n`).join(""));
    });
    queue = queue.catch((error: unknown) => {
      failure ??= error;
    });
  };
  const append = (messages: readonly Message[]) => {
    if (messages.length === 0) return;
    written += messages.length;
    write(messageLines(messages));
  };
  const appendFrom = (messages: readonly Message[]) => {
    results = new Map();
    append(messages.slice(written));
  };
  const appendResults = () => {
    const ordered = lastCalls.map((call) => results.get(call.id)).filter((message) => message !== undefined);
    results = new Map();
    append(ordered);
  };

  const record = (event: AgentEvent) => {
    if (event.type === "run-start") {
      if (event.parentRunId !== undefined) return;
      runId = event.runId;
      appendFrom(event.messages);
      return;
    }
    if (event.runId !== runId) return;
    switch (event.type) {
      case "model-call-start":
        appendFrom(event.messages);
        break;
      case "model-call-end":
        lastCalls = event.response.message.toolCalls ?? [];
        append([event.response.message]);
        break;
      case "tool-call-end":
        results.set(event.toolCall.id, {
          role: "tool",
          content: event.result.content,
          toolCallId: event.toolCall.id,
          ...(event.result.isError && { isError: true }),
        });
        break;
      case "run-end":
      case "run-error":
        appendResults();
        runId = undefined;
        break;
      default:
        break;
    }
  };

  return {
    id: parts.id,
    file: parts.file,
    history: parts.history,
    record,
    flush: async () => {
      await queue;
      if (failure) throw failure;
    },
  };
}
