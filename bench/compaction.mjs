// node bench/compaction.mjs — what compaction saves on a long session (issue 13), offline.
// Compiles src/code/compaction (and the engine) with tsc into node_modules/.cache (the package need not be built),
// then runs one scripted 300-turn coding session with compaction off, and on at two windows: 10 prompts of 30 calls,
// whose tools return 10–50 KB each (slices of this repository's own sources). Every request is counted with the
// real o200k_base tokenizer (`countRequestTokens`: messages and tool schemas), which is also what the scripted
// "provider" reports as its usage, so the compactor measures against real counts as it would against an API.
//   node bench/compaction.mjs             the session at two windows (Claude's 200k, GPT-4o's 128k)
//   node bench/compaction.mjs --verbose   and every request's figures
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileSources } from "./compile-sources.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const verbose = process.argv.includes("--verbose");
const sources = ["code/compaction/index.ts", "code/tools/todo-write.ts", "engine.ts", "testing/count-tokens.ts"];
const load = compileSources("minagent-bench-compaction", sources);
const [{ createCompactor, describeTodos }, { createTodoStore, createTodoWriteTool }, { Agent, ToolRegistry }, counting] = await Promise.all(
  sources.map(load),
);
const { countMessageTokens, countRequestTokens, loadO200kTokenizer } = counting;

// ---- tokens: the real tokenizer, each distinct text counted once ----
const encode = await loadO200kTokenizer();
const counted = new Map();
const tokenize = (text) => {
  let tokens = counted.get(text);
  if (tokens === undefined) {
    tokens = encode(text);
    counted.set(text, tokens);
  }
  return tokens;
};

// ---- the session's material ----
const corpus = collectSources(join(root, "src"));
function collectSources(directory) {
  const parts = [];
  for (const name of readdirSync(directory).sort()) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) parts.push(collectSources(path));
    else if (name.endsWith(".ts")) parts.push(readFileSync(path, "utf8"));
  }
  return parts.join("\n");
}
/** A number in [0, 1) from a text (FNV-1a), so that every call's output is fixed. */
function unit(text) {
  let hash = 2166136261;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 16777619) >>> 0;
  return hash / 2 ** 32;
}
/** 10–50 KB of source code, fixed by `key`. */
function output(key) {
  const size = 10_000 + Math.floor(unit(`size:${key}`) * 40_000);
  const start = Math.floor(unit(`at:${key}`) * (corpus.length - size));
  return corpus.slice(start, start + size);
}

const prompts = [
  "The CSV importer drops rows whose last field is quoted. Find out why and fix it, with a test.",
  "Now make the importer accept semicolon-separated files too; keep commas the default.",
  "Add a --dry-run flag to the import command that prints what would change and writes nothing.",
  "The date parser is slow on big files. Profile it and make it at least twice as fast.",
  "Refactor the error messages of the importer so that each names the file, the line and the column.",
  "Write the migration guide section for the new separator option in docs/importing.md.",
  "The Windows CI job fails on line endings in the fixtures. Fix it without changing the fixtures.",
  "Add a progress bar for imports of more than 10,000 rows; none below that.",
  "Review the whole importer for unhandled promise rejections and fix any you find.",
  "Sum up everything we changed today, file by file, and check that the full test suite passes.",
];
const turnsPerPrompt = 30;

/**
 * The model's next message: the prompt being worked on is the last message the person wrote (compaction keeps them
 * all, in order), and `steps` counts the calls made for it so far.
 */
