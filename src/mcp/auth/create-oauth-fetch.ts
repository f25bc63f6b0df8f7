/** What the fetch of {@link createOAuthFetch} reports to, and asks, the OAuth client. */
export type OAuthFetchHooks = {
  /** The MCP endpoint's url: requests to anything else are the OAuth flow's (metadata, registration, tokens). */
  endpoint: string;
  /** The access token stored now, to tell a request sent with an older one. */
  currentAccessToken: () => string | undefined;
  /** Told of every request, before it is sent. */
  onRequest?: ((url: string, toEndpoint: boolean) => void) | undefined;
  /** The endpoint answered 403 insufficient_scope, asking for `scope`. */
  onInsufficientScope?: ((scope: string) => void) | undefined;
};

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * The fetch an MCP server's transport makes every request with (the endpoint's and the OAuth flow's). It makes
 * requests that run at once safe with authorization servers that rotate refresh tokens (each is used once), which
 * the SDK's auth() is not on its own: two requests that meet an expired token each refresh it, and the second is
 * refused (invalid_grant), or the transport takes the second 401 for a login that did not work.
 * - A refresh token request made while the same one is under way, or shortly after it succeeded, shares its
 *   answer instead of being sent again.
 * - An endpoint request answered 401 after it was sent with a token that has since been replaced (another request
 *   refreshed it) is sent again once with the new one.
 */
export function createOAuthFetch(hooks: OAuthFetchHooks): Fetch {
  const refreshes = new Map<string, Promise<Response>>();
  let refreshing: Promise<unknown> = Promise.resolve();
  const endpoint = new URL(hooks.endpoint).href;
  return async (url, init) => {
    const href = String(url);
    const toEndpoint = href === endpoint;
    hooks.onRequest?.(href, toEndpoint);
    const body = init?.body;
    if (!toEndpoint && body instanceof URLSearchParams && body.get("grant_type") === "refresh_token") {
      const key = `${href} ${body}`;
      let shared = refreshes.get(key);
      if (!shared) {
        const answer = fetch(url, init);
        shared = answer;
        refreshes.set(key, answer);
        refreshing = answer.catch(() => undefined);
        // A successful answer is kept a while: a request that read the old refresh token before the new one was
        // saved gets the same answer instead of a refusal (the server rotated it). A refusal is not kept.
        const forget = () => refreshes.delete(key);
        answer.then((response) => (response.ok ? setTimeout(forget, 30_000).unref() : forget()), forget);
      }
      return (await shared).clone();
    }
    const response = await fetch(url, init);
    if (toEndpoint && response.status === 401) {
      await refreshing;
      const sent = new Headers(init?.headers).get("authorization");
      const current = hooks.currentAccessToken();
      if (current && sent !== `Bearer ${current}`) {
        await response.body?.cancel();
        const headers = new Headers(init?.headers);
        headers.set("authorization", `Bearer ${current}`);
        return fetch(url, { ...init, headers });
      }
    }
    if (toEndpoint && response.status === 403) {
      const challenge = response.headers.get("www-authenticate") ?? "";
      const scope = /\bscope="([^"]*)"/.exec(challenge)?.[1];
      if (/\berror="insufficient_scope"/.test(challenge) && scope) hooks.onInsufficientScope?.(scope);
    }
    return response;
  };
}
