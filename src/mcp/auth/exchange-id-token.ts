/**
 * Enterprise-managed authorization (SEP-990, "cross-app access"): the person's ID token from their identity provider
 * is exchanged there (RFC 8693 token exchange) for an identity assertion grant (ID-JAG) naming the MCP server's
 * authorization server and resource; that grant is what the jwt-bearer token request presents. Returns the grant.
 */
export async function exchangeIdToken(
  identityProvider: { tokenEndpoint: string; clientId: string; idToken: string },
  target: { audience: string; resource: string },
): Promise<string> {
  const response = await fetch(identityProvider.tokenEndpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      audience: target.audience,
      resource: target.resource,
      subject_token: identityProvider.idToken,
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      client_id: identityProvider.clientId,
    }),
  });
  const body = (await response.json().catch(() => undefined)) as
    | { access_token?: unknown; error?: unknown; error_description?: unknown }
    | undefined;
  if (!response.ok || typeof body?.access_token !== "string") {
    const why = body?.error
      ? `${String(body.error)}${body.error_description ? `: ${String(body.error_description)}` : ""}`
      : `HTTP ${response.status}`;
    throw new Error(`the identity provider at ${identityProvider.tokenEndpoint} refused the token exchange (${why})`);
  }
  return body.access_token;
}
