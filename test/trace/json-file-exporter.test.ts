import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent, FakeModel, ToolRegistry } from "../../src/index.js";
import { JsonFileExporter, parseTrace, readTraceFile } from "../../src/trace/json-file-exporter.js";
import { Tracer } from "../../src/trace/tracer.js";

const temporaryDirectory = () => mkdtempSync(join(tmpdir(), "minagent-trace-"));

describe("JsonFileExporter", () => {
  it("writes one file per run into a directory, named by start time and trace id", async () => {
    const directory = join(temporaryDirectory(), "traces");
    const exporter = new JsonFileExporter({ directory });
    const agent = new Agent(new FakeModel(["one", "two"]), new ToolRegistry(), {
      onEvent: new Tracer({ exporters: [exporter] }).listener(),
    });
    await agent.run("first");
    await agent.run("second");
    const files = readdirSync(directory).sort();
    expect(files).toHaveLength(2);
    for (const file of files) expect(file).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-[0-9a-f]{32}\.json$/);
    expect(exporter.written.map((path) => path.slice(directory.length + 1)).sort()).toEqual(files);
    const finals = files.map((file) => readTraceFile(join(directory, file)).spans[0]?.attributes["minagent.run.final"]);
    expect(finals.sort()).toEqual(["one", "two"]);
  });

  it("writes the documented format: format, version, traceId, spans with times and status", async () => {
    const path = join(temporaryDirectory(), "nested", "out.json");
    const agent = new Agent(new FakeModel(["hi"]), new ToolRegistry(), {
      onEvent: new Tracer({ exporters: [new JsonFileExporter({ path })] }).listener(),
    });
    await agent.run("hello");
    const text = readFileSync(path, "utf8");
    const json = JSON.parse(text);
    expect(Object.keys(json)).toEqual(["format", "version", "traceId", "spans"]);
    expect(Object.keys(json.spans[0])).toEqual([
      "spanId",
      "name",
      "type",
      "kind",
      "startTime",
      "endTime",
      "durationMs",
      "status",
      "attributes",
    ]);
    expect(Object.keys(json.spans[1])).toEqual([
      "spanId",
      "parentSpanId",
      "name",
      "type",
      "kind",
      "startTime",
      "endTime",
      "durationMs",
      "status",
      "attributes",
    ]);
    expect(parseTrace(text)).toEqual(json);
  });
});

describe("parseTrace", () => {
  it.each([
    ["{", /trace is not JSON/],
    ['{"spans": []}', /not a minagent trace/],
    ['{"format": "minagent-trace", "version": 2, "spans": []}', /version 2; this minagent reads version 1/],
    ['{"format": "minagent-trace", "version": 1, "spans": []}', /has no spans/],
  ])("rejects %s", (text, message) => {
    expect(() => parseTrace(text)).toThrow(message);
  });
});
