import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { anthropicStream } from "../helpers/wire-bodies.js";
import { builtBin, startBuiltBin } from "./built-bin.js";

const apiKey = "sk-ant-api03-SECRET-bin-test-key-0123456789";

let server: WireServer;
beforeEach(async () => {
  // Credentials kept, to check that the key from the environment is the one sent.
  server = await startWireServer({ keepCredentials: true });
});
afterEach(() => server.close());

/** Runs `minagent …` with only `env` (plus PATH): no key or model setting of the machine leaks in. */
const runBin = (args: string[], env: Record<string, string>) => startBuiltBin(args, env).done;

describe("the built bin: minagent run", () => {
  test("runs a streamed tool loop against the local wire server: answer on stdout, tool lines and usage on stderr, exit 0", async () => {
    server.reply(
      {
        sse: anthropicStream(
          [
            { type: "text", text: "I'll compute that." },
            { type: "tool_use", id: "toolu_1", name: "calculator", input: { expression: "17 * 23" } },
          ],
          "tool_use",
          { input_tokens: 612, output_tokens: 58 },
        ),
        chunkSize: 64,
      },
      { sse: anthropicStream([{ type: "text", text: "17 × 23 = 391." }], "end_turn", { input_tokens: 689, output_tokens: 14 }) },
    );
    const outcome = await runBin(["run", "What is 17 * 23?", "--model", "anthropic:claude-haiku-4-5"], {
      ANTHROPIC_API_KEY: apiKey,
      ANTHROPIC_BASE_URL: server.url,
    });

    expect(outcome).toEqual({
      code: 0,
      stdout: "I'll compute that.\n17 × 23 = 391.\n",
      stderr: `→ calculator({"expression":"17 * 23"})
← calculator: 391
tokens: 1,301 in · 72 out · ≈ $0.00166 at list prices
`,
    });
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(first?.path).toBe("/v1/messages");
    expect(first?.headers["x-api-key"] ?? first?.headers.authorization).toContain(apiKey);
    expect(first?.body).toMatchObject({ model: "claude-haiku-4-5", stream: true });
    const sent = second?.body as { messages: { role: string; content: unknown[] }[] } | undefined;
    expect(sent?.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "391" }],
    });
  });

  test("without ANTHROPIC_API_KEY it exits 2 naming the variable, and sends nothing", async () => {
    const outcome = await runBin(["run", "hello", "--model", "anthropic:claude-haiku-4-5"], { ANTHROPIC_BASE_URL: server.url });
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toMatch(/anthropic:claude-haiku-4-5 needs an API key\. Set the ANTHROPIC_API_KEY environment variable/);
    expect(server.requests).toHaveLength(0);
  });

  test("a provider error exits 1 with the provider's message, and the key appears nowhere in the output", async () => {
    server.reply({
      status: 401,
      json: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" }, request_id: "req_bin_1" },
    });
    const outcome = await runBin(["run", "hello", "--model", "anthropic:claude-haiku-4-5", "--max-retries", "0"], {
      ANTHROPIC_API_KEY: apiKey,
      ANTHROPIC_BASE_URL: server.url,
    });
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toBe("minagent run: anthropic 401 authentication_error: invalid x-api-key [request req_bin_1]\n");
    expect(`${outcome.stdout}${outcome.stderr}`).not.toContain("SECRET");
    expect(server.requests).toHaveLength(1);
  });

  test("minagent run … | head: when the reader closes stdout early, it exits quietly with 0 and makes no more model calls", async () => {
    const turn = (text: string, id: string) => ({
      sse: anthropicStream(
        [
          { type: "text", text },
          { type: "tool_use", id, name: "calculator", input: { expression: "1 + 1" } },
        ],
        "tool_use",
      ),
    });
    server.reply(turn("Step one.", "toolu_1"), async () => {
      await new Promise((resolve) => setTimeout(resolve, 300)); // the reader is gone by now
      return turn("Step two.", "toolu_2");
    });
    server.reply({ sse: anthropicStream([{ type: "text", text: "Done." }], "end_turn") });
    if (!existsSync(builtBin)) throw new Error("dist/ is missing: npm test builds it first (or run npm run build)");
    const child = spawn(process.execPath, [builtBin, "run", "count", "--model", "anthropic:claude-haiku-4-5"], {
      env: { PATH: process.env.PATH ?? "", ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: server.url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").once("data", (text: string) => {
      stdout += text;
      child.stdout.destroy(); // what head does once it has its lines
    });
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", resolve);
    });
    expect(stdout).toMatch(/^Step one\./);
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|Error| {4}at /);
    // It stops at its first write after the close: right after "Step one." or after "Step two.", never a third call.
    expect(server.requests.length).toBeLessThanOrEqual(2);
  });
});
