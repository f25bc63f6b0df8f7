import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type McpAuthorizationRequest, McpOAuthProvider } from "./auth/mcp-oauth-provider.js";
import type { McpRemoteServerConfig } from "./config.js";
import { loadMcpSdk } from "./load-mcp-sdk.js";
import type { McpConnectionSettings } from "./mcp-server-types.js";

/** What {@link ServerLogin} needs of its server's connection. */
export type ServerLoginOptions = {
  server: string;
  settings: McpConnectionSettings;
  /** Aborted when the connection is closed: a login under way is given up with it. */
  closing: AbortSignal;
  /** Told when the provider holds new secrets (tokens, a client secret), so that they are hidden too. */
  onSecrets: () => void;
};

/**
 * An HTTP server's OAuth login, kept across its restarts: the provider, who shows a login's URL while the
 * connection's `login()` is under way, and the browser step that every request needing it waits for.
 */
export class ServerLogin {
  /** The OAuth client of an HTTP server, made at its first connection and kept across restarts. */
  #provider: McpOAuthProvider | undefined;
  /** Who shows a login's URL for a `login()` under way, over the settings' own. */
  #handler: ((request: McpAuthorizationRequest) => void | Promise<void>) | undefined;
  /** What gives up the `login()` under way (with the connection's closing). */
  #signal: AbortSignal | undefined;
  /** The wait for a browser login and its exchange, shared by every request that needs it. */
  #finishing: Promise<boolean> | undefined;
  readonly #options: ServerLoginOptions;

  constructor(options: ServerLoginOptions) {
    this.#options = options;
  }

  /** The OAuth client, once {@link providerFor} has made it. */
  get provider(): McpOAuthProvider | undefined {
    return this.#provider;
  }

  /** The OAuth client of an HTTP server (its stored login read once). */
  async providerFor(config: McpRemoteServerConfig): Promise<McpOAuthProvider> {
    const { server, settings, closing, onSecrets } = this.#options;
    this.#provider ??= await McpOAuthProvider.create({
      server,
      url: config.url,
      oauth: config.oauth,
      store: settings.auth.store,
      clientName: settings.clientInfo.name,
      authorize: () => this.#handler ?? settings.auth.authorize,
      loginTimeoutMs: settings.auth.loginTimeoutMs,
      signal: () => this.#signal ?? closing,
      onSecrets,
    });
    return this.#provider;
  }

  /** Until {@link end}: a login's URL is shown through `authorize`, and `signal` gives the login up. */
  begin(authorize: (request: McpAuthorizationRequest) => void | Promise<void>, signal: AbortSignal | undefined): void {
    this.#handler = authorize;
    this.#signal = signal ? AbortSignal.any([signal, this.#options.closing]) : undefined;
  }

  end(): void {
    this.#handler = undefined;
    this.#signal = undefined;
  }

  /**
   * After a request failed: when it failed because the server wanted a login whose browser step has started, waits
   * for the browser (up to the login timeout, outside the request's own timer), exchanges the code for tokens through
   * the transport, and says true, so that the request is made again. Requests that fail meanwhile wait for the same
   * login. Throws what ended a login that did not finish (given up, timed out, refused).
   */
  async finish(error: unknown, transport: Transport | undefined): Promise<boolean> {
    const sdk = await loadMcpSdk();
    const oauth = this.#provider;
    if (!oauth || !transport || !("finishAuth" in transport)) return false;
    if (!(error instanceof sdk.UnauthorizedError)) {
      // A 403 for more scope while another call's login for it is under way: the SDK refuses it at once; once that
      // login has ended, the call is worth making again.
      const stepUp = (error as { code?: unknown }).code === 403 ? oauth.stepUpSettled() : undefined;
      if (!stepUp) return false;
      await stepUp;
      return true;
    }
    this.#finishing ??= (async () => {
      try {
        const code = await oauth.finishPendingLogin();
        if (code === undefined) return false;
        await (transport as { finishAuth(code: string): Promise<void> }).finishAuth(code);
        return true;
      } finally {
        oauth.loginFinished();
        this.#finishing = undefined;
      }
    })();
    return this.#finishing;
  }
}
