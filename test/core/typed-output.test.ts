import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  Agent,
  conversationOf,
  FakeModel,
  finalAnswerName,
  OutputValidationError,
  PlanAndSolveAgent,
  planToolName,
  ToolRegistry,
  UsageError,
  withRetry,
} from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

const weather = z.object({ city: z.string(), celsius: z.number(), unit: z.string().default("C") });

const lookup = () =>
  new ToolRegistry().add({
    name: "lookup",
    description: "looks the weather up",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    readOnly: true,
    execute: () => "21 degrees",
  });

const answer = (args: Record<string, unknown>, id = "answer") => reply("", toolCall(finalAnswerName, args, id));

describe("typed output through the final-answer tool (a model without native structured output)", () => {
  it("offers final_answer with the schema's JSON Schema; a valid call ends the run with output typed from the zod schema", async () => {
    const model = new FakeModel([reply("", toolCall("lookup", { city: "Vienna" }, "l")), answer({ city: "Vienna", celsius: 21 })]);
    const result = await new Agent(model, lookup(), { output: weather }).run("How warm is it in Vienna?");

    expect(result.status).toBe("completed");
    expect(result.output).toEqual({ city: "Vienna", celsius: 21, unit: "C" }); // the schema's default applied
    const celsius: number | undefined = result.output?.celsius;
    expect(celsius).toBe(21);
    expect(JSON.parse(result.final)).toEqual({ city: "Vienna", celsius: 21 });
    expect(result.turns).toBe(2);
    const offered = model.requests[0]?.tools.find((tool) => tool.name === finalAnswerName);
    expect(offered?.parameters).toMatchObject({
      type: "object",
      required: ["city", "celsius"],
      properties: { celsius: { type: "number" } },
    });
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(["lookup", finalAnswerName]);
    expect(model.requests[0]?.responseFormat).toBeUndefined();
    expect(result.steps.at(-1)).toEqual({ index: 1, kind: "final", detail: result.final });
  });

  it("sends a call that breaks the schema back as an error observation, and accepts the corrected call", async () => {
    const model = new FakeModel([answer({ city: "Vienna", celsius: "warm" }, "bad"), answer({ city: "Vienna", celsius: 21 }, "good")]);
    const result = await new Agent(model, new ToolRegistry(), { output: weather }).run("?");
    expect(result.output).toMatchObject({ celsius: 21 });
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({
      role: "tool",
      toolCallId: "bad",
      isError: true,
      content: expect.stringMatching(/celsius.*number.*Call final_answer again/s),
    });
  });

  it("a text answer is refused with a user message asking for the tool, unless the text is JSON matching the schema", async () => {
    const model = new FakeModel(["It is 21 degrees.", '```json\n{"city":"Vienna","celsius":21}\n```']);
    const result = await new Agent(model, new ToolRegistry(), { output: weather }).run("?");
    expect(result.output).toEqual({ city: "Vienna", celsius: 21, unit: "C" });
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: "user",
      content: expect.stringMatching(/not JSON.*calling the final_answer tool/s),
    });
    expect(result.steps.map((step) => step.kind)).toEqual(["thought", "error", "final"]);
  });

  it("fails with an OutputValidationError once outputRetries wrong answers were sent back, with the conversation", async () => {
    const model = new FakeModel([answer({ city: 1 }, "a1"), answer({ city: 2 }, "a2")]);
    const error = await new Agent(model, new ToolRegistry(), { output: weather, outputRetries: 1 }).run("?").catch((caught) => caught);
    expect(error).toBeInstanceOf(OutputValidationError);
    expect(error.message).toMatch(/after 2 attempt\(s\) \(outputRetries: 1\)/);
    expect(error.problems).toEqual(expect.arrayContaining([expect.stringMatching(/^city: /), expect.stringMatching(/^celsius: /)]));
    expect(JSON.parse(error.answer)).toEqual({ city: 2 });
    expect(model.requests).toHaveLength(2);
    expect(conversationOf(error)?.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "tool"]);
  });

  it("takes a plain JSON Schema (validated by the engine) and a schema that is not an object, wrapped as { value }", async () => {
    const json = { type: "object", properties: { n: { type: "integer", minimum: 1 } }, required: ["n"] };
    const model = new FakeModel([answer({ n: 0 }), answer({ n: 3 })]);
    const result = await new Agent(model, new ToolRegistry(), { output: json }).run("?");
    expect(result.output).toEqual({ n: 3 });
    expect(result.messages[2]?.content).toMatch(/n: must be >= 1/);

    const list = new FakeModel([answer({ value: ["a", "b"] })]);
    const listed = await new Agent(list, new ToolRegistry(), { output: z.array(z.string()) }).run("?");
    expect(listed.output).toEqual(["a", "b"]);
    expect(listed.final).toBe('["a","b"]');
    expect(list.requests[0]?.tools[0]?.parameters).toEqual({
      type: "object",
      properties: { value: { type: "array", items: { type: "string" } } },
      required: ["value"],
      additionalProperties: false,
    });
  });

  it("keeps final_answer offered on turns a prepareTurn restricts (Plan-and-Solve's solving turns)", async () => {
    const model = new FakeModel([
      reply("", toolCall(planToolName, { steps: ["Look it up.", "Answer."] })),
      reply("", toolCall("lookup", { city: "Vienna" })),
      answer({ city: "Vienna", celsius: 21 }),
    ]);
    const result = await new PlanAndSolveAgent(model, lookup(), { output: weather }).run("How warm is it in Vienna?");
    expect(model.requests[1]?.tools.map((tool) => tool.name)).toEqual(["lookup", finalAnswerName]);
    expect(result.output).toMatchObject({ city: "Vienna", celsius: 21 });
  });

  it("a final answer given beside a call that waited for approval ends the resumed run without another model call", async () => {
    const registry = new ToolRegistry().add({
      name: "save",
      description: "saves",
      parameters: { type: "object", properties: {} },
      needsApproval: true,
      execute: () => "saved",
    });
    const model = new FakeModel([reply("", toolCall("save", {}, "s"), toolCall(finalAnswerName, { city: "Vienna", celsius: 21 }, "f"))]);
    const agent = new Agent(model, registry, { output: weather });
    const interrupted = await agent.run("?");
    expect(interrupted.status).toBe("interrupted");
    expect(interrupted.output).toBeUndefined();
    const resumed = await agent.resume(JSON.stringify(interrupted), { s: { behavior: "allow" } });
    expect(resumed.status).toBe("completed");
    expect(resumed.output).toMatchObject({ city: "Vienna" });
    expect(model.requests).toHaveLength(1);
  });
});

