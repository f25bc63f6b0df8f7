import { createRequire } from "node:module";
import { describe, expect, expectTypeOf, it, vi } from "vitest";
import { z } from "zod";
import { checkToolParameters, defineTool, type ToolCall, ToolError, ToolRegistry, type ToolResult, UsageError } from "../../src/index.js";

/** Executes a call that must be answered (these tests declare no approvals): the observation. */
async function answer(registry: ToolRegistry, toolCall: ToolCall): Promise<ToolResult> {
  const outcome = await registry.execute(toolCall);
  if ("pending" in outcome) throw new Error(`unexpected pending call ${toolCall.name}`);
  return outcome;
}

const call = (name: string, args: unknown, id = "t1"): ToolCall => ({ id, name, arguments: args as Record<string, unknown> });

const addSchema = {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"],
  additionalProperties: false,
};

describe("ToolRegistry: registration", () => {
  it("add() is chainable and schemas() lists the tools in order", () => {
    const registry = new ToolRegistry()
      .add({ name: "add", description: "adds", parameters: addSchema, execute: () => 0 })
      .add({ name: "now", description: "time", parameters: { type: "object", properties: {} }, execute: () => "t" });
    expect(registry.schemas().map((schema) => schema.name)).toEqual(["add", "now"]);
    expect(registry.schemas()[0]).toEqual({ name: "add", description: "adds", parameters: addSchema });
    expect(registry.schemas()).toBe(registry.schemas()); // cached: no per-turn rebuilding
  });

  it("remove() takes a tool out of the schemas, and a later call to it is answered as unknown", async () => {
    const registry = new ToolRegistry()
      .add({ name: "add", description: "adds", parameters: addSchema, execute: () => 0 })
      .add({ name: "now", description: "time", parameters: { type: "object", properties: {} }, execute: () => "t" });
    const before = registry.schemas();
    expect(registry.remove("now")).toBe(true);
    expect(registry.remove("now")).toBe(false);
    expect(registry.schemas()).not.toBe(before);
    expect(registry.schemas().map((schema) => schema.name)).toEqual(["add"]);
    expect(await answer(registry, call("now", {}))).toMatchObject({ isError: true, content: expect.stringMatching(/^Unknown tool "now"/) });
    registry.add({ name: "now", description: "time again", parameters: { type: "object", properties: {} }, execute: () => "t2" });
    expect(await answer(registry, call("now", {}))).toMatchObject({ content: "t2" });
  });

  it("throws on a duplicate name, an invalid name, or parameters that are not an object schema", () => {
    const registry = new ToolRegistry().add({ name: "add", description: "", parameters: addSchema, execute: () => 0 });
    expect(() => registry.add({ name: "add", description: "", parameters: addSchema, execute: () => 0 })).toThrow(
      new UsageError('A tool named "add" is already registered; tool names must be unique.'),
    );
    expect(() => registry.add({ name: "has space", description: "", parameters: addSchema, execute: () => 0 })).toThrow(/invalid/);
    expect(() => registry.add({ name: "s", description: "", parameters: { type: "string" }, execute: () => 0 })).toThrow(
      /must describe an object/,
    );
    expect(() =>
      registry.add({
        name: "bad",
        description: "",
        parameters: { type: "object", properties: { x: { type: "nonsense" } } },
        execute: () => 0,
      }),
    ).toThrow('Tool "bad": parameters are not a valid JSON Schema: Unknown type: "nonsense" at #/properties/x');
    // A property that happens to be called "type" is a name, not the keyword.
    expect(() =>
      registry.add({
        name: "typed",
        description: "",
        parameters: { type: "object", properties: { type: { type: "string" } } },
        execute: () => 0,
      }),
    ).not.toThrow();
  });

  it("accepts the keywords and formats provider schemas carry, and checks the formats it knows", async () => {
    const registry = new ToolRegistry().add({
      name: "schedule",
      description: "",
      parameters: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: {
          when: { type: "string", format: "date-time", description: "ISO time", examples: ["2026-01-01T10:00:00Z"] },
          room: { type: "string", format: "room-code", "x-vendor": true },
          color: { enum: ["red", "blue"] },
        },
        required: ["when"],
      },
      execute: () => "scheduled",
    });
    expect(await registry.call(call("schedule", { when: "2026-01-01T10:00:00Z", room: "anything" }))).toBe("scheduled");
    expect(await registry.call(call("schedule", { when: "next tuesday", color: "green" }))).toBe(
      [
        'Invalid arguments for tool "schedule":',
        "- when: must be a valid date-time (rule: format)",
        '- color: must be one of ["red","blue"] (rule: enum)',
        "Fix the arguments to match the tool's schema and call it again.",
      ].join("\n"),
    );
  });

  it("validates nested arguments and reports the innermost reasons", async () => {
    const registry = new ToolRegistry().add({
      name: "book",
      description: "",
      parameters: {
        type: "object",
        properties: { guests: { type: "array", items: { type: "object", properties: { age: { type: "integer", minimum: 0 } } } } },
      },
      execute: () => "booked",
    });
    expect(await registry.call(call("book", { guests: [{ age: 30 }, { age: -1.5 }] }))).toBe(
      [
        'Invalid arguments for tool "book":',
        "- guests.1.age: must be integer (rule: type)",
        "Fix the arguments to match the tool's schema and call it again.",
      ].join("\n"),
    );
    expect(await registry.call(call("book", { guests: [{ age: 30 }] }))).toBe("booked");
    expect(await registry.call(call("book", { guests: [{ age: -1 }] }))).toMatch(/- guests\.0\.age: must be >= 0 \(rule: minimum\)/);
  });

  it("sends a zod tool's JSON Schema without the $schema dialect marker", () => {
    const registry = new ToolRegistry().add(
      defineTool({
        name: "weather",
        description: "w",
        parameters: z.object({ city: z.string().describe("City name") }),
        execute: () => "",
      }),
    );
    expect(registry.schemas()[0]?.parameters).toEqual({
      type: "object",
      properties: { city: { type: "string", description: "City name" } },
      required: ["city"],
    });
  });
});