function nextMessage(messages, steps) {
  const prompt = [...messages].reverse().find((message) => message.role === "user" && !message.content.startsWith("<compaction-"));
  const promptIndex = prompts.indexOf(prompt?.content ?? "");
  const step = steps.get(promptIndex) ?? 0;
  steps.set(promptIndex, step + 1);
  const key = `${promptIndex}:${step}`;
  const thought = `Step ${step} of task ${promptIndex + 1}: ${corpus.slice(Math.floor(unit(`t:${key}`) * 100_000), Math.floor(unit(`t:${key}`) * 100_000) + 100 + Math.floor(unit(`tl:${key}`) * 300))}`;
  const call = (name, args) => ({ role: "assistant", content: thought, toolCalls: [{ id: `call_${key}`, name, arguments: args }] });
  if (step === turnsPerPrompt - 1) return { role: "assistant", content: `Done with task ${promptIndex + 1}. ${thought}` };
  if (step % 10 === 0) {
    const done = Math.floor(step / 10);
    return call("TodoWrite", {
      todos: ["Reproduce", "Find the cause", "Fix and test"].map((content, index) => ({
        content: `${content} (task ${promptIndex + 1})`,
        activeForm: `${content} (task ${promptIndex + 1})…`,
        status: index < done ? "completed" : index === done ? "in_progress" : "pending",
      })),
    });
  }
  const kind = unit(`k:${key}`);
  if (kind < 0.4) return call("Read", { file_path: `src/importer/module-${Math.floor(unit(`f:${key}`) * 60)}.ts` });
  if (kind < 0.6) return call("Grep", { pattern: `parse${Math.floor(unit(`g:${key}`) * 40)}\\(`, output_mode: "content" });
  if (kind < 0.85) return call("Bash", { command: `npm test -- --grep "case ${Math.floor(unit(`b:${key}`) * 90)}"` });
  const at = Math.floor(unit(`e:${key}`) * 200_000);
  return call("Edit", {
    file_path: `src/importer/module-${Math.floor(unit(`f:${key}`) * 60)}.ts`,
    old_string: corpus.slice(at, at + 300),
    new_string: corpus.slice(at + 5_000, at + 5_000 + 1_200),
  });
}

function summaryText(request) {
  const length = request.length;
  return [
    "## Task",
    `Import fixes requested over the session (${length.toLocaleString("en-US")} characters summarised).`,
    "## Decisions",
    ...Array.from({ length: 6 }, (_, index) => `- Decision ${index + 1}: ${corpus.slice(index * 1_000, index * 1_000 + 160)}`),
    "## Files touched",
    ...Array.from(
      { length: 10 },
      (_, index) => `- src/importer/module-${index * 5}.ts: ${corpus.slice(20_000 + index * 700, 20_000 + index * 700 + 90)}`,
    ),
    "## Errors and fixes",
    "- A failing quoted-field test: fixed by unescaping before splitting.",
    "## Pending",
    "- The remaining tasks.",
    "## Current step",
    "- Running the tests of the last change.",
  ].join("\n");
}

/** The scripted provider: answers from the request, and reports the request's real token count as its usage. */
function scriptedModel(modelId, record) {
  const steps = new Map();
  return {
    provider: "scripted",
    modelId,
    async complete(messages, tools) {
      const summary = tools.length === 0 && messages[0]?.content.startsWith("You summarise");
      const message = summary ? { role: "assistant", content: summaryText(messages.at(-1)?.content ?? "") } : nextMessage(messages, steps);
      const usage = { inputTokens: countRequestTokens(messages, tools, tokenize), outputTokens: countMessageTokens(message, tokenize) };
      record({ summary, usage, messages: messages.length });
      return { message, stopReason: message.toolCalls ? "tool_use" : "end_turn", usage };
    },
  };
}

function registry() {
  const todos = createTodoStore();
  const registry = new ToolRegistry({ orderEffects: true })
    .add({
      name: "Read",
      description: "Reads a file of the workspace, with line numbers.",
      parameters: { type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] },
      readOnly: true,
      execute: ({ file_path }) => output(`read:${file_path}`),
    })
    .add({
      name: "Grep",
      description: "Searches file contents with a regular expression.",
      parameters: { type: "object", properties: { pattern: { type: "string" }, output_mode: { type: "string" } }, required: ["pattern"] },
      readOnly: true,
      execute: ({ pattern }) => output(`grep:${pattern}`),
    })
    .add({
      name: "Bash",
      description: "Runs a shell command in the workspace.",
      parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
      execute: ({ command }) => `$ ${command}\n${output(`bash:${command}`)}\nExit code: 1`,
    })
    .add({
      name: "Edit",
      description: "Replaces an exact string in a file.",
      parameters: {
        type: "object",
        properties: { file_path: { type: "string" }, old_string: { type: "string" }, new_string: { type: "string" } },
        required: ["file_path", "old_string", "new_string"],
      },
      execute: ({ file_path }) => `Edited ${file_path}: 1 replacement.`,
    })
    .add(createTodoWriteTool(todos));
  return { registry, todos };
}