describe("typed output through native structured output (supportsResponseFormat)", () => {
  it("sends the JSON Schema as responseFormat on every call, offers no final_answer tool, and parses the text answer", async () => {
    const model = new FakeModel([reply("", toolCall("lookup", { city: "Vienna" })), '{"city":"Vienna","celsius":21}'], {
      supportsResponseFormat: true,
    });
    const stream = new Agent(model, lookup(), { output: weather }).stream("How warm is it in Vienna?");
    const ends = [];
    for await (const event of stream) if (event.type === "run-end") ends.push(event);
    const result = await stream.result;
    expect(result.output).toEqual({ city: "Vienna", celsius: 21, unit: "C" });
    expect(result.final).toBe('{"city":"Vienna","celsius":21}');
    expect(ends[0]?.output).toEqual(result.output);
    expect(model.requests.map((request) => request.responseFormat?.name)).toEqual([finalAnswerName, finalAnswerName]);
    expect(model.requests[0]?.responseFormat?.schema).toMatchObject({ type: "object", required: ["city", "celsius"] });
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(["lookup"]);
  });

  it("sends an answer that is not JSON or breaks the schema back as a user message, then succeeds", async () => {
    const model = new FakeModel(["Sunny, 21 degrees", '{"city":"Vienna"}', '{"city":"Vienna","celsius":21}'], {
      supportsResponseFormat: true,
    });
    const result = await new Agent(model, new ToolRegistry(), { output: weather }).run("?");
    expect(result.output).toMatchObject({ celsius: 21 });
    expect(model.requests[1]?.messages.at(-1)?.content).toMatch(/not JSON.*JSON only/s);
    expect(model.requests[2]?.messages.at(-1)).toEqual({ role: "user", content: expect.stringMatching(/celsius: .*JSON only/s) });
    expect(result.turns).toBe(3);
  });

  it("wraps a schema that is not an object in the response format too, and unwraps the answer", async () => {
    const model = new FakeModel(['{"value":"blue"}'], { supportsResponseFormat: true });
    const result = await new Agent(model, new ToolRegistry(), { output: { type: "string", enum: ["red", "blue"] } }).run("?");
    expect(result.output).toBe("blue");
    expect(model.requests[0]?.responseFormat?.schema).toMatchObject({ properties: { value: { enum: ["red", "blue"] } } });
  });

  it("a model wrapped by withRetry keeps its native structured output", async () => {
    const fake = new FakeModel(['{"city":"Vienna","celsius":21}'], { supportsResponseFormat: true });
    const result = await new Agent(withRetry(fake), new ToolRegistry(), { output: weather }).run("?");
    expect(result.output).toMatchObject({ celsius: 21 });
    expect(fake.requests[0]?.responseFormat?.name).toBe(finalAnswerName);
  });

  it("in Plan-and-Solve, a text plan and the reply to a wrong answer neither end the run nor start a new plan", async () => {
    const model = new FakeModel(["1. Look it up.\n2. Answer.", '{"city":"Vienna"}', '{"city":"Vienna","celsius":21}'], {
      supportsResponseFormat: true,
    });
    const result = await new PlanAndSolveAgent(model, lookup(), { output: weather }).run("How warm is it in Vienna?");
    expect(result.output).toMatchObject({ celsius: 21 });
    expect(model.requests[2]?.tools.map((tool) => tool.name)).toEqual(["lookup"]); // still solving
    expect(model.requests[2]?.messages.at(-1)?.content).toMatch(/^Your answer does not match/);
    expect(result.steps.filter((step) => step.kind === "plan")).toHaveLength(2);
  });

  it("fails after the default two retries", async () => {
    const model = new FakeModel(["no", "no", "no"], { supportsResponseFormat: true });
    await expect(new Agent(model, new ToolRegistry(), { output: weather }).run("?")).rejects.toThrow(OutputValidationError);
    expect(model.requests).toHaveLength(3);
  });
});

