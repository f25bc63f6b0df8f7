import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "../../../src/core/types.js";

/** A temporary data directory and a working folder name; `remove()` deletes them. */
export function makeTemporaryHome() {
  const directory = mkdtempSync(join(tmpdir(), "minagent-sessions-"));
  return { directory, cwd: join(directory, "work", "project"), remove: () => rmSync(directory, { recursive: true, force: true }) };
}

/**
 * Throws unless providers would accept the conversation: every assistant message's calls are answered right after
 * it, each exactly once, and no tool message answers a call that was not made in its turn.
 */
export function assertAnswered(messages: readonly Message[]): void {
  let open: string[] = [];
  let answered = new Set<string>();
  const closeTurn = (index: number) => {
    const missing = open.filter((id) => !answered.has(id));
    if (missing.length > 0) throw new Error(`calls ${missing.join(", ")} are unanswered before message ${index}`);
    open = [];
  };
  messages.forEach((message, index) => {
    if (message.role === "tool") {
      const id = message.toolCallId ?? "";
      if (!open.includes(id)) throw new Error(`message ${index} answers "${id}", which its turn did not call`);
      if (answered.has(id)) throw new Error(`message ${index} answers "${id}" a second time`);
      answered.add(id);
      return;
    }
    closeTurn(index);
    if (message.role === "assistant" && message.toolCalls?.length) {
      open = message.toolCalls.map((call) => call.id);
      answered = new Set();
    }
  });
  closeTurn(messages.length);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