describe("ToolRegistry: every bad model output becomes an observation", () => {
  it("arguments that break a JSON Schema name the field and the rule, and execute is not called", async () => {
    const execute = vi.fn(() => 0);
    const registry = new ToolRegistry().add({ name: "add", description: "", parameters: addSchema, execute });
    const result = await answer(registry, call("add", { a: "one", c: 1 }));
    expect(result.isError).toBe(true);
    expect(result.content).toBe(
      [
        'Invalid arguments for tool "add":',
        "- b: is required but missing (rule: required)",
        "- a: must be number (rule: type)",
        "- c: is not an allowed argument (rule: additionalProperties)",
        "Fix the arguments to match the tool's schema and call it again.",
      ].join("\n"),
    );
    expect(execute).not.toHaveBeenCalled();
  });

  it("arguments that break a zod schema name the field and zod's message; valid ones arrive parsed", async () => {
    const execute = vi.fn(({ city, days }: { city: string; days: number }) => `${city}:${days}`);
    const registry = new ToolRegistry().add(
      defineTool({
        name: "forecast",
        description: "",
        parameters: z.object({ city: z.string().min(2), days: z.coerce.number().int().default(1) }),
        execute,
      }),
    );
    const bad = await answer(registry, call("forecast", { city: 7 }));
    expect(bad).toEqual({ isError: true, content: expect.stringContaining("city: Invalid input: expected string, received number") });
    expect(execute).not.toHaveBeenCalled();
    expect(await registry.call(call("forecast", { city: "Rome", days: "3" }))).toBe("Rome:3");
    expect(await registry.call(call("forecast", { city: "Oslo" }))).toBe("Oslo:1");
  });

  it("infers execute's argument types from a zod schema", () => {
    defineTool({
      name: "typed",
      description: "",
      parameters: z.object({ city: z.string(), days: z.number().optional() }),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; days?: number | undefined }>();
        return args.city;
      },
    });
  });

  it("a tool the registry does not have names it and lists the available tools", async () => {
    const registry = new ToolRegistry()
      .add({ name: "add", description: "", parameters: addSchema, execute: () => 0 })
      .add({ name: "now", description: "", parameters: { type: "object" }, execute: () => 0 });
    expect(await answer(registry, call("delete_everything", {}))).toEqual({
      isError: true,
      content: 'Unknown tool "delete_everything". Available tools: add, now.',
    });
    expect((await answer(new ToolRegistry(), call("x", {}))).content).toBe('Unknown tool "x". No tools are available.');
  });

  it("arguments that are not an object are refused before validation", async () => {
    const registry = new ToolRegistry().add({ name: "add", description: "", parameters: addSchema, execute: () => 0 });
    for (const [args, said] of [
      [null, "null"],
      [[1, 2], "an array"],
      ["{a:1}", "a string"],
    ] as const) {
      const result = await answer(registry, call("add", args));
      expect(result.content).toBe(
        `Invalid arguments for tool "add": expected a JSON object, got ${said}. Call it again with an object matching its schema.`,
      );
    }
  });

  it("a throw or a rejection becomes an observation with the error's message", async () => {
    const registry = new ToolRegistry()
      .add({
        name: "sync",
        description: "",
        parameters: { type: "object" },
        execute: () => {
          throw new TypeError("boom");
        },
      })
      .add({ name: "async", description: "", parameters: { type: "object" }, execute: async () => Promise.reject(new Error("disk full")) })
      .add({
        name: "chosen",
        description: "",
        parameters: { type: "object" },
        execute: () => {
          throw new ToolError("No such file: a.txt. Try list_files first.");
        },
      })
      .add({
        name: "odd",
        description: "",
        parameters: { type: "object" },
        execute: () => {
          throw { code: 42 };
        },
      });
    expect(await answer(registry, call("sync", {}))).toEqual({ isError: true, content: "TypeError: boom" });
    expect(await answer(registry, call("async", {}))).toEqual({ isError: true, content: "Error: disk full" });
    expect(await answer(registry, call("chosen", {}))).toEqual({ isError: true, content: "No such file: a.txt. Try list_files first." });
    expect(await answer(registry, call("odd", {}))).toEqual({ isError: true, content: 'Error: {"code":42}' });
  });

  it("a tool past its timeout becomes an observation, and its signal is aborted", async () => {
    let signal: AbortSignal | undefined;
    const registry = new ToolRegistry({ timeoutMs: 5_000 }).add({
      name: "slow",
      description: "",
      parameters: { type: "object" },
      timeoutMs: 30,
      execute: (_args, context) => {
        signal = context.signal;
        return new Promise(() => {}); // never settles
      },
    });
    const started = performance.now();
    const result = await answer(registry, call("slow", {}));
    expect(result).toEqual({ isError: true, content: 'Tool "slow" timed out after 30 ms and was abandoned.' });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(signal?.aborted).toBe(true);
  });

  it("uses the registry's default timeout for tools without their own", async () => {
    const registry = new ToolRegistry({ timeoutMs: 20 }).add({
      name: "slow",
      description: "",
      parameters: { type: "object" },
      execute: () => new Promise(() => {}),
    });
    expect((await answer(registry, call("slow", {}))).content).toBe('Tool "slow" timed out after 20 ms and was abandoned.');
  });

  it("passes the tool call id and a live signal in the context", async () => {
    const registry = new ToolRegistry().add({
      name: "ctx",
      description: "",
      parameters: { type: "object" },
      execute: (_args, context) => ({ id: context.toolCallId, aborted: context.signal.aborted }),
    });
    expect(await registry.call(call("ctx", {}, "call_9"))).toBe('{"id":"call_9","aborted":false}');
  });

  it("serialises non-string results as JSON and truncates long ones with a marker", async () => {
    const registry = new ToolRegistry({ maxResultLength: 10 })
      .add({ name: "object", description: "", parameters: { type: "object" }, execute: () => ({ ok: 1 }) })
      .add({ name: "nothing", description: "", parameters: { type: "object" }, execute: () => undefined })
      .add({ name: "long", description: "", parameters: { type: "object" }, execute: () => "x".repeat(25) })
      .add({ name: "big", description: "", parameters: { type: "object" }, execute: () => 10n });
    expect(await answer(registry, call("object", {}))).toEqual({ isError: false, content: '{"ok":1}' });
    expect(await registry.call(call("nothing", {}))).toBe("");
    expect(await registry.call(call("long", {}))).toBe(`${"x".repeat(10)}\n…[truncated 15 of 25 characters]`);
    expect(await registry.call(call("big", {}))).toBe("10");
  });

  it("never splits a surrogate pair when truncating", async () => {
    const registry = new ToolRegistry({ maxResultLength: 3 }).add({
      name: "emoji",
      description: "",
      parameters: { type: "object" },
      execute: () => "ab😀cd",
    });
    expect(await registry.call(call("emoji", {}))).toBe("ab\n…[truncated 4 of 6 characters]");
  });

  it("a permission check can refuse a call; execute is then not called", async () => {
    const execute = vi.fn(() => "written");
    const registry = new ToolRegistry()
      .add({ name: "write", description: "", parameters: { type: "object" }, execute })
      .addCheck((toolCall) =>
        toolCall.name === "write" ? { behavior: "deny", message: "Writing is not allowed now." } : { behavior: "allow" },
      );
    expect(await answer(registry, call("write", {}))).toEqual({ isError: true, content: "Writing is not allowed now." });
    expect(execute).not.toHaveBeenCalled();
  });

  it("rejects invalid registry options", () => {
    expect(() => new ToolRegistry({ timeoutMs: 0 })).toThrow(/timeoutMs must be a positive number of milliseconds/);
    expect(() => new ToolRegistry({ maxResultLength: -1 })).toThrow(/maxResultLength/);
  });
});

