// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are .mcp.json placeholders, not templates.
import { describe, expect, it } from "vitest";
import { secretValuesOf } from "../../src/mcp/config.js";
import { resolveMcpConfig } from "../../src/mcp/index.js";

const resolveOne = (entry: unknown, variables: Record<string, string> = {}) =>
  resolveMcpConfig({ mcpServers: { remote: entry } }, ".mcp.json", variables)[0];

describe("a server's oauth entry", () => {
  it("is read with its ${VAR}s expanded, and its secrets are hidden like header values", () => {
    const server = resolveOne(
      {
        type: "http",
        url: "https://mcp.example.com/mcp",
        oauth: { clientId: "minagent-cli", clientSecret: "${MCP_SECRET}", callbackPort: 8765, scope: "read write" },
      },
      { MCP_SECRET: "s3cret-value-long" },
    );
    expect(server?.config).toEqual({
      type: "http",
      url: "https://mcp.example.com/mcp",
      oauth: { clientId: "minagent-cli", clientSecret: "s3cret-value-long", callbackPort: 8765, scope: "read write" },
    });
    expect(secretValuesOf(server?.config as never)).toContain("s3cret-value-long");
  });

  it("reads the unattended grants: client credentials (secret or private key) and enterprise-managed jwt-bearer", () => {
    expect(
      resolveOne(
        { type: "http", url: "https://x/mcp", oauth: { grant: "client_credentials", clientId: "ci", privateKey: "${KEY}" } },
        { KEY: "pem" },
      )?.config,
    ).toMatchObject({
      oauth: { grant: "client_credentials", clientId: "ci", privateKey: "pem" },
    });
    const enterprise = resolveOne(
      {
        type: "http",
        url: "https://x/mcp",
        oauth: {
          grant: "jwt-bearer",
          clientId: "app",
          identityProvider: { tokenEndpoint: "https://idp/token", clientId: "idp-app", idToken: "${ID_TOKEN}" },
        },
      },
      { ID_TOKEN: "eyJ.id.token" },
    );
    expect(enterprise?.config).toMatchObject({ oauth: { identityProvider: { idToken: "eyJ.id.token" } } });
    expect(secretValuesOf(enterprise?.config as never)).toContain("eyJ.id.token");
  });

  it.each([
    [{ clientID: "x" }, "keys minagent does not know: clientID"],
    [
      { authServerMetadataUrl: "http://as.example.com/.well-known/oauth-authorization-server" },
      '"oauth.authServerMetadataUrl" must be an https:// URL',
    ],
    [{ callbackPort: 70_000 }, '"oauth.callbackPort" must be a port number'],
    [{ grant: "password" }, '"oauth.grant" must be one of authorization_code, client_credentials, jwt-bearer'],
    [{ grant: "client_credentials", clientId: "ci" }, 'needs "clientId" and "clientSecret" (or "privateKey")'],
    [{ grant: "jwt-bearer", clientId: "app" }, 'needs "clientId" and "identityProvider"'],
    ["yes", '"oauth" must be an object'],
  ])("a malformed entry (%j) is that server's problem, saying what to write", (oauth, message) => {
    const server = resolveOne({ type: "http", url: "https://x/mcp", oauth });
    expect(server?.config).toBeUndefined();
    expect(server?.problem).toContain(message);
  });

  it("takes Claude Code's keys: clientId, callbackPort, scopes and authServerMetadataUrl", () => {
    const oauth = { clientId: "cc", callbackPort: 8080, scopes: "read write", authServerMetadataUrl: "https://as.example.com/meta" };
    expect(resolveOne({ type: "http", url: "https://x/mcp", oauth })?.config).toEqual({ type: "http", url: "https://x/mcp", oauth });
  });

  it("an unset variable in it names the field", () => {
    expect(resolveOne({ type: "http", url: "https://x/mcp", oauth: { clientSecret: "${NOPE}" } })?.problem).toBe(
      "${NOPE} in oauth.clientSecret is not set: set NOPE in the environment, or write ${NOPE:-<default>}",
    );
  });
});
