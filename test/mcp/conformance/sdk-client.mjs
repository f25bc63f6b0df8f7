// The conformance suite's client scenarios on the MCP SDK alone, with nothing of minagent: the baseline that runs
// beside minagent's adapter (minagent-client.mjs), so that a scenario failing for both points at the suite or the
// SDK, and one failing for minagent alone points at minagent. Run by run-conformance.mjs, which the suite calls as
// `sdk-client.mjs <server url>` with the scenario in MCP_CONFORMANCE_SCENARIO and its data in MCP_CONFORMANCE_CONTEXT.

import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { scenarioContext, toolArguments } from "./scenario-context.mjs";

const serverUrl = new URL(process.argv[2]);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = scenarioContext();
const redirectUrl = "http://127.0.0.1:9/callback"; // never listened on: the stand-in browser reads the code off the redirect

/** An OAuth client that keeps everything in memory and plays the browser: it follows the authorization URL itself. */
class InMemoryOAuthProvider {
  clientMetadataUrl = "https://conformance-test.local/client-metadata.json";
  #client;
  #tokens;
  #verifier;
  code;
  constructor(client) {
    this.#client = client;
  }
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata() {
    return { client_name: "sdk-baseline", redirect_uris: [redirectUrl] };
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(client) {
    this.#client = client;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens) {
    this.#tokens = tokens;
  }
  saveCodeVerifier(verifier) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
  async redirectToAuthorization(url) {
    const response = await fetch(url, { redirect: "manual" });
    const location = response.headers.get("location");
    this.code = location ? (new URL(location).searchParams.get("code") ?? undefined) : undefined;
  }
}

function authProvider() {
  if (scenario === "auth/client-credentials-basic")
    return new ClientCredentialsProvider({
      clientId: context.client_id,
      clientSecret: context.client_secret,
      expectedIssuer: context.issuer,
    });
  if (scenario === "auth/client-credentials-jwt")
    return new PrivateKeyJwtProvider({
      clientId: context.client_id,
      privateKey: context.private_key_pem,
      algorithm: context.signing_algorithm ?? "ES256",
      expectedIssuer: context.issuer,
    });
  if (scenario === "auth/pre-registration")
    return new InMemoryOAuthProvider({ client_id: context.client_id, client_secret: context.client_secret });
  if (scenario.startsWith("auth/")) return new InMemoryOAuthProvider(undefined);
  return undefined;
}

/** Runs one step; when the server asks for a login (at the start, or for more scope later), logs in and runs it again. */
async function withLogin(transport, provider, step) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await step();
    } catch (error) {
      if (!(error instanceof UnauthorizedError) || !provider?.code || attempt >= 3) throw error;
      const code = provider.code;
      provider.code = undefined;
      await transport.finishAuth(code);
    }
  }
}

async function crossAppAccessToken() {
  const resource = await (await fetch(new URL("/.well-known/oauth-protected-resource/mcp", serverUrl))).json();
  const metadata = await (await fetch(new URL("/.well-known/oauth-authorization-server", resource.authorization_servers[0]))).json();
  const exchange = await fetch(context.idp_token_endpoint, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      audience: metadata.issuer,
      resource: resource.resource,
      subject_token: context.idp_id_token,
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      client_id: context.idp_client_id,
    }),
  });
  const grant = await exchange.json();
  const token = await fetch(metadata.token_endpoint, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${context.client_id}:${context.client_secret}`).toString("base64")}` },
    body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: grant.access_token }),
  });
  return (await token.json()).access_token;
}

async function main() {
  const provider = authProvider();
  const headers = scenario === "auth/cross-app-access-complete-flow" ? { authorization: `Bearer ${await crossAppAccessToken()}` } : {};
  const client = new Client(
    { name: "sdk-baseline", version: "1.0.0" },
    { capabilities: { elicitation: { form: { applyDefaults: true } } } },
  );
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: {} }));
  let transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, requestInit: { headers } });
  for (let attempt = 0; ; attempt += 1) {
    try {
      await client.connect(transport);
      break;
    } catch (error) {
      if (!(error instanceof UnauthorizedError) || !provider?.code || attempt >= 3) throw error;
      const code = provider.code;
      provider.code = undefined;
      await transport.finishAuth(code);
      transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, requestInit: { headers } });
    }
  }
  const { tools } = await withLogin(transport, provider, () => client.listTools());
  for (const tool of tools)
    await withLogin(transport, provider, () => client.callTool({ name: tool.name, arguments: toolArguments(tool) }));
  await client.close();
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
