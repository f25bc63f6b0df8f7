// npm run bench:providers (issue 27) — what each provider adapter costs over its own SDK, measured side by side in one run:
//   1. Per step: the same five-message conversation with a tool, sent by the adapter (`model.complete`: the request
//      built from minagent's messages, the SDK call, the response converted back) and by the SDK called directly with
//      the body the adapter sends, against one local server in another process (bench/provider-server.mjs, 127.0.0.1)
//      that answers with the provider's recorded response. Rounds alternate adapter and SDK after a warm-up; the
//      figure is the median of the rounds' µs per call, and the ratio adapter / SDK (the issue's aim: within 10 %).
//   2. Import time of each entry point in fresh processes (interleaved), beside the SDK it wraps: minagent/google and
//      minagent/bedrock load their SDK on the first call, so importing them costs only the adapter's own modules.
// MINAGENT_ROOT=<dir> measures another build than dist/; ROUNDS=<n> (default 10), CALLS=<n> per round (default 100),
// IMPORTS=<n> fresh processes per entry point (default 7).
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { minagentRoot, minagentUrl } from "./minagent-root.mjs";

const rounds = Number(process.env.ROUNDS ?? 10);
const calls = Number(process.env.CALLS ?? 100);
const imports = Number(process.env.IMPORTS ?? 7);
const warmupCalls = 50;

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const middle = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[middle] : (s[middle - 1] + s[middle]) / 2;
};

const server = spawn(process.execPath, [fileURLToPath(new URL("provider-server.mjs", import.meta.url))], {
  stdio: ["ignore", "pipe", "inherit"],
});
const [line] = await once(server.stdout, "data");
const url = `http://127.0.0.1:${JSON.parse(String(line)).port}`;

