// Every option type accepts an explicit `undefined` for an optional field, as `{ system: process.env.SYSTEM }`
// needs under exactOptionalPropertyTypes (which this project's tsconfig, and so `npm test`'s type check, turns on):
// a missing `| undefined` makes this file fail to compile. At run time an explicit undefined means the default.
import { describe, expect, it } from "vitest";
import {
  Agent,
  type AgentOptions,
  FakeModel,
  PlanAndSolveAgent,
  type PlanAndSolveOptions,
  type PlanModeOptions,
  planMode,
  ReflexionAgent,
  type ReflexionOptions,
  RunContext,
  type RunContextOptions,
  type RunOptions,
  StepRecorder,
  type StepRecorderOptions,
  type Tool,
  ToolRegistry,
  type ToolRegistryOptions,
  type TurnPlan,
} from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

const agentOptions: Required<{ [K in keyof AgentOptions]: undefined }> = {
  system: undefined,
  maxSteps: undefined,
  signal: undefined,
  toolConcurrency: undefined,
  onEvent: undefined,
  stream: undefined,
  prepareTurn: undefined,
  canUseTool: undefined,
  output: undefined,
  outputRetries: undefined,
};
const runOptions: Required<{ [K in keyof RunOptions]: undefined }> = {
  history: undefined,
  parts: undefined,
  signal: undefined,
  onEvent: undefined,
  stream: undefined,
  parent: undefined,
  name: undefined,
  runId: undefined,
  attributes: undefined,
};

describe("options given as explicit undefined behave as if left out", () => {
  it("Agent and run options", async () => {
    const options: AgentOptions = agentOptions;
    const model = new FakeModel([reply("", toolCall("noop", {}, "n")), "done"]);
    const registry = new ToolRegistryWithNoop({
      timeoutMs: undefined,
      maxResultLength: undefined,
      maxArgumentDepth: undefined,
      maxArgumentsLength: undefined,
      orderEffects: undefined,
    } satisfies Required<{
      [K in keyof ToolRegistryOptions]: undefined;
    }>);
    const result = await new Agent(model, registry, options).run("go", runOptions);
    expect(result.status).toBe("completed");
  });

  it("pattern options, plan mode, the step recorder, run contexts and turn plans", async () => {
    const planAndSolve: PlanAndSolveOptions = {
      ...agentOptions,
      maxReplans: undefined,
      planPrompt: undefined,
      solvePrompt: undefined,
      replanPrompt: undefined,
    };
    const planned = await new PlanAndSolveAgent(
      new FakeModel([reply("", toolCall("write_plan", { steps: ["a"] })), "ok"]),
      new ToolRegistry(),
      planAndSolve,
    ).run("x");
    expect(planned.final).toBe("ok");
    const reflexion: ReflexionOptions = {
      ...agentOptions,
      evaluate: () => ({ pass: true, feedback: undefined }),
      maxTrials: undefined,
      reflectPrompt: undefined,
    };
    expect((await new ReflexionAgent(new FakeModel(["ok"]), new ToolRegistry(), reflexion).run("x")).passed).toBe(true);
    const planModeOptions: PlanModeOptions = { approve: () => true, startInPlanMode: undefined };
    expect(planMode(planModeOptions).active).toBe(false);
    const recorderOptions: StepRecorderOptions = { thoughts: undefined, describeCall: undefined };
    expect(new StepRecorder(recorderOptions).steps).toEqual([]);
    const contextOptions: RunContextOptions = { parent: undefined, signal: undefined, listeners: undefined, runId: undefined };
    expect(new RunContext(contextOptions).parent).toBeUndefined();
    const plan: TurnPlan = { messages: undefined, tools: undefined, toolChoice: undefined };
    const result = await new Agent(new FakeModel(["ok"]), new ToolRegistry(), { prepareTurn: () => plan }).run("x");
    expect(result.final).toBe("ok");
  });
});

class ToolRegistryWithNoop extends ToolRegistry {
  constructor(options: ToolRegistryOptions) {
    super(options);
    const noop: Tool = {
      name: "noop",
      description: "",
      parameters: { type: "object" },
      execute: () => "",
      timeoutMs: undefined,
      readOnly: undefined,
      needsApproval: undefined,
    };
    this.add(noop);
  }
}
