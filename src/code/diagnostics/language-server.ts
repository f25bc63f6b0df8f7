import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { MessageConnection } from "vscode-jsonrpc/node";
import type { Diagnostic, PublishDiagnosticsParams } from "vscode-languageserver-protocol";
import type { LanguageServerConfig } from "./language-server-settings.js";

/** What a file's diagnostics wait ends with: the server's list, or `timeout` when none came in time. */
export type PublishedDiagnostics = { diagnostics: Diagnostic[] } | "timeout";

/** Most characters of the server's stderr kept, to say why it failed to start. */
const stderrTail = 2_000;

/**
 * One language server process over stdio (vscode-jsonrpc): started and initialized with the workspace root, told
 * of files with `didOpen`, and listened to for `textDocument/publishDiagnostics`. Its own process group, so that
 * {@link stop} ends the helpers it starts too (typescript-language-server runs tsserver); the server is also given
 * our pid (`processId`), so it exits by itself if this process dies without stopping it.
 */
export class LanguageServer {
  readonly config: LanguageServerConfig;
  readonly #child: ChildProcess;
  readonly #connection: MessageConnection;
  /** The version of the last text sent: versions only grow, whatever the file. */
  #version = 0;
  /** The longest time seen between two publishes for one file in one diagnosis: how long this server's steps take. */
  #largestStepMs = 0;
  readonly #waiters = new Map<string, (params: PublishDiagnosticsParams) => void>();
  #exited: Promise<void>;
  #stderr = "";
  #running = true;

