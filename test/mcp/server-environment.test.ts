// What a stdio server inherits from minagent's environment: the SDK's few, plus the proxy, CA and npm variables a
// server started with npx needs behind a proxy; its own `env` wins. Checked on the list, and in a real server's
// process (the fixture writes the environment it was given), sandboxed or not.
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createSandbox } from "../../src/code/sandbox/create-sandbox.js";
import { readSandboxSettings } from "../../src/code/sandbox/sandbox-settings.js";
import { connectMcpServers, type McpSandbox } from "../../src/mcp/index.js";
import { inheritedSecretValues, serverEnvironment } from "../../src/mcp/server-environment.js";

const server = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "misbehaving-server.mjs");

describe("serverEnvironment", () => {
  it("passes the proxy, CA and npm variables on, and nothing else; the server's env wins", () => {
    const parent = {
      HTTPS_PROXY: "http://proxy:3128",
      http_proxy: "http://proxy:3128",
      NO_PROXY: "localhost,.corp",
      ALL_PROXY: "socks5://proxy:1080",
      NODE_EXTRA_CA_CERTS: "/etc/corp-ca.pem",
      SSL_CERT_FILE: "/etc/ssl/cert.pem",
      SSL_CERT_DIR: "/etc/ssl/certs",
      npm_config_registry: "https://npm.corp/",
      NPM_CONFIG_CAFILE: "/etc/corp-ca.pem",
      ANTHROPIC_API_KEY: "sk-ant-not-for-servers",
      GITHUB_TOKEN: "ghp_not_for_servers",
    };
    expect(serverEnvironment({ NO_PROXY: "", MEMORY_FILE_PATH: "/m.jsonl" }, parent)).toEqual({
      HTTPS_PROXY: "http://proxy:3128",
      http_proxy: "http://proxy:3128",
      NO_PROXY: "",
      ALL_PROXY: "socks5://proxy:1080",
      NODE_EXTRA_CA_CERTS: "/etc/corp-ca.pem",
      SSL_CERT_FILE: "/etc/ssl/cert.pem",
      SSL_CERT_DIR: "/etc/ssl/certs",
      npm_config_registry: "https://npm.corp/",
      NPM_CONFIG_CAFILE: "/etc/corp-ca.pem",
      MEMORY_FILE_PATH: "/m.jsonl",
    });
  });

  it("hides an inherited npm token and a proxy's password, not the proxy's address", () => {
    expect(
      inheritedSecretValues({
        HTTPS_PROXY: "http://ada:s3cr%40t@proxy:3128",
        HTTP_PROXY: "http://proxy:3128",
        "npm_config_//npm.corp/:_authToken": "npm_abcdef123456",
        npm_config_registry: "https://npm.corp/",
        GITHUB_TOKEN: "not inherited, so not the server's to show",
      }),
    ).toEqual(["s3cr%40t", "s3cr@t", "npm_abcdef123456"]);
  });
});

describe("a stdio server's process", () => {
  let folder: string;
  beforeEach(() => {
    folder = realpathSync(mkdtempSync(join(tmpdir(), "minagent-mcp-environment-")));
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(folder, { recursive: true, force: true });
  });

  /** The environment the fixture server was started with, once ready (confined when a sandbox is given). */
  async function environmentOfServer(own: Record<string, string>, sandbox?: McpSandbox): Promise<Record<string, string>> {
    const file = join(folder, "environment.json");
    const mcp = await connectMcpServers(
      {
        mcpServers: {
          probe: {
            command: process.execPath,
            args: [server],
            env: { MISBEHAVING_ENV_FILE: file, ...own },
            ...(sandbox && { sandbox: true }),
          },
        },
      },
      { sandbox, cwd: folder },
    );
    try {
      expect(mcp.status()[0]).toMatchObject({ state: "ready" });
      return JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
    } finally {
      await mcp.close();
    }
  }

  it("gets the proxy and CA variables of minagent's environment, under its own env", async () => {
    vi.stubEnv("HTTPS_PROXY", "http://proxy.corp:3128");
    vi.stubEnv("no_proxy", "localhost");
    vi.stubEnv("NODE_EXTRA_CA_CERTS", join(folder, "ca.pem"));
    vi.stubEnv("npm_config_registry", "https://npm.corp/");
    vi.stubEnv("MINAGENT_TEST_PRIVATE", "not for servers");
    const environment = await environmentOfServer({ no_proxy: "localhost,.corp" });
    expect(environment).toMatchObject({
      HTTPS_PROXY: "http://proxy.corp:3128",
      no_proxy: "localhost,.corp",
      NODE_EXTRA_CA_CERTS: join(folder, "ca.pem"),
      npm_config_registry: "https://npm.corp/",
      PATH: process.env.PATH,
    });
    expect(environment).not.toHaveProperty("MINAGENT_TEST_PRIVATE");
  }, 30_000);

  it("gets them inside the OS sandbox too, where the sandbox's own proxy wins", async () => {
    vi.stubEnv("NODE_EXTRA_CA_CERTS", join(folder, "ca.pem"));
    vi.stubEnv("HTTPS_PROXY", "http://proxy.corp:3128");
    vi.stubEnv("npm_config_registry", "https://npm.corp/");
    const home = homedir();
    const sandbox = await createSandbox({
      // A host allowed: the sandbox's network goes through its own proxy, whose variables are the ones that count.
      settings: await readSandboxSettings([], { root: folder, home }, { network: { allowedDomains: ["registry.npmjs.org"] } }),
      directories: [folder],
      home,
      userDirectory: join(home, ".minagent"),
    });
    try {
      const environment = await environmentOfServer({}, sandbox);
      expect(environment).toMatchObject({ NODE_EXTRA_CA_CERTS: join(folder, "ca.pem"), npm_config_registry: "https://npm.corp/" });
      expect(environment.HTTPS_PROXY).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await sandbox.close();
    }
  }, 30_000);
});
