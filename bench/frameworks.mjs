// Every row of the bench: which adapter (and variant), which package's version to print, which scenarios it runs.
// ReActAgent and the JSON Schema variant share the plain Agent's wire and parallel path, so they skip those.
const all = ["s1", "s2", "s3", "s4"];

export const frameworks = [
  { id: "baseline", label: "bare loop (hand-written, 30 lines)", module: "./adapters/baseline.mjs", package: null, scenarios: all },
  {
    id: "minagent-agent",
    label: "minagent Agent",
    module: "./adapters/minagent.mjs",
    variant: "agent",
    package: "minagent",
    scenarios: all,
  },
  {
    id: "minagent-react",
    label: "minagent ReActAgent",
    module: "./adapters/minagent.mjs",
    variant: "react",
    package: "minagent",
    scenarios: ["s1", "s2", "s4"],
  },
  {
    id: "minagent-tracing",
    label: "minagent Agent + tracing",
    module: "./adapters/minagent.mjs",
    variant: "tracing",
    package: "minagent",
    scenarios: all,
  },
  {
    id: "minagent-json",
    label: "minagent Agent, JSON Schema tool",
    module: "./adapters/minagent.mjs",
    variant: "json-schema",
    package: "minagent",
    scenarios: ["s1", "s3"],
  },
  {
    id: "ai-sdk",
    label: "Vercel AI SDK generateText",
    module: "./adapters/ai-sdk.mjs",
    package: "ai",
    // S3 drives it through its own OpenAI provider, @ai-sdk/openai (`.chat(model)`: Chat Completions).
    scenarios: all,
  },
  {
    id: "openai-agents",
    label: "OpenAI Agents SDK run()",
    module: "./adapters/openai-agents.mjs",
    package: "@openai/agents",
    scenarios: all,
  },
  {
    id: "langgraph",
    label: "LangGraph createReactAgent",
    module: "./adapters/langgraph.mjs",
    package: "@langchain/langgraph",
    // S3 drives it through LangChain's OpenAI chat model, @langchain/openai's ChatOpenAI.
    scenarios: all,
  },
];

export function findFramework(id) {
  const framework = frameworks.find((candidate) => candidate.id === id);
  if (!framework) throw new Error(`unknown framework "${id}"; known: ${frameworks.map((candidate) => candidate.id).join(", ")}`);
  return framework;
}
