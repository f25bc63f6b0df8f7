// The long scripted run the crash test kills: shared by the child process (built JavaScript) and the test (the
// TypeScript sources), which passes in the engine's parts so that this file imports nothing.

/** The call whose result is 16 MB: its line takes tens of milliseconds to write, long enough for a kill to cut it. */
export const bigCall = "call_20_0";

/** Each turn calls `work` three times; the later calls finish first, so results arrive out of call order. */
export function createScriptedRun({ Agent, FakeModel, ToolRegistry, reply, toolCall }, turns) {
  const script = [];
  for (let turn = 0; turn < turns; turn++) {
    const calls = [0, 1, 2].map((index) => toolCall("work", { turn, index }, `call_${turn}_${index}`));
    script.push(reply(`Turn ${turn}: three calls.`, ...calls));
  }
  script.push(`Done after ${turns} turns.`);
  const registry = new ToolRegistry({ maxResultLength: 20_000_000 }).add({
    name: "work",
    description: "Does one piece of work",
    parameters: {
      type: "object",
      properties: { turn: { type: "number" }, index: { type: "number" } },
      required: ["turn", "index"],
    },
    execute: async ({ turn, index }) => {
      await new Promise((resolve) => setTimeout(resolve, (2 - index) * 2));
      // Sizes from a few bytes to ~60 KB, and one of 16 MB.
      const size = `call_${turn}_${index}` === bigCall ? 16_000_000 : ((turn * 7 + index * 13) % 31) * 2_000;
      return `result ${turn}.${index} ${"x".repeat(size)}`;
    },
  });
  const agent = new Agent(new FakeModel(script), registry, { system: "You run long tasks.", maxSteps: turns + 1 });
  return { agent, prompt: "Run the long task." };
}
