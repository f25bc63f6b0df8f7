import { type AgentToolOptions, createAgentTool, type SubagentDefinition } from "../../../src/code/subagents/index.js";
import type { Message, Model, ModelResponse, Tool } from "../../../src/index.js";
import { defineTool } from "../../../src/index.js";

/** A read-only tool. */
export const echo: Tool = defineTool({
  name: "echo",
  description: "Says the text back.",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  readOnly: true,
  execute: ({ text }) => `echo: ${String(text)}`,
});

/** A tool that changes things (it records each note). */
export function createNoteTool(notes: string[]): Tool {
  return defineTool({
    name: "note",
    description: "Writes a note.",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: ({ text }) => {
      notes.push(String(text));
      return "noted";
    },
  });
}

/** A subagent type for tests. */
export function worker(overrides: Partial<SubagentDefinition> = {}): SubagentDefinition {
  return { name: "worker", description: "Does the work.", prompt: "You are a worker.", source: "test", ...overrides };
}

/** The Agent tool over `echo` and `note`, with the given options. */
export function agentToolFor(model: Model, options: Partial<AgentToolOptions> = {}, notes: string[] = []) {
  const tools: Record<string, Tool> = { echo, note: createNoteTool(notes) };
  return createAgentTool({
    model,
    toolNames: ["echo", "note"],
    buildTools: (names) => names.map((name) => tools[name] as Tool),
    definitions: [worker()],
    ...options,
  });
}

/** A model whose calls wait until the test lets them answer: it counts how many wait at once. */
export class GatedModel implements Model {
  readonly provider = "fake";
  readonly modelId = "gated";
  active = 0;
  maxActive = 0;
  readonly started: string[] = [];
  readonly #waiting: (() => void)[] = [];

  async complete(messages: Message[]): Promise<ModelResponse> {
    const task = messages.find((message) => message.role === "user")?.content ?? "";
    this.started.push(task);
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.active--;
    return { message: { role: "assistant", content: `done: ${task}` }, stopReason: "end_turn" };
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Lets the oldest waiting call answer. */
  releaseOne(): void {
    this.#waiting.shift()?.();
  }
}

/** Resolves once `condition` holds (checked after each turn of the event loop). */
export async function until(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 1_000; tries++) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`Timed out waiting until ${what}`);
}
