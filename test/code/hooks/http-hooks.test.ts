import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HookRunner, type HookRunReport } from "../../../src/code/hooks/index.js";

type Received = { path: string; headers: IncomingMessage["headers"]; body: Record<string, unknown> };

let server: Server;
let base: string;
let received: Received[];
/** What the endpoint answers, by path. */
let answers: Record<string, (response: ServerResponse) => void>;

beforeEach(async () => {
  received = [];
  answers = {};
  server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => {
      text += chunk;
    });
    request.on("end", () => {
      received.push({ path: request.url ?? "", headers: request.headers, body: JSON.parse(text) });
      const answer = answers[request.url ?? ""];
      if (answer) answer(response);
      else response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const json =
  (value: unknown, status = 200) =>
  (response: ServerResponse) => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(value));
  };
const call = { id: "toolu_1", name: "Bash", arguments: { command: "psql -c 'drop table invoices'" } };

describe("http hooks", () => {
  it("POST the input as JSON and read a 2xx body as a command's JSON output", async () => {
    answers["/hooks/pre-tool-use"] = json({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "Database writes need a ticket.",
      },
    });
    const runner = new HookRunner({
      sessionId: "session-42",
      cwd: "/work/app",
      settingsFiles: [
        {
          path: "/work/app/.claude/settings.json",
          settings: {
            hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "http", url: `${base}/hooks/pre-tool-use`, timeout: 5 }] }] },
          },
        },
      ],
    });

    const outcome = await runner.runPreToolUseHooks(call);

    expect(outcome).toMatchObject({ decision: "deny", reason: "A PreToolUse hook blocked this call: Database writes need a ticket." });
    expect(received).toHaveLength(1);
    expect(received[0]?.headers["content-type"]).toBe("application/json");
    expect(received[0]?.body).toEqual({
      hook_event_name: "PreToolUse",
      session_id: "session-42",
      cwd: "/work/app",
      tool_name: "Bash",
      tool_input: { command: "psql -c 'drop table invoices'" },
      tool_use_id: "toolu_1",
    });
  });

  it("headers take only the environment variables allowedEnvVars lists", async () => {
    const runner = new HookRunner({
      sessionId: "s",
      cwd: "/work/app",
      env: { AUDIT_TOKEN: "tok-123", ANTHROPIC_API_KEY: "sk-ant-secret" },
      hooks: {
        UserPromptSubmit: [
          {
            hooks: [
              {
                type: "http",
                url: `${base}/audit`,
                headers: { Authorization: "Bearer $AUDIT_TOKEN", "X-Extra": `\${ANTHROPIC_API_KEY}-end` },
                allowedEnvVars: ["AUDIT_TOKEN"],
              },
            ],
          },
        ],
      },
    });
    expect(await runner.runUserPromptSubmitHooks("Summarise the open invoices.")).toEqual({ input: "Summarise the open invoices." });
    expect(received[0]?.headers.authorization).toBe("Bearer tok-123");
    expect(received[0]?.headers["x-extra"]).toBe("-end");
  });

  it("a non-2xx status, a body that is not a JSON object, or no server is a failure: a guard denies, others go on", async () => {
    const reports: HookRunReport[] = [];
    answers["/down"] = json({ error: "maintenance" }, 503);
    answers["/text"] = (response) => response.end("allow");
    const closed = `http://127.0.0.1:${await unusedPort()}/gone`;
    const make = (url: string) =>
      new HookRunner({
        sessionId: "s",
        cwd: "/",
        hooks: {
          PreToolUse: [{ hooks: [{ type: "http", url }] }],
          UserPromptSubmit: [{ hooks: [{ type: "http", url }] }],
        },
        onHookRun: (report) => reports.push(report),
      });
    for (const [url, why] of [
      [`${base}/down`, "it answered HTTP 503"],
      [`${base}/text`, "its response body is not a JSON object"],
      [closed, "the request failed: ECONNREFUSED"],
    ] as const) {
      const runner = make(url);
      expect(await runner.runPreToolUseHooks(call)).toMatchObject({
        decision: "deny",
        reason: `A PreToolUse hook blocked this call: PreToolUse hook #1 failed: ${why}.`,
      });
      expect(await runner.runUserPromptSubmitHooks("hello")).toEqual({ input: "hello" });
    }
    // The host is told, by URL without its query (it may hold a token).
    expect(reports[0]).toMatchObject({ hook: `POST ${base}/down`, outcome: "failed" });
  });

  it("a timeout is a failure", async () => {
    answers["/slow"] = (response) => setTimeout(() => json({})(response), 2_000);
    const runner = new HookRunner({
      sessionId: "s",
      cwd: "/",
      hooks: { PreToolUse: [{ hooks: [{ type: "http", url: `${base}/slow`, timeout: 0.2 }] }] },
    });
    expect((await runner.runPreToolUseHooks(call)).reason).toMatch(/PreToolUse hook #1 failed: it timed out after 0\.2 s/);
  });
});

async function unusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