describe("ToolRegistry: a schema is compiled once", () => {
  it("checked with checkToolParameters (as MCP does when a server lists it), then added to two registries: one compilation", async () => {
    const schemasafe = createRequire(import.meta.url)("@exodus/schemasafe") as typeof import("@exodus/schemasafe");
    const compile = vi.spyOn(schemasafe, "validator");
    try {
      const parameters = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
      checkToolParameters("count", parameters);
      const tool = { name: "count", description: "", parameters, execute: ({ n }: { n: number }) => `n=${n}` };
      const first = new ToolRegistry().add(tool);
      const second = new ToolRegistry().add({ ...tool, name: "count_again" });
      expect(compile).toHaveBeenCalledTimes(1);
      // The one validator serves both, with each registry's tool name in its observations.
      expect(await first.call(call("count", { n: 2 }))).toBe("n=2");
      expect(await second.call(call("count_again", {}))).toMatch(
        /^Invalid arguments for tool "count_again":\n- n: is required but missing/,
      );
      // Other parameters (even equal ones) are another object: compiled on their own.
      new ToolRegistry().add({ ...tool, parameters: { ...parameters } });
      expect(compile).toHaveBeenCalledTimes(2);
    } finally {
      compile.mockRestore();
    }
  });

  it("checkToolParameters throws what add() would, and keeps nothing of a schema that fails", () => {
    const parameters = { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } };
    expect(() => checkToolParameters("t", parameters)).toThrow(UsageError);
    expect(() => checkToolParameters("t", parameters)).toThrow(
      /^Tool "t": parameters\/properties\/s\/pattern: the pattern "\^\(a\+\)\+\$" has nested/,
    );
    expect(() => new ToolRegistry().add({ name: "u", description: "", parameters, execute: () => "" })).toThrow(/^Tool "u": parameters/);
  });
});

