// A scripted coding session for the compaction tests: tools whose outputs are large, a model script that reads,
// runs, writes and keeps a todo list, and a summariser that answers in the structured form.
import { createTodoStore, createTodoWriteTool, type TodoStore } from "../../../src/code/index.js";
import type { Message, ModelResponse } from "../../../src/core/types.js";
import { FakeModel, ToolRegistry } from "../../../src/index.js";
import { reply, toolCall, withUsage } from "../../../src/testing/index.js";

/** A deterministic text of `length` characters that looks like source code. */
export function codeText(seed: number, length: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let line = 0; size < length; line++) {
    const text = `  const value${seed}_${line} = compute(${(seed * 31 + line * 7) % 97}, "${"abcdefghij".slice(line % 10)}"); // line ${line}`;
    lines.push(text);
    size += text.length + 1;
  }
  return lines.join("\n").slice(0, length);
}

/** A number from a text, so that different calls return different outputs. */
function seedOf(text: string): number {
  let hash = 7;
  for (const character of text) hash = (hash * 31 + character.charCodeAt(0)) % 1_000_003;
  return hash;
}

/** Read, Bash and Write with large outputs (Read and Bash) or large arguments (Write), and the real TodoWrite. */
export function sessionTools(resultLength: number): { registry: ToolRegistry; todos: TodoStore } {
  const todos = createTodoStore();
  const path = { type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] };
  const registry = new ToolRegistry()
    .add({
      name: "Read",
      description: "Reads a file",
      parameters: path,
      readOnly: true,
      execute: ({ file_path }) => codeText(seedOf(String(file_path)), resultLength),
    })
    .add({
      name: "Bash",
      description: "Runs a command",
      parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
      execute: ({ command }) => `$ ${String(command)}\n${codeText(seedOf(String(command)), resultLength)}`,
    })
    .add({
      name: "Write",
      description: "Writes a file",
      parameters: { type: "object", properties: { file_path: { type: "string" }, content: { type: "string" } } },
      execute: ({ file_path, content }) => `Wrote ${String(content).length} characters to ${String(file_path)}.`,
    })
    .add(createTodoWriteTool(todos));
  return { registry, todos };
}

/** The model's turns for one prompt: a todo list, then reads, commands and writes, then an answer. */
export function scriptRun(run: number, turns: number, thoughtLength: number): ModelResponse[] {
  const script: ModelResponse[] = [
    reply(
      `Run ${run}: planning.`,
      toolCall(
        "TodoWrite",
        {
          todos: [
            { content: `Investigate part ${run}`, status: "in_progress", activeForm: `Investigating part ${run}` },
            { content: `Fix part ${run}`, status: "pending", activeForm: `Fixing part ${run}` },
          ],
        },
        `todo-${run}`,
      ),
    ),
  ];
  for (let turn = 1; turn < turns - 1; turn++) {
    const thought = `Run ${run}, step ${turn}: ${codeText(run * 100 + turn, thoughtLength)}`;
    const id = `call-${run}-${turn}`;
    if (turn % 3 === 0)
      script.push(reply(thought, toolCall("Write", { file_path: `src/part${run}-${turn}.js`, content: codeText(turn, 2_000) }, id)));
    else if (turn % 3 === 1) script.push(reply(thought, toolCall("Read", { file_path: `src/part${run}-${turn}.js` }, id)));
    else script.push(reply(thought, toolCall("Bash", { command: `npm test -- part${run}-${turn}` }, id)));
  }
  script.push(reply(`Run ${run} is done.`));
  return script;
}

/** The summariser's reply to each summary request, in the structured form, with usage. */
export function summarizer(options: { usage?: { inputTokens: number; outputTokens: number }; failures?: number } = {}): FakeModel {
  let count = 0;
  const answer = (messages: Message[]) => {
    count++;
    const response = reply(
      [
        `## Task\nSummary ${count}: fix the parts the user named (${messages.length} messages were sent to summarise).`,
        "## Decisions\nNone.",
        "## Files touched\n- src/part1-3.js: rewritten",
        "## Errors and fixes\nNone.",
        "## Pending\nThe remaining parts.",
        "## Current step\nReading the next part.",
      ].join("\n"),
    );
    return options.usage ? withUsage(response, options.usage) : response;
  };
  const fail = () => {
    throw new Error("overloaded");
  };
  return new FakeModel(Array.from({ length: 50 }, (_, call) => (call < (options.failures ?? 0) ? fail : answer)));
}

/** The person's messages of a request: every user message that is not compaction's own. */
export function personMessages(messages: readonly Message[]): string[] {
  return messages
    .filter((message) => message.role === "user" && !/^<compaction-(state|summary)>/.test(message.content))
    .map((message) => message.content);
}
