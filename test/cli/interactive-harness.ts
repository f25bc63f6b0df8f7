import { PassThrough, Writable } from "node:stream";
import { stripAnsi } from "../../src/cli/code/interactive/text-width.js";
import type { CodeOptions, CodeSession, CodeSessionContext } from "../../src/cli/code/session-context.js";
import type { AgentEvent } from "../../src/core/events.js";

// Shared by the in-process interactive tests (code-interactive-session, code-interactive-hooks,
// code-custom-commands-interactive): a fake terminal the test types into and reads, the options of a plain
// interactive session, a session kept in memory, and a wait for the screen.

/** A terminal whose input the test writes (`press`) and whose output it reads as plain text (`text`). */
export type FakeTerminal = CodeSessionContext["terminal"] & { text: () => string; press: (keys: string) => void };

export function fakeTerminal(size: { columns: number; rows: number } = { columns: 100, rows: 30 }): FakeTerminal {
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
  let written = "";
  const output = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        written += String(chunk);
        done();
      },
    }),
    { isTTY: false, ...size },
  );
  return { input, output, text: () => stripAnsi(written).replace(/\r/g, ""), press: (keys) => input.write(keys) };
}

/** The options `minagent code` in `cwd` with no flags would have (haiku as the model), with `overrides` on top. */
export function interactiveOptions(cwd: string, overrides: Partial<CodeOptions> = {}): CodeOptions {
  return {
    prompt: undefined,
    print: false,
    outputFormat: "text",
    model: "anthropic:claude-haiku-4-5",
    permissionMode: undefined,
    allowedTools: [],
    disallowedTools: [],
    maxTurns: undefined,
    maxBudgetUsd: undefined,
    cwd,
    additionalDirectories: [],
    timeoutMs: undefined,
    continue: false,
    resume: undefined,
    forkSession: false,
    verbose: false,
    mcpConfigFiles: [],
    strictMcpConfig: false,
    ...overrides,
  };
}

/** A session that records nothing to disk. */
export function memorySession(id: string): CodeSession {
  return {
    id,
    file: `/sessions/${id}.jsonl`,
    history: [],
    record: (_: AgentEvent) => {},
    flush: async () => {},
    markCheckpoint: () => {},
    conversationBefore: async () => undefined,
    rewindConversation: () => {},
    name: undefined,
    rename: () => {},
    addMessages: () => {},
  };
}

/** The parts of a session context that stay in memory: one session (`id`) that every resume opens, no spending. */
export function memorySessionParts(id: string): Pick<CodeSessionContext, "session" | "sessions" | "spending" | "signal"> {
  const session = memorySession(id);
  return {
    session,
    sessions: { create: async () => session, open: async () => session, list: async () => [], remove: async () => false },
    spending: { usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, isBudgetExceeded: () => false },
    signal: new AbortController().signal,
  };
}

/** Waits until the screen's text satisfies `expected` (polling; bounded), and returns it. */
export async function until(terminal: Pick<FakeTerminal, "text">, expected: string | RegExp, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = terminal.text();
    if (typeof expected === "string" ? text.includes(expected) : expected.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${String(expected)}; the screen:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
