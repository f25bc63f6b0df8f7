// `minagent mcp list|login|logout`: the person's side of MCP servers' OAuth logins, through main with a fake io.
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mcpAuthDirectory } from "../../src/cli/code/start-mcp-servers.js";
import { main } from "../../src/cli/main.js";
import { McpCredentialStore } from "../../src/mcp/auth/credential-store.js";
import { fakeIo } from "../helpers/fake-io.js";

let folder: string;
let config: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), "minagent-mcp-command-"));
  config = join(folder, "servers.json");
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: { remote: { type: "http", url: "https://mcp.example.com/mcp" }, local: { command: "node", args: ["server.js"] } },
    }),
  );
});
afterEach(() => rm(folder, { recursive: true, force: true }));

async function mcp(...args: string[]) {
  const { io, stdout, stderr } = fakeIo({ MINAGENT_HOME: join(folder, "home") });
  const code = await main(["mcp", ...args, "--mcp-config", config, "--strict-mcp-config"], io);
  return { code, stdout: stdout(), stderr: stderr() };
}

describe("minagent mcp", () => {
  it("lists the servers, saying which have a stored login, and logout forgets one", async () => {
    expect((await mcp("list")).stdout).toBe(
      `remote  http  https://mcp.example.com/mcp  no stored login  (${config})\nlocal  stdio  node  (${config})\n`,
    );
    const store = new McpCredentialStore(mcpAuthDirectory(join(folder, "home")));
    await store.save("remote", { serverUrl: "https://mcp.example.com/mcp", tokens: { access_token: "at-1", token_type: "bearer" } });
    expect((await mcp("list")).stdout).toContain("remote  http  https://mcp.example.com/mcp  logged in");
    expect((await stat(store.fileOf("remote", "https://mcp.example.com/mcp"))).mode & 0o777).toBe(0o600);
    expect((await stat(store.directory)).mode & 0o777).toBe(0o700);

    const logout = await mcp("logout", "remote");
    expect(logout).toMatchObject({ code: 0, stdout: "Logged out of remote: its stored login is gone.\n" });
    expect((await mcp("list")).stdout).toContain("no stored login");
  });

  it.each([
    [["login", "local"], 'local is started as a program (stdio): it has no login; the credentials it needs go in its "env"'],
    [["login", "nope"], 'there is no MCP server named "nope" here (configured: remote, local)'],
    [["login"], "login needs the server's name: minagent mcp login <server>"],
    [["refresh", "remote"], 'unknown action "refresh": use list, login <server> or logout <server>'],
  ])("refuses %j with a message saying what to do (exit 2)", async (args, message) => {
    const result = await mcp(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it("--help says where logins are kept", async () => {
    const { io, stdout } = fakeIo({});
    expect(await main(["mcp", "--help"], io)).toBe(0);
    expect(stdout()).toContain("the tokens are kept in ~/.minagent/mcp-auth/, readable by you only");
  });
});
