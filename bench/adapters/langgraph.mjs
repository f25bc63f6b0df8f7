// LangGraph, driven as its docs show: createReactAgent({ llm, tools }) and agent.invoke({ messages }).
// The model is a BaseChatModel subclass (LangChain's own model interface) answering instantly from the script.

import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createReactAgent } from "@langchain/langgraph/prebuilt";

export const meta = { id: "langgraph", label: "LangGraph createReactAgent", package: "@langchain/langgraph" };

class InstantChatModel extends BaseChatModel {
  constructor(respond) {
    super({});
    this.respond = respond;
  }
  _llmType() {
    return "bench-instant";
  }
  // createReactAgent binds the tools; a scripted model ignores them.
  bindTools() {
    return this;
  }
  async _generate() {
    const { text, toolCalls } = this.respond();
    const message = new AIMessage({
      content: text,
      tool_calls: toolCalls.map((call) => ({ id: call.id, name: call.name, args: call.args, type: "tool_call" })),
      usage_metadata: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
    });
    return { generations: [{ text, message }] };
  }
}

export async function create({ tools, respond, maxSteps }) {
  const langchainTools = tools.map((definition) =>
    tool((args) => definition.execute(args), { name: definition.name, description: definition.description, schema: definition.schema }),
  );
  const agent = createReactAgent({ llm: new InstantChatModel(respond), tools: langchainTools });
  // Each turn is two graph steps (agent, tools); the final answer one more.
  const recursionLimit = 2 * maxSteps + 2;
  return {
    async run(input) {
      const result = await agent.invoke({ messages: [{ role: "user", content: input }] }, { recursionLimit });
      const last = result.messages.at(-1);
      return { final: typeof last?.content === "string" ? last.content : "", result };
    },
  };
}

// S3: the same createReactAgent on LangChain's OpenAI chat model, as its docs show for an OpenAI-compatible
// endpoint: new ChatOpenAI({ model, configuration: { baseURL }, apiKey }) (Chat Completions by default).
export async function createWire({ baseURL, tools, maxSteps, modelId }) {
  const { ChatOpenAI } = await import("@langchain/openai");
  const llm = new ChatOpenAI({ model: modelId, configuration: { baseURL }, apiKey: "bench-key", maxRetries: 0 });
  const langchainTools = tools.map((definition) =>
    tool((args) => definition.execute(args), { name: definition.name, description: definition.description, schema: definition.schema }),
  );
  const agent = createReactAgent({ llm, tools: langchainTools });
  const recursionLimit = 2 * maxSteps + 2;
  return {
    async run(input) {
      const result = await agent.invoke({ messages: [{ role: "user", content: input }] }, { recursionLimit });
      const last = result.messages.at(-1);
      return { final: typeof last?.content === "string" ? last.content : "", result };
    },
  };
}
