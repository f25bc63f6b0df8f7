import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { McpOAuthConfig } from "../config.js";
import { createOAuthFetch } from "./create-oauth-fetch.js";
import type { McpCredentialStore, StoredMcpCredentials } from "./credential-store.js";
import { exchangeIdToken } from "./exchange-id-token.js";
import { LoopbackRedirect } from "./loopback-redirect.js";

/** What a person is shown to log in: open `url` in a browser. Rejecting gives the login up. */
export type McpAuthorizationRequest = { server: string; url: string; signal: AbortSignal };

/** Thrown when a server needs a login and nobody can do one now (`-p`, no {@link McpAuthorizationRequest} handler). */
export class McpLoginRequiredError extends Error {
  readonly server: string;
  /** Why a new login is needed, when there was one (its stored login was refused, it asks for more scope). */
  readonly reason: string | undefined;
  /** The scope one request asked for, when the login is for more access: the stored one still serves the rest. */
  readonly wantedScope: string | undefined;
  constructor(server: string, reason?: string, wantedScope?: string) {
    super(`MCP server "${server}" needs an OAuth login${reason ? ` (${reason})` : ""}`);
    this.name = "McpLoginRequiredError";
    this.server = server;
    this.reason = reason;
    this.wantedScope = wantedScope;
  }
}

/** The browser step of a login went wrong: denied, timed out, given up, or its redirect could not listen. */
class McpLoginFailedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "McpLoginFailedError";
  }
}

/** What the provider needs beside the server's config. */
export type McpOAuthProviderSettings = {
  server: string;
  url: string;
  oauth: McpOAuthConfig | undefined;
  store: McpCredentialStore;
  clientName: string;
  /** Who shows the authorization URL now; undefined when no person can log in (asked at each login). */
  authorize: () => ((request: McpAuthorizationRequest) => void | Promise<void>) | undefined;
  loginTimeoutMs: number;
  /** What gives a login's wait for the browser up (asked at each login). */
  signal: () => AbortSignal;
  /** Told when tokens or a client secret arrive, so that what is shown can hide them. */
  onSecrets: () => void;
};

/**
 * minagent's OAuth client for one MCP server, on the SDK's `auth()`: the SDK does discovery, registration, PKCE,
 * scope selection, the resource parameter, token requests and refresh; this keeps what it hands over in the
 * per-server file of {@link McpCredentialStore}, runs the browser step through a {@link LoopbackRedirect}, and
 * speaks the grants minagent supports for unattended use (client credentials, enterprise-managed jwt-bearer).
 */
export class McpOAuthProvider implements OAuthClientProvider {
  clientMetadataUrl?: string;
  addClientAuthentication?: NonNullable<OAuthClientProvider["addClientAuthentication"]>;
  /**
   * The browser login under way: its redirect listener, the code it will bring, and the PKCE verifier and state of
   * the authorization URL shown. One at a time: a request that needs a login while one is under way waits for it.
   */
  #pending: PendingLogin | undefined;
  #stored: StoredMcpCredentials;
  /** The verifier and state of the authorization URL the SDK is building, until its browser step starts. */
  #nextVerifier: string | undefined;
  #nextState: string | undefined;
  /** The verifier of the login whose code is being exchanged now. */
  #finishingVerifier: string | undefined;
  #port = 0;
  /** The scope a server asked for on a 403 (insufficient_scope) that the stored tokens lack, until a login brings it. */
  #wantedScope: string | undefined;
  /** A larger scope a login could not be done for (nobody to show it to): the next login asks for it. */
  #scopeToAsk: string | undefined;
  /**
   * A login for more scope under way, from the 403 that asked until it has ended either way: other calls refused
   * meanwhile (the SDK refuses a second 403 with the same challenge at once) wait for it, then try again.
   */
  #stepUp: { promise: Promise<void>; settle: () => void } | undefined;
  /** Every secret value seen (tokens, past ones too: a refused refresh token is quoted in what follows). */
  readonly #secrets = new Set<string>();
  /** Why the stored login went, when the authorization server refused it (for the needs-login problem). */
  #lostLogin: string | undefined;
  /** The last URL the OAuth flow asked that is not the MCP endpoint (metadata, registration, token), for messages. */
  #lastAuthorizationUrl: string | undefined;
  #preRegistered: OAuthClientInformationMixed | undefined;
  /** The file's writes, one after another: the last state saved is the one the file keeps. */
  #writing: Promise<void> = Promise.resolve();
  readonly #settings: McpOAuthProviderSettings;
  /** The fetch the server's transport makes every request with (see {@link createOAuthFetch}). */
  readonly fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;

