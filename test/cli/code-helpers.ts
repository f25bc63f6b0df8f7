import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import type { CodeIo } from "../../src/cli/code/process-input.js";
import { main } from "../../src/cli/main.js";
import { projectFolderName } from "../../src/code/sessions/json-lines-session-store.js";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { fakeIo } from "../helpers/fake-io.js";
import { anthropicStream } from "../helpers/wire-bodies.js";

// Shared by test/cli/code-*.test.ts: a wire server, a workspace and a MINAGENT_HOME in temporary folders.

export type CodeFixture = { server: WireServer; workspace: string; home: string; close: () => Promise<void> };

export async function openCodeFixture(): Promise<CodeFixture> {
  const server = await startWireServer();
  const workspace = await mkdtemp(join(tmpdir(), "minagent-code-workspace-"));
  const home = await mkdtemp(join(tmpdir(), "minagent-code-home-"));
  await writeFile(join(workspace, "notes.txt"), "The answer is 42.\n");
  return {
    server,
    workspace,
    home,
    close: async () => {
      await server.close();
      await rm(workspace, { recursive: true, force: true });
      await rm(home, { recursive: true, force: true });
    },
  };
}

/**
 * Opens a fresh fixture before each test of the calling file and closes it after. The object returned stays the
 * same while its fields are the current test's, so a file holds it in a constant and passes it around as the fixture.
 */
export function useCodeFixture(): CodeFixture {
  const fixture = {} as CodeFixture;
  beforeEach(async () => {
    Object.assign(fixture, await openCodeFixture());
  });
  afterEach(() => fixture.close());
  return fixture;
}

export const haiku = "anthropic:claude-haiku-4-5";

export function anthropicEnv(fixture: CodeFixture): Record<string, string> {
  // CLAUDE_CONFIG_DIR too: the user's ~/.claude/settings.json is read as Claude Code's user settings.
  return {
    ANTHROPIC_API_KEY: "sk-ant-test-key",
    ANTHROPIC_BASE_URL: fixture.server.url,
    MINAGENT_HOME: fixture.home,
    CLAUDE_CONFIG_DIR: join(fixture.home, "claude"),
  };
}

/** Runs `minagent code …` through main with a fake io (stdin not a terminal unless `io` says so). */
export async function runCode(
  args: string[],
  env: Record<string, string | undefined>,
  io: Partial<CodeIo> & { answers?: string[] } = {},
): Promise<{ exit: number; stdout: string; stderr: string }> {
  const fake = fakeIo(env, io.answers ?? []);
  const { answers: _, ...extra } = io;
  const exit = await main(["code", ...args], { ...fake.io, ...extra } as CodeIo);
  return { exit, stdout: fake.stdout(), stderr: fake.stderr() };
}

/** `-p <prompt> --model haiku --cwd <workspace>` and more. */
export function printArgs(fixture: CodeFixture, prompt: string, ...more: string[]): string[] {
  return ["-p", prompt, "--model", haiku, "--cwd", fixture.workspace, ...more];
}

/** A streamed Anthropic reply with text only. */
export function answer(text: string, usage = { input_tokens: 100, output_tokens: 20 }) {
  return { sse: anthropicStream([{ type: "text", text }], "end_turn", usage), chunkSize: 48 };
}

/** A streamed Anthropic reply that calls one tool. */
export function callTool(id: string, name: string, input: Record<string, unknown>, usage = { input_tokens: 100, output_tokens: 20 }) {
  return { sse: anthropicStream([{ type: "tool_use", id, name, input }], "tool_use", usage) };
}

/** The folder of a workspace's sessions. */
export function sessionsFolder(fixture: CodeFixture): string {
  return join(fixture.home, "projects", projectFolderName(fixture.workspace));
}

/** The session files of the workspace, by id. */
export async function sessionFiles(fixture: CodeFixture): Promise<Record<string, string>> {
  const folder = sessionsFolder(fixture);
  const names = await readdir(folder).catch(() => [] as string[]);
  const files: Record<string, string> = {};
  for (const name of names) files[name.replace(/\.jsonl$/, "")] = await readFile(join(folder, name), "utf8");
  return files;
}

/** The messages a session file holds (role and content, tool calls by name). */
export function sessionMessages(text: string): { role: string; content: string; tools?: string[]; toolCallId?: string }[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { type: string; message?: Record<string, unknown> })
    .filter((entry) => entry.type === "message")
    .map(({ message }) => {
      const { role, content, toolCalls, toolCallId } = message as {
        role: string;
        content: string;
        toolCalls?: { name: string }[];
        toolCallId?: string;
      };
      return {
        role,
        content,
        ...(toolCalls && { tools: toolCalls.map((call) => call.name) }),
        ...(toolCallId !== undefined && { toolCallId }),
      };
    });
}

/** The Anthropic `messages` a request sent, content flattened to text per block. */
export function sentMessages(body: unknown): { role: string; content: string[] }[] {
  const { messages } = body as { messages: { role: string; content: string | { type: string; text?: string; content?: unknown }[] }[] };
  return messages.map(({ role, content }) => ({
    role,
    content:
      typeof content === "string"
        ? [content]
        : content.map((block) =>
            block.type === "text"
              ? (block.text ?? "")
              : block.type === "tool_result"
                ? `tool_result: ${JSON.stringify(block.content)}`
                : block.type,
          ),
  }));
}

/** The body of the server's request at `index` (negative counts from the end). */
export function requestBody<T>(fixture: CodeFixture, index: number): T {
  const request = fixture.server.requests.at(index);
  if (!request) throw new Error(`the server received no request ${index} (it received ${fixture.server.requests.length})`);
  return request.body as T;
}