describe("output schema misuse", () => {
  it("refuses a Standard Schema that cannot give its JSON Schema, saying what to pass", () => {
    const opaque = { "~standard": { version: 1, vendor: "acme", validate: (value: unknown) => ({ value }) } } as const;
    expect(() => new Agent(new FakeModel([]), new ToolRegistry(), { output: opaque })).toThrow(
      /acme schema cannot convert itself to JSON Schema.*Pass a JSON Schema object, or a schema from a library that implements Standard JSON Schema/,
    );
  });

  it("refuses a schema that is not an object, an unsafe pattern, a negative outputRetries, and a registry tool named final_answer", () => {
    const agent =
      (options: object, registry = new ToolRegistry()) =>
      () =>
        new Agent(new FakeModel([]), registry, options);
    expect(agent({ output: "string" })).toThrow(/output must be a JSON Schema object or a Standard Schema/);
    expect(agent({ output: { type: "string", pattern: "^(a+)+$" } })).toThrow(/Agent option output\/pattern: .*nested quantifiers/);
    expect(agent({ output: weather, outputRetries: -1 })).toThrow(/outputRetries must be a whole number/);
    expect(agent({ outputRetries: 1 })).toThrow(UsageError);
    const clash = new ToolRegistry().add({ name: finalAnswerName, description: "", parameters: { type: "object" }, execute: () => "" });
    expect(agent({ output: weather }, clash)).toThrow(/tool named "final_answer"/);
  });
});
