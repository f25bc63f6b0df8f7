// Vercel AI SDK, driven as its docs show for a tool loop: generateText({ model, tools, stopWhen: stepCountIs(n), prompt }).
// The model is the SDK's own test double, MockLanguageModelV4 from "ai/test", answering instantly from the script.
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";

export const meta = { id: "ai-sdk", label: "Vercel AI SDK generateText", package: "ai" };

export async function create({ tools, respond, maxSteps }) {
  const model = new MockLanguageModelV4({
    doGenerate: async () => {
      // The mock records every call's options (with the whole prompt) for assertions; a long run would keep
      // O(steps²) messages alive through it, which is the mock's cost and not the SDK's, so it is dropped.
      model.doGenerateCalls.length = 0;
      return toResult(respond());
    },
  });
  const toolSet = Object.fromEntries(
    tools.map((definition) => [
      definition.name,
      tool({ description: definition.description, inputSchema: definition.schema, execute: (args) => definition.execute(args) }),
    ]),
  );
  return {
    async run(input) {
      const result = await generateText({ model, tools: toolSet, stopWhen: stepCountIs(maxSteps), prompt: input });
      return { final: result.text, result };
    },
  };
}

function toResult({ text, toolCalls }) {
  const content = [];
  if (text) content.push({ type: "text", text });
  for (const call of toolCalls)
    content.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, input: JSON.stringify(call.args) });
  return {
    content,
    finishReason: { unified: toolCalls.length > 0 ? "tool-calls" : "stop", raw: undefined },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    },
    warnings: [],
  };
}

// S3: the same generateText loop on the SDK's OpenAI provider, as its docs show for an OpenAI-compatible endpoint:
// createOpenAI({ baseURL, apiKey }), and `.chat(model)` so that it speaks Chat Completions (the default is Responses).
export async function createWire({ baseURL, tools, maxSteps, modelId }) {
  const { createOpenAI } = await import("@ai-sdk/openai");
  const model = createOpenAI({ baseURL, apiKey: "bench-key" }).chat(modelId);
  const toolSet = Object.fromEntries(
    tools.map((definition) => [
      definition.name,
      tool({ description: definition.description, inputSchema: definition.schema, execute: (args) => definition.execute(args) }),
    ]),
  );
  return {
    async run(input) {
      const result = await generateText({ model, tools: toolSet, stopWhen: stepCountIs(maxSteps), prompt: input, maxRetries: 0 });
      return { final: result.text, result };
    },
  };
}