const system = [
  "You are a software engineer working in a code repository through tools. Do what the user asks, completely, then stop and say briefly what you did.",
  "Find things with Grep before reading; read a file with Read before you change it; change files with Edit; run tests with Bash.",
  "Keep a checklist with TodoWrite for work of several steps. Verify your change before you say it is done.",
].join("\n");

/** One session: the ten prompts as one conversation, compaction on (with a window) or off. */
async function runSession(window) {
  const calls = [];
  const model = scriptedModel(window?.modelId ?? "claude-sonnet-4-5", (call) => calls.push(call));
  const { registry: tools, todos } = registry();
  const compactor = window
    ? createCompactor({
        model,
        ...window.options,
        todos: () => describeTodos(todos.todos),
        permissions: () => "Permission mode: acceptEdits\nRules — deny: none; ask: none; allow: Bash(npm test:*)",
      })
    : undefined;
  const compactions = [];
  const measured = [];
  let preparing = 0;
  const agent = new Agent(model, tools, {
    system,
    maxSteps: 100,
    ...(compactor && {
      prepareTurn: async (context) => {
        const started = performance.now();
        const plan = await compactor(context);
        preparing += performance.now() - started;
        measured.push(compactor.contextTokens);
        return plan;
      },
    }),
    onEvent: (event) => {
      compactor?.listen(event);
      if (event.type === "compaction") compactions.push({ ...event, request: calls.filter((call) => !call.summary).length });
    },
  });
  let history;
  const started = performance.now();
  for (const prompt of prompts) {
    const result = await agent.run(prompt, { history });
    if (result.status !== "completed") throw new Error(`a run ended ${result.status}`);
    history = result.messages;
  }
  const turns = calls.filter((call) => !call.summary);
  if (turns.length !== prompts.length * turnsPerPrompt)
    throw new Error(`expected ${prompts.length * turnsPerPrompt} requests, got ${turns.length}`);
  return {
    seconds: (performance.now() - started) / 1000,
    preparing,
    threshold: compactor ? Math.floor(compactor.contextWindow * 0.8) : undefined,
    window: compactor?.contextWindow,
    sent: turns.map((call) => call.usage.inputTokens),
    output: turns.reduce((total, call) => total + call.usage.outputTokens, 0),
    summaries: calls.filter((call) => call.summary).map((call) => call.usage),
    compactions,
    measured,
  };
}

const number = (value) => Math.round(value).toLocaleString("en-US");
const sum = (values) => values.reduce((total, value) => total + value, 0);
// List prices per million tokens (no prompt caching): Claude Sonnet 4.5 and GPT-4o.
const prices = { "claude-sonnet-4-5": [3, 15], "gpt-4o": [2.5, 10] };
const dollars = (modelId, input, outputTokens) => (input * prices[modelId][0] + outputTokens * prices[modelId][1]) / 1e6;

const off = await runSession(undefined);
console.log(
  `A scripted session of ${prompts.length} prompts × ${turnsPerPrompt} model calls; tool outputs 10–50 KB; every request counted with o200k_base. Node ${process.version}.`,
);
console.log(
  `Compaction off: ${number(sum(off.sent))} input tokens in ${off.sent.length} requests; the largest request ${number(Math.max(...off.sent))} tokens.\n`,
);

