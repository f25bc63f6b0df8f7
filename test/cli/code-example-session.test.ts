import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { startWireServer, type WireRequest, type WireServer } from "../../src/testing/wire-server.js";
import { anthropicStream } from "../helpers/wire-bodies.js";

// The README's `minagent code` session: the real CLI, the real tools on a copy of examples/fix-failing-test/project
// (its `npm test` fails) and the real @anthropic-ai/sdk, talking to the local wire server in Anthropic's format.
// After a deliberate change, rewrite the README's transcript with
//   MINAGENT_UPDATE_EXAMPLES=1 npx vitest run test/cli/code-example-session.test.ts

const readme = fileURLToPath(new URL("../../README.md", import.meta.url));
const sampleProject = fileURLToPath(new URL("../../examples/fix-failing-test/project/", import.meta.url));
const marker = "<!-- code-example-session -->";
const block = new RegExp(`${marker}\\n\`\`\`console\\n([\\s\\S]*?)\`\`\`\\n`);
const prompt = "The test in test/math.test.js fails. Fix the code, not the test.";
// As typed in the project folder; the test adds --cwd <its copy of the project>.
const command = [
  "-p",
  prompt,
  "--model",
  "anthropic:claude-haiku-4-5",
  "--permission-mode",
  "acceptEdits",
  "--allowedTools",
  "Bash(npm test)",
  "--verbose",
];
const sessionId = "0b7e3c52-5d0e-4a8c-9f3e-2d61c4a7e915";

let server: WireServer;
let project: string;
let home: string;
const nodeOptions = process.env.NODE_OPTIONS;
beforeEach(async () => {
  server = await startWireServer();
  project = await mkdtemp(join(tmpdir(), "sample-math-"));
  home = await mkdtemp(join(tmpdir(), "minagent-code-home-"));
  await cp(sampleProject, project, { recursive: true });
  // Node 22 and later report tests in the spec format into a pipe too; Node 20 would write TAP. One format everywhere.
  process.env.NODE_OPTIONS = [nodeOptions, "--test-reporter=spec"].filter(Boolean).join(" ");
  // The session's id, so that the transcript holds one (the first UUID the command asks for is its session's).
  vi.spyOn(globalThis.crypto, "randomUUID").mockReturnValueOnce(sessionId);
});
afterEach(async () => {
  vi.restoreAllMocks();
  if (nodeOptions === undefined) delete process.env.NODE_OPTIONS;
  else process.env.NODE_OPTIONS = nodeOptions;
  await server.close();
  await rm(project, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

type Usage = { input_tokens: number; output_tokens: number };

function usage(input_tokens: number, output_tokens: number): Usage {
  return { input_tokens, output_tokens };
}

/** A streamed reply: some text, then one tool call. */
function textThenTool(text: string, id: string, name: string, input: Record<string, unknown>, tokens: Usage) {
  const blocks = [
    { type: "text" as const, text },
    { type: "tool_use" as const, id, name, input },
  ];
  return { sse: anthropicStream(blocks, "tool_use", tokens), chunkSize: 64 };
}

/** The tool result a request brought back, as the model would read it. */
function lastToolResult(request: WireRequest): string {
  const { messages } = request.body as { messages: { content: string | { type: string; content?: unknown }[] }[] };
  const content = messages.at(-1)?.content;
  const result = Array.isArray(content) ? content.find((part) => part.type === "tool_result") : undefined;
  return typeof result?.content === "string" ? result.content : JSON.stringify(result?.content ?? "");
}

/** Runs the session and returns the terminal as it showed it (stdout and stderr in order). */
async function exampleSession(): Promise<string> {
  const final = "Fixed `mean` in src/math.js: it divided by `values.length - 1` instead of `values.length`. The test passes now.";
  const runTests = { command: "npm test", description: "Run the tests" };
  server.reply(
    textThenTool("Let me run the tests first.", "toolu_01", "Bash", runTests, usage(3180, 62)),
    textThenTool("`mean` returns 7.5 instead of 5. Reading it.", "toolu_02", "Read", { file_path: "src/math.js" }, usage(3602, 55)),
    textThenTool(
      "It divides by one less than the count.",
      "toolu_03",
      "Edit",
      { file_path: "src/math.js", old_string: "(values.length - 1)", new_string: "values.length" },
      usage(3781, 98),
    ),
    textThenTool("Running the tests again.", "toolu_04", "Bash", runTests, usage(3905, 60)),
    { sse: anthropicStream([{ type: "text", text: final }], "end_turn", usage(4130, 41)), chunkSize: 64 },
  );
  const terminal: string[] = [];
  const io: CliIo = {
    stdout: (text) => void terminal.push(text),
    stderr: (text) => void terminal.push(text),
    readLine: async () => undefined,
    env: { ANTHROPIC_API_KEY: "sk-ant-local-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home },
  };
  const code = await main(["code", ...command, "--cwd", project], io);
  expect(code, terminal.join("")).toBe(0);
  // The script is a fair one: each reply follows from what the tools really returned.
  const results = server.requests.slice(1).map(lastToolResult);
  expect(results[0]).toMatch(/7\.5 !== 5[\s\S]*Exit code: 1$/);
  expect(results[1]).toContain("(values.length - 1)");
  expect(results[3]).toMatch(/pass 1[\s\S]*Exit code: 0$/);
  expect(await readFile(join(project, "src/math.js"), "utf8")).toContain("return total / values.length;");
  return terminal.join("");
}

/** The command line as a shell shows it. */
function commandLine(): string {
  const quote = (argument: string) => (/^[\w:./@-]+$/.test(argument) ? argument : `"${argument}"`);
  return `$ minagent code ${command.map(quote).join(" ")}`;
}

/**
 * What differs between two runs of the same session: how long the tests took, and so where a line holding that time
 * is cut. Such a line is compared up to the time.
 */
function withoutTimings(text: string): string {
  return text.replace(/\(\d+(\.\d+)?ms\).*/g, "(…ms) …");
}

test("README.md shows what minagent code -p --verbose prints against the local test server", { timeout: 60_000 }, async () => {
  const printed = `${commandLine()}\n${await exampleSession()}`;
  const docs = await readFile(readme, "utf8");
  const shown = block.exec(docs)?.[1];
  if (process.env.MINAGENT_UPDATE_EXAMPLES) {
    expect(shown, `README.md has ${marker} and a console block after it`).toBeDefined();
    await writeFile(
      readme,
      docs.replace(block, () => `${marker}\n\`\`\`console\n${printed}\`\`\`\n`),
    );
    return;
  }
  expect(withoutTimings(shown ?? `(no ${marker} in README.md)`)).toBe(withoutTimings(printed));
});
