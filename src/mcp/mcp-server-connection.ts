import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createSecretScrubber, type SecretScrubber, type ToolOutput, toolOutput } from "../engine.js";
import { ToolError, UsageError } from "../errors.js";
import { type McpAuthorizationRequest, McpLoginRequiredError } from "./auth/mcp-oauth-provider.js";
import { attachClientFeatures } from "./client-features.js";
import { isRemoteServer, type McpServerConfig, type ResolvedMcpServer, secretValuesOf } from "./config.js";
import { createServerTransport } from "./create-server-transport.js";
import { describeLoginNeeded, describeStartFailure, messageOf } from "./describe-start-failure.js";
import { listAllTools } from "./list-all-tools.js";
import { loadMcpSdk } from "./load-mcp-sdk.js";
import { sandboxUnavailableReason } from "./mcp-sandbox.js";
import type { McpConnectionSettings, McpProgress, McpServerState, McpToolDefinition } from "./mcp-server-types.js";
import { inheritedSecretValues } from "./server-environment.js";
import { ServerLogin } from "./server-login.js";
import { describeMcpToolResult, type McpToolResult, mcpResultImages } from "./tool-result.js";

// A login may be asked for at the start and again for more scope: more rounds than this is a server that never settles.
const maxLoginRounds = 3;

// The SDK's own per-request timer would cut a long tool call at 60 s; the tool's timeout (the registry's, through
// the call's signal) decides instead. This is the largest delay a Node timer takes.
const noSdkTimeout = 2_147_483_647;
const stderrTailLength = 2_000;

/** One MCP server: its connection, its tools, and its restarts. */
export class McpServerConnection {
  readonly name: string;
  readonly source: string;
  readonly config: McpServerConfig | undefined;
  /** The server's process runs inside the OS sandbox (its config asks for it, and the sandbox is enabled). */
  readonly sandboxed: boolean;
  /** Bumped whenever the tool list changes, so a registry can tell it is out of date without comparing lists. */
  revision = 0;
  #state: McpServerState = "starting";
  #problem: string | undefined;
  #restarts = 0;
  #tools: readonly McpToolDefinition[] = [];
  #instructions: string | undefined;
  #client: Client | undefined;
  #pid: number | undefined;
  #connecting: Promise<void> | undefined;
  #refreshing: Promise<void> | undefined;
  #stderrTail = "";
  /** The undoing of the last confinement (its placeholders), once its process has ended: a restart waits for it. */
  #releasing: Promise<void> | undefined;
  /** Hides the config's secrets (header and environment values), its OAuth tokens, and any credential it recognises. */
  #scrubber: SecretScrubber;
  /** The OAuth login of an HTTP server, kept across restarts. */
  readonly #login: ServerLogin;
  /** The transport of the running client (an HTTP one finishes logins). */
  #transport: Transport | undefined;
  readonly #settings: McpConnectionSettings;
  readonly #closing = new AbortController();
  /** False when its entry can never start (a config problem, a sandbox it needs that is off): a restart leaves it failed. */
  readonly #startable: boolean;

