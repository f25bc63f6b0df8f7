import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Agent, FakeModel, type ToolCall, ToolRegistry, UsageError } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

const call = (name: string, args: unknown): ToolCall => ({ id: "t", name, arguments: args as Record<string, unknown> });
const anyObject = { type: "object" } as const;

async function observe(registry: ToolRegistry, toolCall: ToolCall) {
  const outcome = await registry.execute(toolCall);
  if ("pending" in outcome) throw new Error("unexpected pending call");
  return outcome;
}

describe("hostile tool results and errors", () => {
  it("an error observation obeys the same length limit as a result", async () => {
    const registry = new ToolRegistry({ maxResultLength: 100 }).add({
      name: "loud",
      description: "",
      parameters: anyObject,
      execute: () => {
        throw new Error("x".repeat(1_000_000));
      },
    });
    const { content, isError } = await observe(registry, call("loud", {}));
    expect(isError).toBe(true);
    expect(content).toBe(`Error: ${"x".repeat(93)}\n…[truncated 999907 of 1000007 characters]`);
  });

  it("cyclic objects, Maps, Sets and Errors become readable text, not [object Object] or {}", async () => {
    const cyclic: Record<string, unknown> = { name: "root" };
    cyclic.self = cyclic;
    const results: Record<string, unknown> = {
      cyclic,
      map: new Map<string, unknown>([
        ["a", 1],
        ["b", new Set(["x", "y"])],
      ]),
      set: new Set([1, 2]),
      error: Object.assign(new Error("disk full"), { code: "ENOSPC" }),
      nested: { failure: new TypeError("bad input") },
    };
    const registry = new ToolRegistry();
    for (const [name, value] of Object.entries(results))
      registry.add({ name, description: "", parameters: anyObject, execute: () => value });
    const text = async (name: string) => (await observe(registry, call(name, {}))).content;
    expect(await text("cyclic")).toBe('{"name":"root","self":"[Circular]"}');
    expect(await text("map")).toBe('{"a":1,"b":["x","y"]}');
    expect(await text("set")).toBe("[1,2]");
    expect(await text("error")).toBe('Error: disk full {"code":"ENOSPC"}');
    expect(await text("nested")).toBe('{"failure":{"name":"TypeError","message":"bad input"}}');
  });
});

