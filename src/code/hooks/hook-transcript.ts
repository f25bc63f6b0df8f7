import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentEvent, type Message, toolResultMessage } from "../../engine.js";
import { createSessionScrubber, environmentSecrets, scrubMessage } from "../sessions/scrub-message.js";

/** Settings of a {@link HookTranscript}. */
export type HookTranscriptOptions = {
  /** Written on every line, as Claude Code's transcripts do. */
  sessionId: string;
  cwd: string;
  /**
   * The file to write (its folder must exist). Default: `transcript.jsonl` in a new private folder under the
   * system's temporary folder (mode 0700, the file 0600), removed by `remove()`.
   */
  path?: string | undefined;
  /** The environment whose credential-named variables' values are never written (default: `process.env`). */
  env?: NodeJS.ProcessEnv | undefined;
};

/**
 * The conversation so far as a JSON Lines file for hooks (`transcript_path`), in the line shape of Claude Code's
 * transcripts, so that a hook written for them reads it unchanged: one object a message, `type` `"user"` or
 * `"assistant"`, `message` with `role` and `content` (the assistant's text and `tool_use` blocks; a tool result is
 * a user line with a `tool_result` block), `uuid`, `parentUuid`, `sessionId`, `cwd`, `timestamp`. The system prompt
 * is not written. Lines are only appended, each message once, so a compaction adds its summary and the file keeps
 * what came before it (as Claude Code's does). Secrets are hidden as in session files (the same scrubber), so it
 * holds nothing a session file would not. It follows the agent's top-level runs through `listen` (pass it to
 * `onEvent`) and is brought up to date by `sync()`, which the hook runner calls before an event's hooks run.
 */
export class HookTranscript {
  readonly #options: HookTranscriptOptions;
  readonly #scrubber: ReturnType<typeof createSessionScrubber>;
  /** The loop's conversation as its latest model call saw it (its own array, which grows) and the results since. */
  #messages: readonly Message[] = [];
  #ended: Message[] = [];
  readonly #runs = new Set<string>();
  readonly #written = new WeakSet<Message>();
  readonly #writtenResults = new Set<string>();
  #path: string | undefined;
  #folder: string | undefined;
  #lastUuid: string | null = null;

  constructor(options: HookTranscriptOptions) {
    this.#options = options;
    const base = createSessionScrubber([]);
    this.#scrubber = createSessionScrubber(environmentSecrets(options.env ?? process.env, base));
  }

  /** The listener to pass as the agent's `onEvent`: child runs (subagents) are left out. */
  readonly listen = (event: AgentEvent): void => {
    if (event.type === "run-start") {
      if (event.parentRunId !== undefined) return;
      this.#runs.add(event.runId);
      this.#messages = event.messages;
      this.#ended = [];
      return;
    }
    if (!this.#runs.has(event.runId)) return;
    if (event.type === "model-call-start") {
      this.#messages = event.messages;
      this.#ended = [];
    } else if (event.type === "tool-call-end") this.#ended.push(toolResultMessage(event.toolCall, event.result));
    else if (event.type === "run-end" || event.type === "run-error") this.#runs.delete(event.runId);
  };

  /** Appends what the conversation has that the file does not, and returns the file's path. */
  sync(): string {
    const path = this.#path ?? this.#create();
    const lines: string[] = [];
    for (const message of [...this.#messages, ...this.#ended]) {
      if (message.role === "system" || this.#written.has(message)) continue;
      const result = message.role === "tool" ? `${message.toolCallId}\0${message.content}` : undefined;
      if (result !== undefined && this.#writtenResults.has(result)) continue;
      this.#written.add(message);
      if (result !== undefined) this.#writtenResults.add(result);
      lines.push(JSON.stringify(this.#line(scrubMessage(message, this.#scrubber))));
    }
    if (lines.length > 0) appendFileSync(path, `${lines.join("\n")}\n`, { mode: 0o600 });
    return path;
  }

  /** Deletes the file, and its folder when the transcript made it. */
  async remove(): Promise<void> {
    const target = this.#folder ?? this.#path;
    this.#path = undefined;
    this.#folder = undefined;
    if (target !== undefined) await rm(target, { recursive: true, force: true });
  }

  #create(): string {
    if (this.#options.path !== undefined) {
      writeFileSync(this.#options.path, "", { mode: 0o600 });
      this.#path = this.#options.path;
    } else {
      this.#folder = mkdtempSync(join(tmpdir(), "minagent-transcript-"));
      this.#path = join(this.#folder, "transcript.jsonl");
      writeFileSync(this.#path, "", { mode: 0o600 });
    }
    return this.#path;
  }

  #line(message: Message): Record<string, unknown> {
    const uuid = globalThis.crypto.randomUUID();
    const line = {
      type: message.role === "assistant" ? "assistant" : "user",
      message: { role: message.role === "assistant" ? "assistant" : "user", content: contentOf(message) },
      uuid,
      parentUuid: this.#lastUuid,
      sessionId: this.#options.sessionId,
      cwd: this.#options.cwd,
      timestamp: new Date().toISOString(),
    };
    this.#lastUuid = uuid;
    return line;
  }
}

/** A message's content as Anthropic's content blocks, which Claude Code's transcripts hold. */
function contentOf(message: Message): unknown {
  if (message.role === "tool")
    return [{ type: "tool_result", tool_use_id: message.toolCallId, content: message.content, ...(message.isError && { is_error: true }) }];
  if (message.role !== "assistant") return message.content;
  const blocks: Record<string, unknown>[] = [];
  if (message.content !== "") blocks.push({ type: "text", text: message.content });
  for (const call of message.toolCalls ?? []) blocks.push({ type: "tool_use", id: call.id, name: call.name, input: call.arguments });
  return blocks;
}