// The compactor's defaults (threshold 0.8, target 0.4, 3 results kept, 20 % of the window of recent turns); a
// target can be tried with TARGET=0.3.
const target = process.env.TARGET ? Number(process.env.TARGET) : undefined;
for (const modelId of ["claude-sonnet-4-5", "gpt-4o"]) {
  const on = await runSession({ modelId, options: target ? { target } : {} });
  const stages = (stage) => on.compactions.filter((event) => event.stage === stage && event.error === undefined).length;
  const failed = on.compactions.filter((event) => event.error !== undefined);
  const summaryInput = sum(on.summaries.map((usage) => usage.inputTokens));
  const summaryOutput = sum(on.summaries.map((usage) => usage.outputTokens));
  const totalOn = sum(on.sent);
  const totalOff = sum(off.sent);
  const biggest = Math.max(...on.sent);
  // How the measure before each request compares with the count of it (the first request has no count to go by);
  // right after a compaction the measure is an estimate of the new conversation, otherwise count + added estimate.
  const compacted = new Set(on.compactions.map((event) => event.request));
  const rows = on.sent
    .slice(1)
    .map((tokens, index) => ({ tokens, error: on.measured[index + 1] - tokens, after: compacted.has(index + 1) }));
  const meanError = sum(rows.map(({ tokens, error }) => Math.abs(error) / tokens)) / rows.length;
  const extremes = (list) => [Math.max(0, -Math.min(...list.map((row) => row.error))), Math.max(0, ...list.map((row) => row.error))];
  const [under, over] = extremes(rows.filter((row) => !row.after));
  const [underAfter, overAfter] = extremes(rows.filter((row) => row.after));
  console.log(`== ${modelId}: window ${number(on.window)}, threshold ${number(on.threshold)} (80 %)`);
  console.log(
    `compactions: ${stages("tool-results")} of stage 1 (tool results), ${stages("summary")} of stage 2 (summary)${failed.length ? `, ${failed.length} reported with an error: ${failed.map((event) => event.error).join("; ")}` : ""}`,
  );
  console.log(`largest request: ${number(biggest)} tokens (${biggest <= on.threshold ? "under" : "OVER"} the threshold)`);
  console.log(
    `input tokens: off ${number(totalOff)}, on ${number(totalOn)} (+ ${number(summaryInput)} in summary calls): ${(totalOff / (totalOn + summaryInput)).toFixed(1)}× fewer`,
  );
  console.log(
    `summary calls: ${on.summaries.length}, ${number(summaryInput)} input + ${number(summaryOutput)} output tokens = ${((100 * (summaryInput + summaryOutput)) / (totalOn + summaryInput + on.output + summaryOutput)).toFixed(1)} % of the session's tokens`,
  );
  const costOff = dollars(modelId, totalOff, off.output);
  const costOn = dollars(modelId, totalOn + summaryInput, on.output + summaryOutput);
  console.log(
    `at list prices without caching: off $${costOff.toFixed(2)}, on $${costOn.toFixed(2)}, of which summaries $${dollars(modelId, summaryInput, summaryOutput).toFixed(2)}`,
  );
  console.log(
    `measure vs the provider's count, requests 2–${on.sent.length}: mean error ${(100 * meanError).toFixed(2)} %; under by at most ${number(under)} and over by at most ${number(over)} tokens (${number(underAfter)} and ${number(overAfter)} right after a compaction)`,
  );
  console.log(
    `time in the compactor: ${((1000 * on.preparing) / on.sent.length).toFixed(0)} µs a turn on average (the scripted summariser answers at once); the whole session ${on.seconds.toFixed(1)} s`,
  );
  console.log("\nrequest   tokens off   tokens on   compaction before it");
  on.sent.forEach((tokens, index) => {
    const here = on.compactions.filter((event) => event.request === index).map((event) => event.stage + (event.error ? " (error)" : ""));
    if (verbose || index % 15 === 0 || here.length > 0 || index === on.sent.length - 1)
      console.log(
        `${String(index + 1).padStart(7)} ${number(off.sent[index]).padStart(12)} ${number(tokens).padStart(11)}   ${here.join(" + ")}`,
      );
  });
  console.log("");
}