describe("ToolRegistry: a tool that compiles on its first call (compileOnFirstCall)", () => {
  it("is added without compiling; its first call compiles once and validates as any tool's", async () => {
    const schemasafe = createRequire(import.meta.url)("@exodus/schemasafe") as typeof import("@exodus/schemasafe");
    const compile = vi.spyOn(schemasafe, "validator");
    try {
      const parameters = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
      const registry = new ToolRegistry().add({
        name: "count",
        description: "",
        parameters,
        compileOnFirstCall: true,
        execute: ({ n }: { n: number }) => `n=${n}`,
      });
      expect(compile).not.toHaveBeenCalled();
      // The model is sent the schema as given.
      expect(registry.schemas()[0]?.parameters).toBe(parameters);
      expect(await registry.call(call("count", { n: "2" }))).toMatch(/^Invalid arguments for tool "count":\n- n: must be number/);
      expect(await registry.call(call("count", { n: 2 }))).toBe("n=2");
      expect(compile).toHaveBeenCalledTimes(1);
    } finally {
      compile.mockRestore();
    }
  });

  it("still refuses at add() parameters that do not describe an object; an invalid schema is the first call's failure", async () => {
    const add = (parameters: Record<string, unknown>) =>
      new ToolRegistry().add({ name: "t", description: "", parameters, compileOnFirstCall: true, execute: () => "ran" });
    expect(() => add({ type: "string" })).toThrow(/^Tool "t": parameters must describe an object/);
    const registry = add({ type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } });
    const outcome = await registry.execute(call("t", { s: "a" }));
    expect(outcome).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^UsageError: Tool "t": parameters\/properties\/s\/pattern: the pattern/),
    });
  });
});
