import { readFileSync } from "node:fs";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { anthropicStream } from "../helpers/wire-bodies.js";

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2025-06-01T12:03:09Z"));
});
afterEach(async () => {
  vi.useRealTimers();
  await server.close();
});

/** The session shown in docs/providers.md: the real CLI against the local wire server, stdout and stderr as a terminal shows them. */
async function exampleSession(): Promise<string> {
  server.reply(
    {
      sse: anthropicStream(
        [
          { type: "text", text: "I'll work that out with the calculator and check the time." },
          { type: "tool_use", id: "toolu_01", name: "calculator", input: { expression: "(17 * 23) / 4" } },
          { type: "tool_use", id: "toolu_02", name: "current_time", input: { timeZone: "Europe/Paris" } },
        ],
        "tool_use",
        { input_tokens: 1184, output_tokens: 121 },
      ),
    },
    // The second reply reads the tool results the CLI sent back, as the real model would.
    (request) => {
      const blocks = (request.body as { messages: { content: { content: string }[] }[] }).messages.at(-1)?.content ?? [];
      const [quotient, time] = blocks.map((block) => block.content);
      const clock = /\d\d:\d\d/.exec(time ?? "")?.[0];
      return {
        sse: anthropicStream(
          [{ type: "text", text: `(17 × 23) / 4 = ${quotient}. In Paris it is ${clock} on ${time?.slice(0, 10)}.` }],
          "end_turn",
          { input_tokens: 1402, output_tokens: 33 },
        ),
      };
    },
  );
  const terminal: string[] = [];
  const io: CliIo = {
    stdout: (text) => void terminal.push(text),
    stderr: (text) => void terminal.push(text),
    readLine: async () => undefined,
    env: { ANTHROPIC_API_KEY: "sk-ant-local-test", ANTHROPIC_BASE_URL: server.url },
  };
  const code = await main(["run", "What is 17 * 23 / 4, and what time is it in Paris?", "--model", "anthropic:claude-haiku-4-5"], io);
  expect(code).toBe(0);
  return terminal.join("");
}

test.each(["README.md", "docs/providers.md"])("%s shows exactly what minagent run prints against the local test server", async (file) => {
  const printed = await exampleSession();
  const docs = readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
  const shown = /<!-- example-session -->\n```console\n\$ [^\n]*\n([\s\S]*?)```/.exec(docs)?.[1];
  expect(shown).toBe(printed);
});