  constructor(server: ResolvedMcpServer, settings: McpConnectionSettings) {
    this.name = server.name;
    this.source = server.source;
    this.config = server.config;
    this.#settings = settings;
    this.#login = new ServerLogin({
      server: this.name,
      settings,
      closing: this.#closing.signal,
      onSecrets: () => {
        this.#scrubber = this.#makeScrubber();
      },
    });
    this.#scrubber = this.#makeScrubber();
    const asksForSandbox = server.config !== undefined && !isRemoteServer(server.config) && server.config.sandbox === true;
    const sandbox = settings.sandbox;
    this.sandboxed = asksForSandbox && sandbox?.status.enabled === true;
    this.#startable = server.problem === undefined && (!asksForSandbox || this.sandboxed);
    if (server.problem !== undefined) this.#fail("failed", `${server.source}: ${server.problem}`, true);
    // Fails closed: a server that asked to be confined is never started unconfined.
    else if (asksForSandbox && !this.sandboxed)
      this.#fail(
        "failed",
        `it asks for the OS sandbox ("sandbox": true in ${server.source}), which is not available: ${sandboxUnavailableReason(sandbox)}. It was not started (never unconfined); enable the sandbox, or remove "sandbox" from its entry to run it unconfined`,
      );
  }

  get state(): McpServerState {
    this.#noticeLostConnection();
    return this.#state;
  }

  /** Why the server is failed, crashed or unavailable. */
  get problem(): string | undefined {
    return this.#problem;
  }

  get restarts(): number {
    return this.#restarts;
  }

  /** The server's tools, as it last listed them (empty until it is ready). */
  get tools(): readonly McpToolDefinition[] {
    return this.#tools;
  }

  /** The process id of a stdio server that is running (what a person would `kill`), else undefined. */
  get pid(): number | undefined {
    return this.#client ? this.#pid : undefined;
  }

  /** An OAuth login is stored for this HTTP server. */
  get loggedIn(): boolean {
    return this.#login.provider?.hasTokens === true;
  }

  /** What the server says about how to use it (its `instructions`), if anything. */
  get instructions(): string | undefined {
    return this.#instructions;
  }

  /** Resolves once a tool list the server announced as changed has been fetched (at once when none is being fetched). */
  toolsListed(): Promise<void> {
    return this.#refreshing ?? Promise.resolve();
  }

  /** Starts the server; resolves when it is ready or has failed (never rejects: the failure is its state). */
  start(): Promise<void> {
    if (this.#state !== "starting" || this.#connecting) return this.#connecting ?? Promise.resolve();
    return this.#settleConnecting(this.#connect(), (error) => ["failed", this.#describeStartFailure(error)]);
  }

  /**
   * Keeps a connection under way as `#connecting` and settles the state when it ends: a login nobody could do is
   * `needs-login` whoever started it; any other failure is what `onFailure` says. Never rejects.
   */
  #settleConnecting(
    connecting: Promise<void>,
    onFailure: (error: unknown) => ["failed" | "crashed" | "unavailable", string],
  ): Promise<void> {
    this.#connecting = connecting.then(
      () => {
        this.#connecting = undefined;
      },
      (error: unknown) => {
        this.#connecting = undefined;
        if (error instanceof McpLoginRequiredError)
          this.#fail("needs-login", describeLoginNeeded(error, this.#settings.auth.loginHint(this.name)), true);
        else this.#fail(...onFailure(error));
      },
    );
    return this.#connecting;
  }

  /**
   * Logs in to the server (OAuth) and connects again: its stored tokens are dropped (its registration kept), the
   * login asks for the larger scope a call wanted if one did, `authorize` is shown the URL (it opens or prints it),
   * and this resolves once the server is ready or has failed (never rejects: the failure is its state). Throws a
   * UsageError for a server not reached over HTTP.
   */
  async login(authorize: (request: McpAuthorizationRequest) => void | Promise<void>, signal?: AbortSignal): Promise<void> {
    const config = this.config;
    if (!config || !isRemoteServer(config))
      throw new UsageError(`MCP server "${this.name}" is not reached over HTTP: there is nothing to log in to.`);
    if (this.#state === "closed") return;
    await this.#connecting;
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => undefined);
    await (await this.#login.providerFor(config)).forgetTokens();
    this.#login.begin(authorize, signal);
    this.#restarts = 0;
    this.#setState("starting");
    try {
      await this.start();
    } finally {
      this.#login.end();
    }
  }

  /** Forgets the server's stored OAuth login (tokens and registration); the next request that needs one asks again. */
  async logout(): Promise<void> {
    const config = this.config;
    if (!config || !isRemoteServer(config)) return;
    await (this.#login.provider ?? (await this.#login.providerFor(config))).logout();
  }

  /**
   * Calls one of the server's tools and returns the observation (with its images, as parts). A failure the model should read (an error result,
   * a server that stopped, a refused call) is thrown as a ToolError; an abort is rethrown as it came.
   */
  async callTool(
    toolName: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    onProgress?: (progress: McpProgress) => void,
  ): Promise<string | ToolOutput> {
    const result = await this.callToolForResult(toolName, args, signal, onProgress);
    const images = result.isError === true ? [] : mcpResultImages(result);
    const text = this.redact(describeMcpToolResult(result, { imagesAttached: images.length > 0 }));
    if (result.isError === true) throw new ToolError(text || `${toolName} reported an error without a message.`);
    // The images go to the model as images (a chart, a screenshot), beside the text.
    return images.length > 0 ? toolOutput(text, images) : text;
  }

  /**
   * Calls one of the server's tools and returns the whole result (structured content included); throws as
   * {@link callTool}. With `onProgress` the call carries a progress token, and the server's progress reaches it.
   */
  async callToolForResult(
    toolName: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    onProgress?: (progress: McpProgress) => void,
  ): Promise<McpToolResult> {
    const client = await this.#usableClient();
    const call = () =>
      client.callTool({ name: toolName, arguments: args }, undefined, {
        ...(signal && { signal }),
        ...(onProgress && { onprogress: onProgress }),
        timeout: noSdkTimeout,
      }) as Promise<McpToolResult>;
    try {
      // A server may ask for more scope on one call (403 insufficient_scope): after that login, the call runs again.
      for (let round = 1; ; round += 1) {
        try {
          return await call();
        } catch (error) {
          if (round >= maxLoginRounds || !(await this.#login.finish(error, this.#transport))) throw error;
        }
      }
    } catch (error) {
      // A login for more scope this call may have started is over with it: calls waiting for it try again now.
      this.#login.provider?.endStepUp();
      if (this.#client === client) this.#noticeLostConnection(error ?? "failed");
      if (signal?.aborted) throw error;
      if (error instanceof McpLoginRequiredError) {
        // Without its login none of the server's tools works: it shows as needs-login until login(). A login for
        // more scope concerns this call only.
        if (error.wantedScope === undefined && this.#client === client) {
          this.#client = undefined;
          await client.close().catch(() => undefined);
          this.#fail("needs-login", describeLoginNeeded(error, this.#settings.auth.loginHint(this.name)), true);
        }
        throw new ToolError(
          `MCP server "${this.name}" needs a new OAuth login for ${toolName}${error.reason ? ` (${error.reason})` : ""}: ${this.#settings.auth.loginHint(this.name)}. Tell the user.`,
        );
      }
      if (this.#client !== client)
        throw new ToolError(
          `MCP server "${this.name}" stopped while running ${toolName}${this.#problem ? ` (${this.#problem})` : ""}. It will be restarted on the next call to one of its tools; whether this call had any effect is unknown.`,
        );
      throw new ToolError(`MCP server "${this.name}" refused the call to ${toolName}: ${this.redact(messageOf(error))}`);
    }
  }

  /**
   * Stops the server if it runs and starts it again, whatever its state, with its restart count back to 0 (a
   * person's `/mcp restart` once the cause is fixed). A start under way is waited for first. Resolves when it is
   * ready or has failed (never rejects); a closed server, or one whose entry cannot start, stays as it is.
   */
  async restart(): Promise<void> {
    while (this.#connecting) await this.#connecting;
    if (this.#state === "closed" || !this.#startable) return;
    const client = this.#client;
    // Ours to stop: its close is not a crash (#connectionClosed ignores a client that is no longer #client).
    this.#client = undefined;
    this.#restarts = 0;
    this.#problem = undefined;
    this.#setState("restarting");
    const connecting = (async () => {
      await client?.close().catch(() => undefined);
      await this.#connect();
    })();
    await this.#settleConnecting(connecting, (error) => ["failed", this.#describeStartFailure(error)]);
  }

  /** Tells a connected server that the roots changed (it asks for them again); a server not connected asks when it connects. */
  async rootsChanged(): Promise<void> {
    await this.#client?.sendRootsListChanged().catch(() => undefined);
  }

  /** Stops the server (a stdio server's process is ended: its stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.#closing.abort();
    const client = this.#client;
    this.#client = undefined;
    this.#setState("closed");
    await this.#connecting;
    await client?.close().catch(() => undefined);
  }

  /**
   * Runs `use` with the server's client once it can be used: a crashed server is restarted first, as a tool call
   * restarts it. Rejects with a ToolError when the server is failed, unavailable or closed.
   */
  async withClient<T>(use: (client: Client) => Promise<T>): Promise<T> {
    return use(await this.#usableClient());
  }

  /** The text with every secret of the server's config (header and environment values) replaced by `[redacted]`. */
  redact(text: string): string {
    return this.#scrubber.text(text);
  }

  async #usableClient(): Promise<Client> {
    for (;;) {
      this.#noticeLostConnection();
      if (this.#state === "ready" && this.#client) return this.#client;
      if (this.#connecting) {
        await this.#connecting;
        continue;
      }
      if (this.#state === "crashed") {
        await this.#restart();
        continue;
      }
      const why = this.#state === "closed" ? "it was closed" : (this.#problem ?? "it is not running");
      throw new ToolError(
        `MCP server "${this.name}" is unavailable: ${why}. Its tools cannot be used now; tell the user, who can fix the server and restart it (/mcp restart ${this.name} in minagent code) or start a new session.`,
      );
    }
  }

  async #restart(): Promise<void> {
    if (this.#restarts >= this.#settings.maxRestarts) {
      this.#fail("unavailable", `it stopped ${this.#restarts + 1} times (last: ${this.#problem ?? "no reason given"})`);
      return;
    }
    this.#restarts += 1;
    this.#setState("restarting");
    await this.#settleConnecting(this.#connect(), (error) => [
      this.#restarts >= this.#settings.maxRestarts ? "unavailable" : "crashed",
      `it could not be restarted: ${this.#describeStartFailure(error)}`,
    ]);
  }

  async #connect(): Promise<void> {
    // An HTTP server that asks for a login makes the first connection fail; once logged in, it is made again.
    for (let round = 1; ; round += 1) {
      const loggedIn = await this.#connectOnce();
      if (!loggedIn) return;
      if (round >= maxLoginRounds)
        throw new Error(`it asked for a login ${round} times in a row: its authorization server does not accept the logins`);
    }
  }

  /** One connection; true when it failed for a login that has just been finished, so that it is worth making again. */
  async #connectOnce(): Promise<boolean> {
    const sdk = await loadMcpSdk();
    const config = this.config;
    if (!config) return false;
    let listedDuringStart = false;
    const client: Client = new sdk.Client(this.#settings.clientInfo, {
      capabilities: {},
      listChanged: {
        tools: {
          autoRefresh: false,
          // At once: a server announces a change before it answers the call that made it, so the list can be
          // fetched before the next turn (which waits for it) rather than a debounce later.
          debounceMs: 0,
          onChanged: () => {
            listedDuringStart = true;
            // One listing after another, so that the last announced change is the list that stays.
            const refresh: Promise<void> = (this.#refreshing ?? Promise.resolve()).then(() => this.#refreshTools(client));
            this.#refreshing = refresh;
            void refresh.finally(() => {
              if (this.#refreshing === refresh) this.#refreshing = undefined;
            });
          },
        },
      },
    });
    await attachClientFeatures(client, this.name, this.#settings.features);
    this.#stderrTail = "";
    const { transport, release } = await createServerTransport(sdk, config, {
      cwd: this.#settings.cwd,
      sandbox: this.sandboxed ? this.#settings.sandbox : undefined,
      oauthProvider: (remote) => this.#login.providerFor(remote),
      releasing: () => this.#releasing,
      onReleasing: (released) => {
        this.#releasing = released;
      },
      closing: this.#closing.signal,
      onStderr: (text) => {
        this.#stderrTail = (this.#stderrTail + text).slice(-stderrTailLength);
      },
    });
    client.onclose = () => this.#connectionClosed(client);
    const options = { timeout: this.#settings.startupTimeoutMs, signal: this.#closing.signal };
    try {
      await client.connect(transport, options);
      this.#pid = (transport as { pid?: number | null }).pid ?? undefined;
      await this.#settings.onConnected?.(this, client);
      const tools = await listAllTools(client, options);
      if (this.#closing.signal.aborted) throw new Error("closed while starting");
      this.#client = client;
      this.#instructions = client.getInstructions();
      // A change announced while starting (server-everything adds a tool once initialised) is listed after the
      // first listing was asked for: that later list is the one to keep.
      if (listedDuringStart) await this.#refreshing;
      else this.#setTools(tools);
      this.#problem = undefined;
      this.#transport = transport;
      this.#setState("ready");
      return false;
    } catch (error) {
      // A confined server's placeholders go once its process has: at its transport's close, or now if none runs.
      const running = (transport as { pid?: number | null }).pid != null;
      const loggedIn = await this.#login.finish(error, transport).catch(async (loginError: unknown) => {
        await client.close().catch(() => undefined);
        throw loginError;
      });
      await client.close().catch(() => undefined);
      if (!running) await release?.();
      if (loggedIn) return true;
      throw error;
    }
  }

  #makeScrubber(): SecretScrubber {
    // No length limit: the scrubber cuts nothing of a tool's result, which the registry bounds instead.
    return createSecretScrubber({
      secrets: [
        ...(this.config ? secretValuesOf(this.config) : []),
        // A stdio server inherits proxy and npm variables (server-environment.ts): a password in them is hidden too.
        ...(this.config && !isRemoteServer(this.config) ? inheritedSecretValues() : []),
        ...(this.#login.provider?.secrets() ?? []),
      ],
      maxPayloadLength: Number.POSITIVE_INFINITY,
    });
  }

  async #refreshTools(client: Client): Promise<void> {
    try {
      const tools = await listAllTools(client, { timeout: this.#settings.startupTimeoutMs, signal: this.#closing.signal });
      if (this.#client === client || this.#state === "starting" || this.#state === "restarting") this.#setTools(tools);
    } catch {
      // The list stays as it was; a connection that closed is reported by onclose.
    }
  }

  #setTools(tools: readonly McpToolDefinition[]): void {
    this.#tools = tools;
    this.revision += 1;
    this.#settings.onChange();
  }

  #connectionClosed(client: Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    if (this.#closing.signal.aborted) return;
    this.#fail("crashed", this.#stoppedReason());
  }

  /**
   * Marks the server crashed when its connection is gone though the SDK's close has not said so, so that the next
   * call restarts it instead of failing for ever: its client lost the transport; or, once a call has failed or
   * timed out (`failure`), the transport refused to send ("Not connected"), or the process ended while something it
   * started holds its output open (the SDK reports the end of a stdio server only once every holder of its pipes has
   * let go, which may be never). The process is looked at only then: a launcher that leaves its server running
   * and exits is not a crash while the server answers.
   */
  #noticeLostConnection(failure?: unknown): void {
    const client = this.#client;
    if (!client) return;
    const lost =
      client.transport === undefined ||
      (failure !== undefined &&
        ((failure instanceof Error && failure.message === "Not connected") || (this.#pid !== undefined && !isRunning(this.#pid))));
    if (!lost) return;
    this.#connectionClosed(client);
    // What is left (a transport still waiting for its pipes) is stopped; its late close is ignored, #client being another.
    void client.close().catch(() => undefined);
  }

  #describeStartFailure(error: unknown): string {
    return describeStartFailure(error, {
      config: this.config,
      source: this.source,
      startupTimeoutMs: this.#settings.startupTimeoutMs,
      lastOutput: this.#lastStderrLines(),
      oauth: this.#login.provider,
      loginHint: () => this.#settings.auth.loginHint(this.name),
    });
  }

  #stoppedReason(): string {
    const tail = this.#lastStderrLines();
    return `the server stopped${tail ? `; its last output: ${tail}` : ""}`;
  }

  #lastStderrLines(): string {
    return this.redact(this.#stderrTail.trim().split("\n").slice(-3).join(" | "));
  }

  /**
   * Marks the server failed, crashed or unavailable. A problem holding what the server or its transport said is
   * redacted; minagent's own words about the config (`ours`) hold neither, and the scrubber would take a hint such
   * as `${GITHUB_TOKEN:-<default>}` for a credential.
   */
  #fail(state: "failed" | "crashed" | "needs-login" | "unavailable", problem: string, ours = false): void {
    this.#problem = ours ? problem : this.redact(problem);
    this.#setState(state);
  }

  #setState(state: McpServerState): void {
    if (this.#state === "closed") return;
    this.#state = state;
    this.#settings.onChange();
  }
}

/** True while a process with this id exists (a signal 0 checks, and sends nothing). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
