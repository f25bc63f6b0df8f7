// The hand-written loop of bench/baseline-loop.mjs, with an instant scripted model of the same shape.
import { runBareLoop } from "../baseline-loop.mjs";

export const meta = { id: "baseline", label: "bare loop (30 lines, hand-written)", package: null };

export async function create({ tools, respond, maxSteps }) {
  const model = { complete: async () => toResponse(respond()) };
  const registry = new Map(tools.map((tool) => [tool.name, { ...tool, parameters: tool.jsonSchema }]));
  return {
    async run(input) {
      const result = await runBareLoop(model, registry, input, maxSteps);
      return { final: result.final, result };
    },
  };
}

function toResponse({ text, toolCalls }) {
  const calls = toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: call.args }));
  return {
    message: { role: "assistant", content: text, ...(calls.length > 0 && { toolCalls: calls }) },
    usage: { inputTokens: 1, outputTokens: 1 },
  };
}

// The bare request a hand-written loop would send to Chat Completions: model, messages, tools. It is also
// S3's reference body, so by definition it adds nothing.
export async function createWire({ baseURL, tools, maxSteps, modelId }) {
  const openAITools = tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.jsonSchema },
  }));
  const registry = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    async run(input) {
      const messages = [{ role: "user", content: input }];
      for (let turn = 0; turn < maxSteps; turn++) {
        const response = await fetch(`${baseURL}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: modelId, messages, tools: openAITools }),
        });
        const message = (await response.json()).choices[0].message;
        messages.push(message);
        if (!message.tool_calls?.length) return { final: message.content, result: messages };
        for (const call of message.tool_calls) {
          const content = String(await registry.get(call.function.name).execute(JSON.parse(call.function.arguments)));
          messages.push({ role: "tool", tool_call_id: call.id, content });
        }
      }
      return { final: "", result: messages };
    },
  };
}