  private constructor(config: LanguageServerConfig, child: ChildProcess, connection: MessageConnection) {
    this.config = config;
    this.#child = child;
    this.#connection = connection;
    this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
    void this.#exited.then(() => {
      this.#running = false;
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-stderrTail);
    });
  }

  /** The server's process id (tests check that it is gone after {@link stop}). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** False once the process has exited. */
  get running(): boolean {
    return this.#running;
  }

  /**
   * Starts `executable` (the config's command resolved) in `root` and initializes it. Rejects, with the end of its
   * stderr, when it cannot be started or does not answer the initialize request within `timeoutMs`.
   */
  static async start(options: {
    config: LanguageServerConfig;
    executable: string;
    root: string;
    timeoutMs: number;
  }): Promise<LanguageServer> {
    // Loaded on first need: `import "minagent/code"` does not pay for the LSP libraries.
    const [rpc, protocol] = await Promise.all([import("vscode-jsonrpc/node"), import("vscode-languageserver-protocol")]);
    const { config, executable, root } = options;
    const child = spawn(executable, config.command.slice(1), {
      cwd: root,
      env: { ...process.env, ...config.env },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    const connection = rpc.createMessageConnection(
      new rpc.StreamMessageReader(child.stdout as NodeJS.ReadableStream),
      new rpc.StreamMessageWriter(child.stdin as NodeJS.WritableStream),
    );
    const server = new LanguageServer(config, child, connection);
    const failed = new Promise<never>((_, reject) => {
      child.once("error", (error) => reject(error));
      child.once("exit", (code) => reject(new Error(`exited with code ${code}${server.#stderrNote()}`)));
    });
    failed.catch(() => {});
    connection.onNotification(protocol.PublishDiagnosticsNotification.type, (params) => server.#published(params));
    // Requests a client must answer: configuration (none of ours), progress tokens, capability registrations.
    connection.onRequest((method, params) =>
      method === "workspace/configuration" ? ((params as { items?: unknown[] }).items ?? []).map(() => null) : null,
    );
    connection.onNotification(() => {});
    connection.listen();
    const uri = pathToFileURL(root).href;
    const initialize = connection.sendRequest(protocol.InitializeRequest.type, {
      processId: process.pid,
      rootUri: uri,
      workspaceFolders: [{ uri, name: root }],
      initializationOptions: config.initializationOptions,
      capabilities: { textDocument: { publishDiagnostics: { relatedInformation: false } }, workspace: { configuration: true } },
    });
    try {
      await Promise.race([initialize, failed, rejectAfter(options.timeoutMs, "did not answer the initialize request")]);
    } catch (error) {
      await server.stop();
      throw error;
    }
    connection.sendNotification(protocol.InitializedNotification.type, {});
    return server;
  }

  /**
   * The server's diagnostics for a file with this text: opened with it, its publishes for the file gathered until none
   * has come for `settleMs` (or twice the longest gap this server has shown between its steps, up to 1 s), then closed
   * again. The last publish wins: a server may publish in steps, and typescript-language-server does — the syntax
   * errors first (often an empty list), the type errors when its check ends, tens of milliseconds later or more on a
   * busy machine. Taking the first publish would miss the type errors and leave them to be taken, late, as the next
   * file's answer. Open and close rather than `didChange` on a file kept open: some servers publish nothing when a
   * clean file stays clean (typescript-language-server does so), which a wait could not tell from a slow answer, while
   * every server publishes after an open; and a server that re-checks every open file on each change
   * (typescript-language-server again) has one file to check. The publish the close causes (an empty list) is let
   * through before this returns (a request round trip), so that the next wait does not take it for its answer.
   */
  async diagnose(path: string, text: string, timeoutMs: number, settleMs: number): Promise<PublishedDiagnostics> {
    if (!this.#running) throw new Error(`the ${this.config.name} language server has stopped${this.#stderrNote()}`);
    const uri = pathToFileURL(path).href;
    const published = new Promise<PublishedDiagnostics>((resolve) => {
      let latest: Diagnostic[] | undefined;
      let settle: NodeJS.Timeout | undefined;
      const finish = () => {
        clearTimeout(deadline);
        clearTimeout(settle);
        this.#waiters.delete(path);
        resolve(latest === undefined ? "timeout" : { diagnostics: latest });
      };
      // The time limit bounds the whole wait, a server that never stops publishing too: its latest list is taken.
      const deadline = setTimeout(finish, timeoutMs);
      // A wait never holds the process open (a background diagnosis when the program ends).
      deadline.unref();
      let previousAt: number | undefined;
      this.#waiters.set(path, (params) => {
        const now = performance.now();
        if (previousAt !== undefined) this.#largestStepMs = Math.max(this.#largestStepMs, now - previousAt);
        previousAt = now;
        latest = params.diagnostics;
        clearTimeout(settle);
        // A server seen to take longer between its steps (a slow machine) is waited for longer, up to a second.
        settle = setTimeout(finish, Math.max(settleMs, Math.min(2 * this.#largestStepMs, 1_000)));
        settle.unref();
      });
    });
    const languageId = this.config.extensions[extensionOf(path)] ?? this.config.name;
    await this.#connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId, version: ++this.#version, text } });
    const result = await published;
    await this.#connection.sendNotification("textDocument/didClose", { textDocument: { uri } });
    await this.#barrier();
    return result;
  }

  /** Ends the server: `shutdown` and `exit` as LSP asks, then its process group is killed if it has not exited. */
  async stop(): Promise<void> {
    if (this.#running) {
      // The connection may be closed already: a closed one throws as soon as it is called.
      await Promise.race([(async () => this.#connection.sendRequest("shutdown"))().catch(() => {}), delay(1_000)]);
      await (async () => this.#connection.sendNotification("exit"))().catch(() => {});
      await Promise.race([this.#exited, delay(1_000)]);
    }
    this.#connection.dispose();
    const pid = this.#child.pid;
    // The group: helpers the server started (tsserver) go too, even when the server itself exited.
    if (pid !== undefined)
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    await Promise.race([this.#exited, delay(1_000)]);
  }

  /** A request no server has: answered (with an error) once the server has handled every message sent before it. */
  async #barrier(): Promise<void> {
    await Promise.race([(async () => this.#connection.sendRequest("minagent/barrier"))().catch(() => {}), delay(500)]);
  }

  #published(params: PublishDiagnosticsParams): void {
    // Servers spell URIs their own way (encoded characters, drive letters): compare paths.
    const path = pathOf(params.uri);
    if (path !== undefined) this.#waiters.get(path)?.(params);
  }

  #stderrNote(): string {
    const text = this.#stderr.trim();
    return text === "" ? "" : `: ${text.split("\n").slice(-5).join(" ").slice(-500)}`;
  }
}

function pathOf(uri: string): string | undefined {
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

function extensionOf(path: string): string {
  const dot = path.lastIndexOf(".");
  return dot < path.lastIndexOf("/") ? "" : path.slice(dot).toLowerCase();
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function rejectAfter(ms: number, what: string): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms).unref());
}