const messages = [
  { role: "system", content: "You are a careful assistant." },
  { role: "user", content: "What is the weather in Paris?" },
  { role: "assistant", content: "Let me look.", toolCalls: [{ id: "call_1", name: "weather", arguments: { city: "Paris" } }] },
  { role: "tool", content: "18 °C and sunny", toolCallId: "call_1" },
  { role: "user", content: "And tomorrow?" },
];
const tools = [
  {
    name: "weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];
const credentials = { accessKeyId: "AKIDBENCHMARK", secretAccessKey: "bench-secret" };

/** Each adapter, and the same call made with its SDK directly (the body the adapter sends, built once). */
const targets = [
  {
    name: "AnthropicModel",
    sdk: "@anthropic-ai/sdk",
    entry: "dist/models/anthropic/index.js",
    async create({ AnthropicModel }) {
      const model = new AnthropicModel({ model: "claude-bench", apiKey: "bench", baseURL: url, maxRetries: 0 });
      const { default: Anthropic } = await import("@anthropic-ai/sdk");
      const client = new Anthropic({ apiKey: "bench", baseURL: url, maxRetries: 0 });
      const body = model.createRequest(messages, tools);
      return { model, raw: () => client.messages.create(body) };
    },
  },
  {
    name: "OpenAIModel (Chat Completions)",
    sdk: "openai",
    entry: "dist/models/openai/index.js",
    async create({ OpenAIModel }) {
      const model = new OpenAIModel({ model: "gpt-bench", apiKey: "bench", baseURL: `${url}/v1`, maxRetries: 0 });
      const { default: OpenAI } = await import("openai");
      const client = new OpenAI({ apiKey: "bench", baseURL: `${url}/v1`, maxRetries: 0 });
      const body = model.createRequest(messages, tools);
      return { model, raw: () => client.chat.completions.create(body) };
    },
  },
  {
    name: "OpenAIResponsesModel",
    sdk: "openai",
    entry: "dist/models/openai/index.js",
    async create({ OpenAIResponsesModel }) {
      const model = new OpenAIResponsesModel({ model: "gpt-bench", apiKey: "bench", baseURL: `${url}/v1`, maxRetries: 0 });
      const { default: OpenAI } = await import("openai");
      const client = new OpenAI({ apiKey: "bench", baseURL: `${url}/v1`, maxRetries: 0 });
      const body = model.createRequest(messages, tools);
      return { model, raw: () => client.responses.create(body) };
    },
  },
  {
    name: "GoogleModel (Gemini API)",
    sdk: "@google/genai",
    entry: "dist/models/google/index.js",
    async create({ GoogleModel }) {
      const model = new GoogleModel({ model: "gemini-bench", apiKey: "bench", baseURL: url, maxRetries: 0 });
      const { GoogleGenAI } = await import("@google/genai");
      const client = new GoogleGenAI({ apiKey: "bench", httpOptions: { baseUrl: url } });
      const body = model.createRequest(messages, tools);
      return { model, raw: () => client.models.generateContent(body) };
    },
  },
  {
    name: "BedrockModel (Converse)",
    sdk: "@aws-sdk/client-bedrock-runtime",
    entry: "dist/models/bedrock/index.js",
    async create({ BedrockModel }) {
      const model = new BedrockModel({ model: "bench.model-v1:0", region: "us-east-1", endpoint: url, credentials, maxRetries: 0 });
      const { BedrockRuntimeClient, ConverseCommand } = await import("@aws-sdk/client-bedrock-runtime");
      // The HTTP/1.1 handler BedrockModel uses (the client's default is HTTP/2, which a plain http:// server does not speak).
      const sdkRequire = createRequire(createRequire(import.meta.url).resolve("@aws-sdk/client-bedrock-runtime"));
      const { NodeHttpHandler } = await import(pathToFileURL(sdkRequire.resolve("@smithy/node-http-handler")).href);
      const requestHandler = new NodeHttpHandler();
      const client = new BedrockRuntimeClient({ region: "us-east-1", endpoint: url, credentials, maxAttempts: 1, requestHandler });
      const body = model.createRequest(messages, tools);
      return { model, raw: () => client.send(new ConverseCommand(body)) };
    },
  },
];

async function perCall(run) {
  const start = performance.now();
  for (let i = 0; i < calls; i++) await run();
  return ((performance.now() - start) * 1000) / calls;
}

const stepRows = [];
try {
  for (const target of targets) {
    const { model, raw } = await target.create(await import(minagentUrl(target.entry)));
    const adapter = () => model.complete(messages, tools);
    for (let i = 0; i < warmupCalls; i++) await Promise.all([adapter(), raw()]);
    const adapterUs = [];
    const rawUs = [];
    for (let round = 0; round < rounds; round++) {
      // Alternating which goes first, so that neither always meets a warmer (or busier) machine.
      if (round % 2 === 0) {
        adapterUs.push(await perCall(adapter));
        rawUs.push(await perCall(raw));
      } else {
        rawUs.push(await perCall(raw));
        adapterUs.push(await perCall(adapter));
      }
    }
    const a = median(adapterUs);
    const r = median(rawUs);
    stepRows.push({ adapter: target.name, sdk: target.sdk, adapterUs: a, sdkUs: r, ratio: a / r });
  }
} finally {
  server.kill("SIGTERM");
}

// Import time: each entry point and each SDK alone, in fresh processes, interleaved.
const importScript = fileURLToPath(new URL("import-time.mjs", import.meta.url));
const importTargets = [
  { label: "minagent", specifier: minagentUrl("dist/index.js") },
  { label: "minagent/anthropic", specifier: minagentUrl("dist/models/anthropic/index.js") },
  { label: "minagent/openai", specifier: minagentUrl("dist/models/openai/index.js") },
  { label: "minagent/google", specifier: minagentUrl("dist/models/google/index.js") },
  { label: "minagent/bedrock", specifier: minagentUrl("dist/models/bedrock/index.js") },
  { label: "@anthropic-ai/sdk", specifier: "@anthropic-ai/sdk" },
  { label: "openai", specifier: "openai" },
  { label: "@google/genai", specifier: "@google/genai" },
  { label: "@aws-sdk/client-bedrock-runtime", specifier: "@aws-sdk/client-bedrock-runtime" },
];
const importMs = new Map(importTargets.map((target) => [target.label, []]));
for (let run = 0; run < imports; run++) {
  for (const target of importTargets) {
    const child = spawnSync(process.execPath, [importScript, target.specifier], { cwd: minagentRoot, encoding: "utf8", timeout: 60_000 });
    if (child.status !== 0) throw new Error(`importing ${target.label} failed: ${child.stderr}`);
    importMs.get(target.label).push(JSON.parse(child.stdout).ms);
  }
}

const fixed = (value, digits = 0) => value.toFixed(digits);
console.log(`Per step (µs per call, median of ${rounds} rounds × ${calls} calls; local server in another process):`);
console.log("| adapter | adapter µs | its SDK alone µs | ratio | within 10 %? |");
console.log("| --- | ---: | ---: | ---: | --- |");
for (const row of stepRows)
  console.log(
    `| ${row.adapter} | ${fixed(row.adapterUs)} | ${fixed(row.sdkUs)} (${row.sdk}) | ${fixed(row.ratio, 3)} | ${row.ratio <= 1.1 ? "yes" : "no"} |`,
  );
console.log(`\nImport time (ms, median of ${imports} fresh processes):`);
console.log("| module | ms |");
console.log("| --- | ---: |");
for (const target of importTargets) console.log(`| ${target.label} | ${fixed(median(importMs.get(target.label)), 1)} |`);
console.log(`\nNode ${process.version}; ${minagentRoot}`);
