// minagent, driven as its README shows: a ToolRegistry of zod tools, an Agent (or ReActAgent), run(input).
// The model is an instant scripted `Model` (not FakeModel, which copies every request for assertions).
import { minagentUrl } from "../minagent-root.mjs";

// The built package's root entry, as `import "minagent"` would load it (from a snapshot of dist/, see minagent-root.mjs).
const minagent = await import(minagentUrl("dist/index.js"));
const { Agent, ReActAgent, ToolRegistry } = minagent;

const variants = {
  agent: { label: "minagent Agent", Agent, schema: "zod" },
  react: { label: "minagent ReActAgent", Agent: ReActAgent, schema: "zod" },
  tracing: { label: "minagent Agent + tracing", Agent, schema: "zod", tracing: true },
  "json-schema": { label: "minagent Agent, JSON Schema tool", Agent, schema: "json" },
};

export function metaOf(variant) {
  return { id: `minagent-${variant}`, label: variants[variant].label, package: "minagent" };
}

export async function create({ tools, respond, maxSteps, variant = "agent" }) {
  const model = { provider: "bench", modelId: "instant", complete: async () => toResponse(respond()) };
  return createAgent(model, tools, maxSteps, variants[variant]);
}

async function createAgent(model, tools, maxSteps, setup) {
  const registry = new ToolRegistry();
  for (const tool of tools) {
    registry.add({
      name: tool.name,
      description: tool.description,
      parameters: setup.schema === "zod" ? tool.schema : tool.jsonSchema,
      execute: (args) => tool.execute(args),
    });
  }
  const options = { maxSteps };
  if (setup.tracing) {
    // Exported from the root since 1f8e78b; older builds only had it in dist/trace.
    const { Tracer } = minagent.Tracer ? minagent : await import(minagentUrl("dist/trace/tracer.js"));
    // A no-op exporter: the cost measured is building the span tree, not writing it anywhere.
    const tracer = new Tracer({ exporters: [{ export() {} }] });
    options.onEvent = tracer.listener({ model });
  }
  const agent = new setup.Agent(model, registry, options);
  return {
    async run(input) {
      const result = await agent.run(input);
      return { final: result.final, result };
    },
  };
}

function toResponse({ text, toolCalls }) {
  const calls = toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: call.args }));
  return {
    message: { role: "assistant", content: text, ...(calls.length > 0 && { toolCalls: calls }) },
    stopReason: calls.length > 0 ? "tool_use" : "end_turn",
    usage: { inputTokens: 1, outputTokens: 1 },
  };
}

// S3: the same agents on OpenAIModel (minagent/openai), pointed at the local server.
export async function createWire({ baseURL, tools, maxSteps, modelId, variant = "agent" }) {
  const { OpenAIModel } = await import(minagentUrl("dist/models/openai/index.js"));
  const model = new OpenAIModel({ model: modelId, baseURL, apiKey: "bench-key", maxRetries: 0 });
  return createAgent(model, tools, maxSteps, variants[variant]);
}
