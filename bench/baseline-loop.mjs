// The baseline: the book's tool-use loop written by hand in ~30 lines, with no framework at all.
// Every figure of the bench is also given as a ratio to this loop, measured in the same run.
// It runs a turn's tool calls concurrently and turns a throw or an unknown tool into an observation,
// which is the least any agent loop does; it validates nothing and has no timeouts or events.

/** Runs `model` with `tools` (a Map of name → { execute(args) }) until it answers without tool calls. */
export async function runBareLoop(model, tools, input, maxSteps) {
  const messages = [{ role: "user", content: input }];
  const schemas = [...tools.values()].map(({ name, description, parameters }) => ({ name, description, parameters }));
  for (let turn = 0; turn < maxSteps; turn++) {
    const response = await model.complete(messages, schemas);
    messages.push(response.message);
    const calls = response.message.toolCalls ?? [];
    if (calls.length === 0) return { messages, final: response.message.content };
    const results = await Promise.all(calls.map((call) => executeCall(tools, call)));
    messages.push(...results);
  }
  return { messages, final: "" };
}

async function executeCall(tools, call) {
  const tool = tools.get(call.name);
  let content;
  try {
    content = tool ? String(await tool.execute(call.arguments)) : `Unknown tool ${call.name}`;
  } catch (error) {
    content = `Error: ${error?.message ?? error}`;
  }
  return { role: "tool", toolCallId: call.id, content };
}