  private constructor(settings: McpOAuthProviderSettings, stored: StoredMcpCredentials) {
    this.#settings = settings;
    this.#stored = stored;
    this.fetch = createOAuthFetch({
      endpoint: settings.url,
      currentAccessToken: () => this.#stored.tokens?.access_token as string | undefined,
      onRequest: (url, toEndpoint) => {
        this.#lastAuthorizationUrl = toEndpoint ? undefined : url;
      },
      onInsufficientScope: (scope) => {
        this.#wantedScope = scope;
        if (!this.#stepUp) {
          let settle = () => {};
          const promise = new Promise<void>((resolve) => {
            settle = resolve;
          });
          this.#stepUp = { promise, settle };
        }
      },
    });
    const oauth = settings.oauth;
    if (oauth?.clientMetadataUrl) this.clientMetadataUrl = oauth.clientMetadataUrl;
    if (oauth?.clientId)
      this.#preRegistered = {
        client_id: oauth.clientId,
        ...(oauth.clientSecret && { client_secret: oauth.clientSecret }),
        ...(oauth.issuer && { issuer: oauth.issuer }),
      } as OAuthClientInformationMixed;
  }

  /** Reads the server's stored login and picks the redirect's port (the registered one, the configured one, or a free one). */
  static async create(settings: McpOAuthProviderSettings): Promise<McpOAuthProvider> {
    const provider = new McpOAuthProvider(settings, await settings.store.load(settings.server, settings.url));
    await provider.#withPrivateKey();
    provider.#port = settings.oauth?.callbackPort ?? registeredPort(provider.#stored.clientInformation) ?? (await freePort());
    await provider.#withConfiguredMetadata();
    return provider;
  }

  /** `oauth.authServerMetadataUrl`: the document is read once, and the SDK starts from it instead of discovering. */
  async #withConfiguredMetadata(): Promise<void> {
    const url = this.#settings.oauth?.authServerMetadataUrl;
    if (!url || (this.#stored.discoveryState as { configuredFrom?: string } | undefined)?.configuredFrom === url) return;
    const response = await fetch(url, { headers: { accept: "application/json" } }).catch((error: unknown) => {
      throw new McpLoginFailedError(`the authorization server's metadata at ${url} could not be read (${messageOf(error)})`);
    });
    const metadata = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    const missing = ["issuer", "authorization_endpoint", "token_endpoint"].filter((key) => typeof metadata?.[key] !== "string");
    if (!response.ok || !metadata || missing.length > 0)
      throw new McpLoginFailedError(
        `the authorization server's metadata at ${url} is not valid (${response.ok ? `no ${missing.join(", ")}` : `HTTP ${response.status}`}): fix "oauth.authServerMetadataUrl"`,
      );
    await this.#save({
      discoveryState: { authorizationServerUrl: metadata.issuer, authorizationServerMetadata: metadata, configuredFrom: url },
    });
  }

  async #withPrivateKey(): Promise<void> {
    const oauth = this.#settings.oauth;
    if (!oauth?.privateKey || !oauth.clientId) return;
    const { createPrivateKeyJwtAuth } = await import("@modelcontextprotocol/sdk/client/auth-extensions.js");
    this.addClientAuthentication = createPrivateKeyJwtAuth({
      issuer: oauth.clientId,
      subject: oauth.clientId,
      privateKey: oauth.privateKey,
      alg: oauth.signingAlgorithm ?? "ES256",
    });
  }

  /** The grant the server's config asks for. */
  get grant(): NonNullable<McpOAuthConfig["grant"]> {
    return this.#settings.oauth?.grant ?? "authorization_code";
  }

  get redirectUrl(): string | undefined {
    // Unattended grants have no browser step: the SDK then requests the token directly.
    if (this.grant !== "authorization_code") return undefined;
    // A configured port is a pre-registered client's, registered (as Claude Code's docs say) at localhost.
    return `http://${this.#settings.oauth?.callbackPort ? "localhost" : "127.0.0.1"}:${this.#port}/callback`;
  }

  get clientMetadata(): OAuthClientMetadata {
    const redirect = this.redirectUrl;
    return {
      client_name: this.#settings.clientName,
      redirect_uris: redirect ? [redirect] : [],
      grant_types: this.grant === "authorization_code" ? ["authorization_code", "refresh_token"] : [this.#grantType()],
      response_types: this.grant === "authorization_code" ? ["code"] : [],
      ...(this.#settings.oauth?.scope && { scope: this.#settings.oauth.scope }),
    };
  }

  state(): string {
    const state = randomBytes(16).toString("base64url");
    // A second flow while a login is under way shows nothing (it waits for that login): its state is not kept.
    if (!this.#pending) this.#nextState = state;
    return state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#preRegistered ?? (this.#stored.clientInformation as OAuthClientInformationMixed | undefined);
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    // A pre-registered client's secret stays in its config: only the issuer it was first used with is learnt.
    if (this.#preRegistered && information.client_id === this.#preRegistered.client_id) {
      this.#preRegistered = information;
      return;
    }
    await this.#save({ clientInformation: information as Record<string, unknown> });
  }

  tokens(): OAuthTokens | undefined {
    const tokens = this.#stored.tokens as OAuthTokens | undefined;
    // A refresh never brings more scope than the login had (RFC 6749 §6): while a server asks for more, the SDK is
    // shown no refresh token, so that its auth() logs in again for the larger scope instead of refreshing in a loop.
    if (tokens?.refresh_token && this.#wantedScope && !coversScope(tokens.scope, this.#wantedScope)) {
      const { refresh_token: _refresh, ...withoutRefresh } = tokens;
      return withoutRefresh;
    }
    return tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.#wantedScope = undefined;
    if (this.#scopeToAsk && coversScope(tokens.scope, this.#scopeToAsk)) this.#scopeToAsk = undefined;
    this.#lostLogin = undefined;
    await this.#save({ tokens: tokens as Record<string, unknown>, tokensSavedAt: Date.now() });
  }

  saveCodeVerifier(verifier: string): void {
    if (!this.#pending) this.#nextVerifier = verifier;
  }

  codeVerifier(): string {
    const verifier = this.#finishingVerifier ?? this.#nextVerifier;
    if (!verifier) throw new Error("no login is under way (no PKCE code verifier)");
    return verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#stored.discoveryState as OAuthDiscoveryState | undefined;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.#save({ discoveryState: JSON.parse(JSON.stringify(state)) as Record<string, unknown> });
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "verifier") {
      this.#nextVerifier = undefined;
      return;
    }
    // Another process (a -p run beside a session) may have refreshed meanwhile, using up the refresh token refused
    // here: its newer tokens are on disk, and the SDK's next try refreshes with them instead of a new login.
    if (scope === "tokens") {
      const onDisk = await this.#settings.store.load(this.#settings.server, this.#settings.url);
      const refresh = (tokens: Record<string, unknown> | undefined) => tokens?.refresh_token;
      const newer = (onDisk.tokensSavedAt ?? 0) > (this.#stored.tokensSavedAt ?? 0);
      if (this.#stored.tokens && onDisk.tokens && newer && refresh(onDisk.tokens) !== refresh(this.#stored.tokens)) {
        this.#stored = { ...this.#stored, tokens: onDisk.tokens, tokensSavedAt: onDisk.tokensSavedAt };
        this.secrets();
        return;
      }
    }
    // The SDK drops tokens the authorization server refused (invalid_grant) and a registration it no longer knows.
    if (this.#stored.tokens && (scope === "all" || scope === "tokens"))
      this.#lostLogin =
        scope === "all"
          ? "the authorization server no longer knows the client its stored login was made with"
          : "its stored login was refused by the authorization server: it expired or was revoked";
    const cleared: Partial<StoredMcpCredentials> = {};
    if (scope === "all" || scope === "tokens") Object.assign(cleared, { tokens: undefined, tokensSavedAt: undefined });
    if (scope === "all" || scope === "client") cleared.clientInformation = undefined;
    if (scope === "all" || scope === "discovery") cleared.discoveryState = undefined;
    await this.#save(cleared);
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    if (this.grant === "authorization_code") return undefined;
    const parameters = new URLSearchParams({ grant_type: this.#grantType() });
    if (scope) parameters.set("scope", scope);
    if (this.grant === "jwt-bearer") {
      const provider = this.#settings.oauth?.identityProvider;
      const discovery = this.#stored.discoveryState as
        | { authorizationServerUrl?: string; authorizationServerMetadata?: { issuer?: string }; resourceMetadata?: { resource?: string } }
        | undefined;
      if (!provider) throw new Error('"oauth.grant": "jwt-bearer" needs "identityProvider"');
      parameters.set(
        "assertion",
        await exchangeIdToken(provider, {
          audience: discovery?.authorizationServerMetadata?.issuer ?? discovery?.authorizationServerUrl ?? this.#settings.url,
          resource: discovery?.resourceMetadata?.resource ?? this.#settings.url,
        }),
      );
    }
    return parameters;
  }

  /**
   * The browser step's start: listens for the redirect on 127.0.0.1 (which takes only the state sent), hands the URL
   * to whoever shows it, and returns: the SDK's request that asked then fails (UnauthorizedError), and the
   * connection waits for the browser with {@link finishPendingLogin}, outside that request's timer, so that a person
   * has `loginTimeoutMs`, not the start-up timeout. Without anybody to show it to, throws {@link McpLoginRequiredError}.
   */
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    // A login is under way (another request asked first): this request waits for that one.
    if (this.#pending) return;
    // The larger scope is this login's to ask for: after it, successful or not, the stored tokens refresh again.
    const wantedScope = unionOfScopes(this.#wantedScope, this.#scopeToAsk);
    this.#wantedScope = undefined;
    const authorize = this.#settings.authorize();
    if (!authorize) {
      this.#scopeToAsk = wantedScope;
      this.endStepUp();
      throw new McpLoginRequiredError(
        this.#settings.server,
        wantedScope ? `it asks for more access: scope "${wantedScope}"` : this.#lostLogin,
        wantedScope,
      );
    }
    const signal = this.#settings.signal();
    if (signal.aborted) {
      this.endStepUp();
      throw new McpLoginRequiredError(this.#settings.server, "the login was given up", wantedScope);
    }
    // The SDK built the URL with the scope of the request that asked; a larger one asked before is asked again here,
    // and `oauth.scopes` (Claude Code's pin) wins over what the server says.
    const pinned = this.#settings.oauth?.scopes;
    const scope = unionOfScopes(pinned ?? authorizationUrl.searchParams.get("scope") ?? undefined, wantedScope);
    if (scope) authorizationUrl.searchParams.set("scope", scope);
    let redirect: LoopbackRedirect;
    try {
      redirect = await LoopbackRedirect.listen(this.#port, this.#nextState);
    } catch (error) {
      this.endStepUp();
      throw new McpLoginFailedError(
        `the login redirect could not listen on 127.0.0.1:${this.#port} (${messageOf(error)}): free that port, or set another "oauth.callbackPort"`,
      );
    }
    const pending: PendingLogin = {
      redirect,
      received: redirect.received(this.#settings.loginTimeoutMs, signal),
      verifier: this.#nextVerifier,
      wantedScope,
      signal,
    };
    this.#pending = pending;
    try {
      await authorize({ server: this.#settings.server, url: authorizationUrl.toString(), signal });
    } catch (error) {
      this.#pending = undefined;
      this.endStepUp();
      await redirect.close();
      throw new McpLoginFailedError(messageOf(error), { cause: error });
    }
  }

  /**
   * Waits for the browser of the login under way and returns its code, with its PKCE verifier made the one the
   * SDK's exchange reads; undefined when no login is under way. Throws {@link McpLoginRequiredError} when the login
   * was given up (Esc, Ctrl-C, closing), and a failed-login error when it timed out or was refused.
   */
  async finishPendingLogin(): Promise<string | undefined> {
    const pending = this.#pending;
    if (!pending) return undefined;
    try {
      const { code } = await pending.received;
      this.#finishingVerifier = pending.verifier;
      return code;
    } catch (error) {
      if (pending.signal.aborted) throw new McpLoginRequiredError(this.#settings.server, "the login was given up", pending.wantedScope);
      throw new McpLoginFailedError(messageOf(error), { cause: error });
    } finally {
      this.#pending = undefined;
      await pending.redirect.close();
    }
  }

  /** After the code of {@link finishPendingLogin} was exchanged (or refused): its verifier is not used again. */
  loginFinished(): void {
    this.#finishingVerifier = undefined;
    this.#nextVerifier = undefined;
    this.endStepUp();
  }

  /** Resolves when the login for more scope under way has ended; undefined when none is. */
  stepUpSettled(): Promise<void> | undefined {
    return this.#stepUp?.promise;
  }

  /** Ends the wait of {@link stepUpSettled}: the login for more scope succeeded, failed, or its call gave up. */
  endStepUp(): void {
    this.#stepUp?.settle();
    this.#stepUp = undefined;
  }

  /**
   * What went wrong, in words, when `error` ended a login: the browser step failed, the authorization server
   * refused a request (an OAuth error), or answered with something that is not valid (its metadata, say; the SDK
   * throws the schema's raw issues). Undefined for an error that was not the login's.
   */
  describeFailure(error: unknown): { what: string; serversFault: boolean } | undefined {
    if (error instanceof McpLoginFailedError) return { what: error.message, serversFault: false };
    const issues = (error as { issues?: unknown }).issues;
    const url = this.#lastAuthorizationUrl;
    if (Array.isArray(issues) && url !== undefined) {
      const answer = new URL(url).pathname.includes("/.well-known/")
        ? `the authorization server's metadata at ${url}`
        : `the authorization server's answer from ${url}`;
      return { what: `${answer} is not valid: ${summarizeIssues(issues)}`, serversFault: true };
    }
    const code = (error as { errorCode?: unknown }).errorCode;
    if (typeof code === "string" && url !== undefined) {
      const description = messageOf(error);
      return {
        what: `the authorization server at ${new URL(url).origin} answered ${code}${description ? `: ${description}` : ""}`,
        serversFault: false,
      };
    }
    return undefined;
  }

  /** The values to hide wherever the server's messages are shown: tokens, the client secret. */
  secrets(): string[] {
    const tokens = this.#stored.tokens ?? {};
    const client = (this.clientInformation() ?? {}) as Record<string, unknown>;
    for (const value of [tokens.access_token, tokens.refresh_token, tokens.id_token, client.client_secret])
      if (typeof value === "string" && value !== "") this.#secrets.add(value);
    return [...this.#secrets];
  }

  /** Drops the stored tokens (keeping the registration), so that the next request logs in afresh: a new `login()`. */
  async forgetTokens(): Promise<void> {
    this.secrets();
    await this.#save({ tokens: undefined, tokensSavedAt: undefined });
  }

  /** Whether a login is stored (tokens, possibly expired: a refresh may still work). */
  get hasTokens(): boolean {
    return this.#stored.tokens !== undefined;
  }

  /** Forgets the server's login: tokens, registration and discovery. */
  async logout(): Promise<void> {
    this.#stored = { serverUrl: this.#settings.url };
    await this.#writing; // a write under way must not bring the file back
    await this.#settings.store.remove(this.#settings.server, this.#settings.url);
  }

  #grantType(): string {
    if (this.grant === "jwt-bearer") return "urn:ietf:params:oauth:grant-type:jwt-bearer";
    return this.grant;
  }

  async #save(change: Partial<StoredMcpCredentials>): Promise<void> {
    this.#stored = { ...this.#stored, ...change, serverUrl: this.#settings.url };
    const stored = this.#stored;
    const write = this.#writing.then(() => this.#settings.store.save(this.#settings.server, stored));
    this.#writing = write.catch(() => undefined);
    await write;
    this.#settings.onSecrets();
  }
}

/** A login under way: see {@link McpOAuthProvider.redirectToAuthorization}. */
type PendingLogin = {
  redirect: LoopbackRedirect;
  received: Promise<{ code: string }>;
  verifier: string | undefined;
  wantedScope: string | undefined;
  signal: AbortSignal;
};

/** Every scope of either (space-separated), once; undefined when both are empty. */
function unionOfScopes(first: string | undefined, second: string | undefined): string | undefined {
  const scopes = new Set([...(first ?? "").split(" "), ...(second ?? "").split(" ")].filter(Boolean));
  return scopes.size > 0 ? [...scopes].join(" ") : undefined;
}

/** Whether the scope granted (space-separated) holds every scope of `wanted`. */
function coversScope(granted: string | undefined, wanted: string): boolean {
  const have = new Set((granted ?? "").split(" "));
  return wanted.split(" ").every((scope) => scope === "" || have.has(scope));
}

/** A schema library's issues (zod's), short: "field: message" for each field, the first few. */
function summarizeIssues(issues: unknown[]): string {
  const byField = new Map<string, string>();
  for (const issue of issues as { path?: unknown[]; message?: string }[]) {
    const field = issue.path?.length ? issue.path.join(".") : "(the document)";
    if (!byField.has(field)) byField.set(field, issue.message ?? "invalid");
  }
  const parts = [...byField].map(([field, message]) => `${field}: ${message}`);
  return parts.length > 4 ? `${parts.slice(0, 4).join("; ")}; and ${parts.length - 4} more` : parts.join("; ");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The port of a registration's first loopback redirect URI, to log in again at the address the server knows. */
function registeredPort(information: Record<string, unknown> | undefined): number | undefined {
  const uris = information?.redirect_uris;
  if (!Array.isArray(uris) || typeof uris[0] !== "string" || !URL.canParse(uris[0])) return undefined;
  const url = new URL(uris[0]);
  return url.hostname === "127.0.0.1" && url.port ? Number(url.port) : undefined;
}

/** A port nothing listens on now, for a first registration's redirect URI. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
