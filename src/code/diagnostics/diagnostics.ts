import { readFile } from "node:fs/promises";
import { relative } from "node:path";
// The protocol libraries load with the first server started, not with every session that might start one.
import type { LanguageServer } from "./language-server.js";
import { findExecutable, type LanguageServerConfig, serverFor } from "./language-server-settings.js";
import { type DiagnosedText, formatErrors, newErrors } from "./new-errors.js";

/** Options of {@link Diagnostics.create}. */
export type DiagnosticsOptions = {
  /** The workspace root: the servers' root and working directory. */
  root: string;
  /** The servers by file type (`readLanguageServerSettings`). */
  servers: readonly LanguageServerConfig[];
  /** How long to wait for a warm server's diagnostics of a file, in ms (default 3,000). */
  timeoutMs?: number | undefined;
  /**
   * How long after a publish to wait for another before taking it as the answer, in ms (default 150; four times as long
   * for a server's first diagnosis, whose type check loads the project's types). Servers publish in steps.
   */
  settleMs?: number | undefined;
  /** How long a server may take to start and diagnose its first file (loading the project), in ms (default 20,000). */
  startTimeoutMs?: number | undefined;
  /** Most errors appended to a result (default 10). */
  maxErrors?: number | undefined;
  /** Most characters appended to a result (default 2,000). */
  maxCharacters?: number | undefined;
  /** Files longer than this many characters are not diagnosed (default 1,000,000: a generated bundle, a data file). */
  maxFileCharacters?: number | undefined;
  /** The folders searched for a server's command after the root's `node_modules/.bin` (default PATH). */
  searchPath?: string | undefined;
  /**
   * `false`: the root's `node_modules/.bin` is not searched, so a repository's own `typescript-language-server` is
   * not run. That is not enough for a folder the person did not trust: typescript-language-server runs the project's
   * own `node_modules/typescript`, which a cloned repository could ship, so `minagent code` turns diagnostics off
   * there. Default true.
   */
  workspaceBin?: boolean | undefined;
  /** How a file is named in results (default: relative to the root). */
  display?: ((absolute: string) => string) | undefined;
};

/** What a change made after the session closed gets instead of a server. */
const closedNote = "[diagnostics: the session is closed]";

/** A server as the session has it: found or not, started on first need. */
type ServerSlot = {
  config: LanguageServerConfig;
  executable: string;
  started?: Promise<LanguageServer | string>;
  /** Once a diagnosis ended: the project is loaded, later ones get the warm time limit. */
  diagnosed?: boolean;
  /** Once a failure to start was told to the model. */
  failureSaid?: boolean;
  /** The file last read, and the background diagnoses of files read, one after the other ({@link Diagnostics.prefetch}). */
  latestRead?: string;
  prefetching?: Promise<void>;
};

/**
 * The language servers of a session, for the errors an edit brings: each started on the first change of a file of
 * its type and reused, all stopped by {@link close}. {@link around} diagnoses the file before a change (once per
 * file, or again when something else changed it since) and after it, and says which errors are new.
 */
export class Diagnostics {
  /** Configured servers whose command was not found (built-in ones are silent): the session's warnings, one each. */
  readonly warnings: readonly string[];
  readonly #options: DiagnosticsOptions;
  readonly #slots: ServerSlot[];
  /** Each file's text as last diagnosed, with its diagnostics: the next change's "before". */
  readonly #last = new Map<string, DiagnosedText>();
  /** Changes of one file wait for each other: their diagnoses would cross. */
  readonly #queues = new Map<string, Promise<unknown>>();
  #closed = false;

  private constructor(options: DiagnosticsOptions, slots: ServerSlot[], warnings: string[]) {
    this.#options = options;
    this.#slots = slots;
    this.warnings = warnings;
  }

