// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are .mcp.json ${VAR} references, not templates.
// The conformance suite's client scenarios through minagent/mcp's public API, as a program using minagent would:
// a `.mcp.json`-shaped config (secrets through ${VAR}s), connectMcpServers, the servers' tools called by name. The
// stand-ins are the person and their browser: a form a server asks for is accepted as it is shown (its fields left at
// their defaults, which the client fills in), and onAuthorizationUrl follows the login's URL, as a browser would; the
// suite's authorization server sends it straight back to minagent's redirect listener on 127.0.0.1.
// Run by run-conformance.mjs as `minagent-client.mjs <server url>` (MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_CONTEXT).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectMcpServers } from "minagent/mcp";
import { scenarioContext, toolArguments } from "./scenario-context.mjs";

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = scenarioContext();
const variables = {
  CLIENT_SECRET: context.client_secret,
  PRIVATE_KEY: context.private_key_pem,
  ID_TOKEN: context.idp_id_token,
};

/** The server's `oauth` entry, as a person would write it for the kind of login the scenario's server wants. */
function oauthConfig() {
  if (scenario === "auth/pre-registration") return { clientId: context.client_id, clientSecret: "${CLIENT_SECRET}" };
  if (scenario === "auth/client-credentials-basic")
    return { grant: "client_credentials", clientId: context.client_id, clientSecret: "${CLIENT_SECRET}" };
  if (scenario === "auth/client-credentials-jwt")
    return {
      grant: "client_credentials",
      clientId: context.client_id,
      privateKey: "${PRIVATE_KEY}",
      ...(context.signing_algorithm && { signingAlgorithm: context.signing_algorithm }),
    };
  if (scenario === "auth/cross-app-access-complete-flow")
    return {
      grant: "jwt-bearer",
      clientId: context.client_id,
      clientSecret: "${CLIENT_SECRET}",
      identityProvider: { tokenEndpoint: context.idp_token_endpoint, clientId: context.idp_client_id, idToken: "${ID_TOKEN}" },
    };
  // A URL as client id, where the authorization server takes one; dynamic registration otherwise.
  return { clientMetadataUrl: "https://conformance-test.local/client-metadata.json" };
}

/** The person's browser: opens the login page, which the suite's authorization server answers with a redirect. */
async function browser({ url: authorizationUrl }) {
  const page = await fetch(authorizationUrl, { redirect: "manual" });
  const location = page.headers.get("location");
  if (!location) throw new Error(`the authorization server answered the login page with ${page.status} and no redirect`);
  await fetch(location);
}

async function main() {
  const directory = await mkdtemp(join(tmpdir(), "minagent-conformance-"));
  const mcp = await connectMcpServers(
    { mcpServers: { conformance: { type: "http", url, oauth: oauthConfig() } } },
    { variables, auth: { directory, onAuthorizationUrl: browser }, elicit: async () => ({ action: "accept", content: {} }) },
  );
  try {
    const [status] = mcp.status();
    if (status.state !== "ready") throw new Error(`the server is ${status.state}: ${status.problem}`);
    for (const tool of mcp.tools()) {
      const result = await mcp.callTool("conformance", tool.mcpName, toolArguments({ inputSchema: tool.parameters }));
      if (result.isError) throw new Error(`${tool.mcpName} answered with an error: ${JSON.stringify(result.content)}`);
    }
  } finally {
    await mcp.close();
    await rm(directory, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