describe("argument validation cannot block the process", () => {
  it("arguments nested thousands deep are refused with an observation before validation, and the run goes on", async () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    const execute = vi.fn(() => "ran");
    const registry = new ToolRegistry().add({ name: "tree", description: "", parameters: anyObject, execute });
    const model = new FakeModel([reply("", { id: "d", name: "tree", arguments: deep }), "recovered"]);
    const result = await new Agent(model, registry).run("go");
    expect(result.messages[2]).toMatchObject({
      isError: true,
      // The words a provider's response is refused with (createToolCall): one check, one message.
      content:
        'Invalid arguments for tool "tree": the arguments are nested more than 64 levels deep. Send flatter arguments. Call it again with a JSON object matching its schema.',
    });
    expect(execute).not.toHaveBeenCalled();
    expect(result.final).toBe("recovered");
  });

  it("arguments holding more characters than allowed are refused (default 1,000,000; configurable)", async () => {
    const registry = new ToolRegistry({ maxArgumentsLength: 1000 }).add({
      name: "echo",
      description: "",
      parameters: anyObject,
      execute: () => "ok",
    });
    expect((await observe(registry, call("echo", { text: "x".repeat(2000) }))).content).toMatch(
      /the arguments are over 1,000 characters long; at most 1,000 are accepted/,
    );
    expect((await observe(registry, call("echo", { text: "x".repeat(900) }))).content).toBe("ok");
    const byDefault = new ToolRegistry().add({ name: "echo", description: "", parameters: anyObject, execute: () => "ok" });
    expect((await observe(byDefault, call("echo", { text: "x".repeat(1_000_001) }))).isError).toBe(true);
  });

  it("add() refuses a regular expression with nested quantifiers, in pattern or patternProperties", () => {
    const add = (parameters: Record<string, unknown>) => () =>
      new ToolRegistry().add({ name: "t", description: "", parameters, execute: () => "" });
    expect(add({ type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } })).toThrow(
      new UsageError(
        'Tool "t": parameters/properties/s/pattern: the pattern "^(a+)+$" has nested quantifiers and can take exponential time on a short string; rewrite it without a repeated group that repeats.',
      ),
    );
    expect(add({ type: "object", patternProperties: { "^(x+x+)+y$": {} } })).toThrow(
      /patternProperties: the pattern "\^\(x\+x\+\)\+y\$" has nested quantifiers/,
    );
    expect(add({ type: "object", properties: { s: { type: "string", pattern: "^[a-z0-9-]{1,40}$" } } })).not.toThrow();
    // Data is not a rule: a "pattern" inside an example value is left alone.
    expect(add({ type: "object", examples: [{ pattern: "^(a+)+$" }] })).not.toThrow();
  });

  it("add() refuses uniqueItems over objects without a maxItems of at most 1,000; primitive items need none", () => {
    const add =
      (items: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      () =>
        new ToolRegistry().add({
          name: "t",
          description: "",
          parameters: { type: "object", properties: { list: { type: "array", uniqueItems: true, items, ...extra } } },
          execute: () => "",
        });
    expect(add({ type: "object" })).toThrow(
      /uniqueItems over objects or arrays compares every pair of items; give the array a maxItems of at most 1000 \(it has none\)/,
    );
    expect(add({ type: "object" }, { maxItems: 100_000 })).toThrow(/it has 100000/);
    expect(add({ type: "object" }, { maxItems: 50 })).not.toThrow();
    expect(add({ type: "string" })).not.toThrow();
  });

  it("a uniqueItems check stays fast at its limit (1,000 objects)", async () => {
    const registry = new ToolRegistry().add({
      name: "t",
      description: "",
      parameters: { type: "object", properties: { list: { type: "array", uniqueItems: true, maxItems: 1000, items: { type: "object" } } } },
      execute: () => "ok",
    });
    const list = Array.from({ length: 5000 }, (_, i) => ({ i }));
    // Over maxItems: refused by the rule, without comparing 12.5 million pairs.
    expect((await observe(registry, call("t", { list }))).content).toMatch(/list: must have at most 1000 items/);
  });

  it("add() refuses a $ref that leads back to itself, and accepts a recursive schema that descends", () => {
    const add = (parameters: Record<string, unknown>) => () =>
      new ToolRegistry().add({ name: "t", description: "", parameters, execute: () => "" });
    expect(add({ type: "object", properties: { a: { $ref: "#/$defs/x" } }, $defs: { x: { $ref: "#/$defs/x" } } })).toThrow(
      /parameters\/\$defs\/x\/\$ref: the reference "#\/\$defs\/x" leads back to itself without descending/,
    );
    expect(add({ type: "object", $ref: "#" })).toThrow(UsageError);
    expect(
      add({
        type: "object",
        $defs: { a: { allOf: [{ $ref: "#/$defs/b" }] }, b: { $ref: "#/$defs/a" } },
        properties: { p: { $ref: "#/$defs/a" } },
      }),
    ).toThrow(/leads back to itself/);
    expect(
      add({ type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#" } } } }),
    ).not.toThrow();
  });

  it("a zod tool whose parameters are not an object is refused by add(), like the JSON Schema equivalent", () => {
    const add = (parameters: z.ZodType) => () => new ToolRegistry().add({ name: "t", description: "", parameters, execute: () => "" });
    expect(add(z.string())).toThrow(
      new UsageError(
        'Tool "t": parameters must describe an object, but this zod schema is of type "string". Use z.object({ … }) and put single values in its properties.',
      ),
    );
    expect(add(z.union([z.string(), z.number()]))).toThrow(/this zod schema is of type \["string","number"\]/);
    expect(add(z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]))).toThrow(/this zod schema is a union/);
    expect(add(z.object({ s: z.string().regex(/^(a+)+$/) }))).toThrow(/nested quantifiers/);
    expect(add(z.object({ city: z.string() }))).not.toThrow();
  });
});

describe("listeners and signals", () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  afterEach(() => {
    process.off("warning", onWarning);
    warnings.length = 0;
  });

  it("a listener that throws is reported as a warning; the run, the other listeners and the tools go on", async () => {
    process.on("warning", onWarning);
    const seen: string[] = [];
    const registry = new ToolRegistry().add({ name: "slow", description: "", parameters: anyObject, execute: async () => "done" });
    const model = new FakeModel([reply("", toolCall("slow", {}, "s")), "finished"]);
    const agent = new Agent(model, registry, {
      onEvent: (event) => {
        if (event.type === "tool-call-start") throw new Error("listener bug");
      },
    });
    const result = await agent.run("go", { onEvent: (event) => seen.push(event.type) });
    await new Promise((resolve) => setImmediate(resolve));
    expect(result.final).toBe("finished");
    expect(seen).toContain("tool-call-end");
    expect(warnings.map((warning) => [warning.name, warning.message])).toEqual([
      ["MinagentListenerWarning", 'An event listener threw on "tool-call-start" (the run goes on): Error: listener bug'],
    ]);
  });

  it.each([8, 16])("a run with a signal executing %i async tools at once adds no MaxListenersExceededWarning", async (count) => {
    process.on("warning", onWarning);
    const registry = new ToolRegistry().add({
      name: "wait",
      description: "",
      parameters: anyObject,
      execute: () => new Promise((resolve) => setTimeout(() => resolve("ok"), 5)),
    });
    const calls = Array.from({ length: count }, (_, i) => toolCall("wait", {}, `w${i}`));
    const signal = new AbortController().signal;
    const agent = new Agent(new FakeModel([reply("", ...calls), "done", reply("", ...calls), "done"]), registry, {
      toolConcurrency: count,
      signal,
    });
    await agent.run("go");
    await agent.run("again"); // the agent's signal is shared by its runs: no listener stays behind
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
  });
});