  /** Finds each server's command (nothing is started yet). */
  static async create(options: DiagnosticsOptions): Promise<Diagnostics> {
    const slots: ServerSlot[] = [];
    const warnings: string[] = [];
    for (const config of options.servers) {
      const command = config.command[0] ?? "";
      const executable = await findExecutable(command, options.root, {
        path: options.searchPath,
        workspaceBin: options.workspaceBin,
      });
      if (executable !== undefined) slots.push({ config, executable });
      else if (!config.builtIn)
        warnings.push(
          `The "${config.name}" language server's command ${JSON.stringify(command)} is not in node_modules/.bin or on PATH: no diagnostics for ${Object.keys(config.extensions).join(", ")} files.`,
        );
    }
    return new Diagnostics(options, slots, warnings);
  }

  /** Whether some server serves this file. */
  serves(path: string): boolean {
    return this.#slotFor(path) !== undefined;
  }

  /** The servers running now, with their process ids. */
  async running(): Promise<{ name: string; pid: number | undefined }[]> {
    const servers = await Promise.all(this.#slots.map((slot) => slot.started));
    return servers
      .filter((server): server is LanguageServer => typeof server === "object")
      .map((server) => ({ name: server.config.name, pid: server.pid }));
  }

  /**
   * Runs `change` (a tool changing the file at `path`) between two diagnoses of the file, and returns its value
   * with what to tell the model: the errors the change brought (capped), that the server did not answer in time,
   * or that it failed (once). Undefined when no server serves the file or nothing is worth saying.
   */
  async around<T>(path: string, change: () => Promise<T>): Promise<{ value: T; report: string | undefined }> {
    const slot = this.#slotFor(path);
    if (slot === undefined || this.#closed) return { value: await change(), report: undefined };
    return this.#queued(path, () => this.#diagnoseAround(slot, path, change));
  }

  /** Runs `work` after the file's earlier diagnoses: two at once would cross. */
  #queued<T>(path: string, work: () => Promise<T>): Promise<T> {
    const turn = (this.#queues.get(path) ?? Promise.resolve()).then(work);
    this.#queues.set(
      path,
      turn.catch(() => {}),
    );
    return turn;
  }

  /**
   * Diagnoses a file the model has just read, in the background, so that its first change finds the "before" ready
   * and the server started — while the model writes its next turn. One at a time per server, and only the latest
   * file read by then (an Explore subagent reading a hundred files costs one diagnosis at a time, not a hundred at
   * once). Never rejects; a failure is said at the change.
   */
  prefetch(path: string): void {
    const slot = this.#slotFor(path);
    if (slot === undefined || this.#closed) return;
    slot.latestRead = path;
    const job = (slot.prefetching ?? Promise.resolve()).then(() =>
      this.#queued(path, async () => {
        if (slot.latestRead !== path || this.#closed) return;
        const server = await this.#start(slot);
        if (typeof server !== "string") await this.#baseline(server, slot, path);
      }),
    );
    slot.prefetching = job.catch(() => {});
  }

  /** Stops every server started (shutdown, exit, then its process group killed). */
  async close(): Promise<void> {
    this.#closed = true;
    const servers = await Promise.all(this.#slots.map((slot) => slot.started));
    await Promise.all(servers.map((server) => (typeof server === "object" ? server.stop() : undefined)));
  }

  async #diagnoseAround<T>(slot: ServerSlot, path: string, change: () => Promise<T>): Promise<{ value: T; report: string | undefined }> {
    // Queued before the session closed, run after: the change goes on, no server is started for it.
    if (this.#closed) return { value: await change(), report: undefined };
    const server = await this.#start(slot);
    if (typeof server === "string") {
      const report = slot.failureSaid ? undefined : server;
      slot.failureSaid = true;
      return { value: await change(), report };
    }
    const baseline = await this.#baseline(server, slot, path);
    const value = await change();
    if (baseline === "too long") return { value, report: undefined };
    const textAfter = await readText(path);
    // A refused change, or a deleted file: nothing to diagnose.
    if (textAfter === undefined || textAfter === baseline.text || textAfter.length > this.#maxFileCharacters)
      return { value, report: undefined };
    const timeoutMs = this.#options.timeoutMs ?? 3_000;
    const published = await server.diagnose(path, textAfter, timeoutMs, this.#settleMs(slot)).catch((error: Error) => error);
    slot.diagnosed = true;
    const shown = this.#display(path);
    if (published instanceof Error) return { value, report: `[diagnostics: ${published.message}]` };
    if (published === "timeout") {
      this.#last.delete(path);
      return {
        value,
        report: `[diagnostics: the ${slot.config.name} language server gave none for ${shown} within ${timeoutMs / 1000} s; errors are not shown]`,
      };
    }
    const after = { text: textAfter, diagnostics: published.diagnostics };
    this.#last.set(path, after);
    const errors = newErrors(baseline.before, after);
    if (errors.length === 0) return { value, report: undefined };
    const caps = { maxErrors: this.#options.maxErrors ?? 10, maxCharacters: this.#options.maxCharacters ?? 2_000 };
    // Without a baseline (the server did not answer before the change) every error is listed, said so.
    const heading = baseline.before === undefined ? `Errors in ${shown}` : `New errors in ${shown}`;
    return { value, report: `${heading} (${slot.config.name} language server):\n${formatErrors(shown, errors, caps)}` };
  }

  /**
   * The file as it is now with its diagnostics: the last diagnosis when the text is still the one diagnosed, else a
   * new one (kept for the next change). An absent file has none; `before` is undefined when the server did not answer.
   */
  async #baseline(
    server: LanguageServer,
    slot: ServerSlot,
    path: string,
  ): Promise<{ text: string | undefined; before: DiagnosedText | undefined } | "too long"> {
    const text = await readText(path);
    if (text === undefined) return { text, before: { text: "", diagnostics: [] } };
    if (text.length > this.#maxFileCharacters) return "too long";
    const last = this.#last.get(path);
    if (last?.text === text) return { text, before: last };
    // The first diagnosis of a server waits for it to load the project.
    const timeoutMs = slot.diagnosed ? (this.#options.timeoutMs ?? 3_000) : (this.#options.startTimeoutMs ?? 20_000);
    const published = await server.diagnose(path, text, timeoutMs, this.#settleMs(slot)).catch(() => "timeout" as const);
    slot.diagnosed = true;
    if (published === "timeout") return { text, before: undefined };
    const before = { text, diagnostics: published.diagnostics };
    this.#last.set(path, before);
    return { text, before };
  }

  #settleMs(slot: ServerSlot): number {
    const settleMs = this.#options.settleMs ?? 150;
    return slot.diagnosed ? settleMs : 4 * settleMs;
  }

  get #maxFileCharacters(): number {
    return this.#options.maxFileCharacters ?? 1_000_000;
  }

  /** The slot's server, started once; a server that fails to start is a sentence saying why, said once. */
  #start(slot: ServerSlot): Promise<LanguageServer | string> {
    if (this.#closed && slot.started === undefined) return Promise.resolve(closedNote);
    slot.started ??= import("./language-server.js")
      .then(({ LanguageServer }) =>
        LanguageServer.start({
          config: slot.config,
          executable: slot.executable,
          root: this.#options.root,
          timeoutMs: this.#options.startTimeoutMs ?? 20_000,
        }),
      )
      .then(
        // A server that came up after the session closed is stopped at once: close() may have looked before it existed.
        async (server) => {
          if (!this.#closed) return server;
          await server.stop();
          return closedNote;
        },
        (error: Error) =>
          `[diagnostics: the ${slot.config.name} language server could not start (${error.message}); no diagnostics for its files in this session]`,
      );
    return slot.started;
  }

  #slotFor(path: string): ServerSlot | undefined {
    const config = serverFor(
      this.#slots.map((slot) => slot.config),
      path,
    );
    return this.#slots.find((slot) => slot.config === config);
  }

  #display(path: string): string {
    return this.#options.display?.(path) ?? relative(this.#options.root, path);
  }
}

async function readText(path: string): Promise<string | undefined> {
  return readFile(path, "utf8").catch(() => undefined);
}
