// OpenAI Agents SDK, driven as its docs show: new Agent({ name, instructions, tools, model }) and run(agent, input).
// The model implements the SDK's `Model` interface and answers instantly from the script; the SDK's own
// ScriptedModel snapshots every request (O(history) per call), which would bill the test double to the SDK.
import { Agent, run, setTracingDisabled, tool, Usage } from "@openai/agents";

export const meta = { id: "openai-agents", label: "OpenAI Agents SDK run()", package: "@openai/agents" };

// The SDK's docs say to disable tracing when no OpenAI key is used (it would try to export to OpenAI).
setTracingDisabled(true);

function createTools(tools) {
  return tools.map((definition) =>
    tool({
      name: definition.name,
      description: definition.description,
      parameters: definition.schema,
      execute: (args) => definition.execute(args),
    }),
  );
}

export async function create({ tools, respond, maxSteps }) {
  const model = {
    async getResponse() {
      return toResponse(respond());
    },
    // biome-ignore lint/correctness/useYield: the bench never streams
    async *getStreamedResponse() {
      throw new Error("the bench does not stream");
    },
  };
  const agent = new Agent({ name: "bench", instructions: "", tools: createTools(tools), model });
  return {
    async run(input) {
      const result = await run(agent, input, { maxTurns: maxSteps });
      return { final: result.finalOutput, result };
    },
  };
}

function toResponse({ text, toolCalls }) {
  const output = toolCalls.map((call) => ({
    type: "function_call",
    callId: call.id,
    id: call.id,
    name: call.name,
    status: "completed",
    arguments: JSON.stringify(call.args),
  }));
  if (text || output.length === 0) {
    output.unshift({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] });
  }
  return { usage: new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 }), output };
}

// S3: the SDK's Chat Completions model on the official `openai` client, pointed at the local server.
export async function createWire({ baseURL, tools, maxSteps, modelId }) {
  const { OpenAIChatCompletionsModel } = await import("@openai/agents");
  const { default: OpenAI } = await import("openai");
  const client = new OpenAI({ apiKey: "bench-key", baseURL, maxRetries: 0 });
  const model = new OpenAIChatCompletionsModel(client, modelId);
  const agent = new Agent({ name: "bench", tools: createTools(tools), model });
  return {
    async run(input) {
      const result = await run(agent, input, { maxTurns: maxSteps });
      return { final: result.finalOutput, result };
    },
  };
}
