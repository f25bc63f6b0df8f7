import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Agent, FakeModel, ToolRegistry, type ToolResult } from "../../src/index.js";
import { toolCall } from "../../src/testing/index.js";
import { ConsoleTraceExporter } from "../../src/trace/console-trace-exporter.js";
import { MemoryTraceExporter } from "../../src/trace/memory-trace-exporter.js";
import { createSecretScrubber } from "../../src/trace/scrub-secrets.js";
import { Tracer } from "../../src/trace/tracer.js";

describe("what docs/testing.md and docs/tracing.md promise", () => {
  const registry = new ToolRegistry().add({
    name: "weather",
    description: "Current weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: ({ city }) => (city === "北京" ? "晴 24°C" : "未知"),
  });

  it("a tool is unit-tested through the registry, bad arguments included", async () => {
    expect(await registry.call(toolCall("weather", { city: "北京" }))).toBe("晴 24°C");
    const result = (await registry.execute(toolCall("weather", { town: "北京" }))) as ToolResult;
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/city/);
  });

  it("the console exporter prints each run's tree", async () => {
    const printed: string[] = [];
    const tracer = new Tracer({
      exporters: [new ConsoleTraceExporter({ write: (text) => printed.push(text), timelineWidth: 0 }), new MemoryTraceExporter()],
    });
    await new Agent(new FakeModel(["hello"]), registry, { onEvent: tracer.listener() }).run("hi");
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(/invoke_agent {2}✓ completed in 1 turn\n.*└─ turn 0\n.* {3}└─ chat fake-model {2}end_turn\n$/);
  });

  it("the secrets section's examples: what becomes what, and the prose that stays", () => {
    const docs = readFileSync(new URL("../../docs/tracing.md", import.meta.url), "utf8");
    const section = docs.slice(docs.indexOf("## Secrets and payload size"), docs.indexOf("Every hidden value becomes"));
    const scrubber = createSecretScrubber({ secretKeys: ["sessionId"] });
    const becomes = [...section.matchAll(/`([^`]+)` becomes\s+`([^`]+)`/g)];
    expect(becomes.length).toBeGreaterThan(0);
    for (const [, input, output] of becomes) expect(scrubber.text(input as string)).toBe(output);
    // Quoted prose ("Bearer responsibilities") and the listed lookalikes survive.
    const prose = [...section.matchAll(/"([^"]+)"/g)].map((match) => match[1] as string).filter((text) => !text.includes(" words"));
    expect(prose).toEqual(expect.arrayContaining(["Bearer responsibilities", "Basic principles", "The secret: practice"]));
    for (const text of [...prose, "UUIDs", "Asia", "sk-short"]) expect(scrubber.text(text)).toBe(text);
    // Named credentials, as the list spells them.
    for (const name of ["OPENAI_API_KEY=", "GITHUB_TOKEN=", "JWT_SECRET=", "authToken: ", "aws_secret_access_key = ", "x-api-key: "]) {
      expect(section).toContain(name);
      expect(scrubber.text(`${name}abc123`)).toBe(`${name}[redacted]`);
    }
    const keys = {
      auth_token: 1,
      sessionToken: 1,
      "X-Api-Key": 1,
      secret_key: 1,
      private_key: 1,
      aws_secret_access_key: 1,
      "set-cookie": 1,
    };
    for (const key of Object.keys(keys)) expect(section).toContain(`\`${key}\``);
    expect(Object.values(JSON.parse(scrubber.payload({ ...keys, session_id: 1 })))).toEqual(Array(8).fill("[redacted]"));
    expect(JSON.parse(scrubber.payload({ eos_token: "</s>", max_token: 1, next_page_token: "p" }))).toEqual({
      eos_token: "</s>",
      max_token: 1,
      next_page_token: "p",
    });
  });
});
