// The long session that bench/sessions.mjs times and test/code/sessions/long-session.test.ts checks: `turns` turns of
// an assistant message and three Read results (200 to 2,000 characters each, like file excerpts), then the answer.
// The engine's parts are passed in: the bench runs a compiled copy, the test the sources.

/**
 * An Agent scripted for the long session, and the prompt to run it with.
 * @param {{ Agent: any, FakeModel: any, ToolRegistry: any, reply: any, toolCall: any, withUsage: any }} engine
 * @param {number} turns
 */
export function createLongSessionRun(engine, turns) {
  const { Agent, FakeModel, ToolRegistry, reply, toolCall, withUsage } = engine;
  const script = Array.from({ length: turns }, (_, turn) =>
    withUsage(
      reply(
        `Turn ${turn}: reading three files to find where the configuration is loaded.`,
        ...[0, 1, 2].map((index) => toolCall("Read", { file_path: `src/module-${turn}-${index}.ts` }, `call_${turn}_${index}`)),
      ),
      { inputTokens: 1_000 + turn, outputTokens: 50 },
    ),
  );
  const registry = new ToolRegistry().add({
    name: "Read",
    description: "Reads a file",
    parameters: { type: "object", properties: { file_path: { type: "string" } } },
    execute: ({ file_path }) =>
      `${String(file_path)}:\n${"export const value = compute(input, options); // a line of code\n".repeat(3 + ((String(file_path).length * 7) % 30))}`,
  });
  const agent = new Agent(new FakeModel([...script, "Found it."]), registry, { system: "You are a coding agent.", maxSteps: turns + 1 });
  return { agent, prompt: "Where is the configuration loaded?" };
}
