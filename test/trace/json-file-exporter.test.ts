import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent, FakeModel, ToolRegistry } from "../../src/index.js";
import { JsonFileExporter, parseTrace, readTraceFile } from "../../src/trace/json-file-exporter.js";
import type { Trace } from "../../src/trace/trace.js";
import { Tracer } from "../../src/trace/tracer.js";
import { temporaryFolder } from "../helpers/temporary-folder.js";

const temporaryDirectory = () => temporaryFolder("minagent-trace-");

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

/** A one-span trace, as a hand-built or foreign one could be. */
function traceWithId(traceId: string, startTime = 1_796_005_895_358.412): Trace {
  return {
    format: "minagent-trace",
    version: 1,
    traceId,
    spans: [
      {
        spanId: "1f2e3d4c5b6a7980",
        name: "invoke_agent",
        type: "run",
        kind: "internal",
        startTime,
        endTime: startTime + 1,
        durationMs: 1,
        status: { code: "ok" },
        attributes: {},
      },
    ],
  };
}

const hexId = (index: number) => index.toString(16).padStart(32, "0");

describe("JsonFileExporter never writes outside its directory", () => {
  it.each([
    "../../escaped",
    `${"../".repeat(8)}tmp/escaped`,
    "a/b",
    "a\\b",
    "..",
    "0123456789abcdef0123456789abcdef\u0000.json",
    "0123456789abcdef0123456789abcdeg",
    "0123456789abcdef0123456789abcde",
    "",
  ])("refuses the trace id %j (not 32 hex digits), writing nothing", (traceId) => {
    const parent = temporaryDirectory();
    const directory = join(parent, "traces");
    const exporter = new JsonFileExporter({ directory });
    expect(() => exporter.export(traceWithId(traceId))).toThrow(/trace id .* is not 32 hex digits; the trace was not written/);
    expect(readdirSync(parent)).toEqual([]);
    expect(exporter.written).toEqual([]);
  });

  it("through a Tracer, a refused trace is reported to onError and the run is unharmed", async () => {
    const directory = temporaryDirectory();
    const errors: unknown[] = [];
    const exporter = new JsonFileExporter({ directory, fileName: () => "../outside.json" });
    const tracer = new Tracer({ exporters: [exporter], onError: (error) => errors.push(error) });
    const result = await new Agent(new FakeModel(["hi"]), new ToolRegistry(), { onEvent: tracer.listener() }).run("hello");
    expect(result.final).toBe("hi");
    expect(String(errors[0])).toMatch(/"\.\.\/outside\.json" is not a plain file name/);
    expect(existsSync(join(directory, "..", "outside.json"))).toBe(false);
  });

  it.each(["../x.json", "a/b.json", "a\\b.json", ".", "..", "", "x\u0000.json", "line\nbreak.json", "x".repeat(256)])(
    "refuses the file name %j",
    (name) => {
      const parent = temporaryDirectory();
      const exporter = new JsonFileExporter({ directory: join(parent, "traces"), fileName: () => name });
      expect(() => exporter.export(traceWithId(hexId(1)))).toThrow(/is not a plain file name; the trace was not written/);
      expect(readdirSync(parent)).toEqual([]);
    },
  );

  it("writes a chosen plain file name inside the directory, and never replaces a file or follows a planted link", () => {
    const parent = temporaryDirectory();
    const directory = join(parent, "traces");
    const exporter = new JsonFileExporter({ directory, fileName: (trace) => `run-${trace.traceId.slice(0, 8)}.json` });
    exporter.export(traceWithId(hexId(1)));
    expect(readdirSync(directory)).toEqual(["run-00000000.json"]);
    expect(exporter.written).toEqual([join(directory, "run-00000000.json")]);
    expect(() => exporter.export(traceWithId(hexId(2)))).toThrow(/EEXIST/);
    expect(readTraceFile(join(directory, "run-00000000.json")).traceId).toBe(hexId(1));
    mkdirSync(join(parent, "elsewhere"));
    symlinkSync(join(parent, "elsewhere", "target.json"), join(directory, "link.json"));
    const linked = new JsonFileExporter({ directory, fileName: () => "link.json" });
    expect(() => linked.export(traceWithId(hexId(3)))).toThrow(/EEXIST/);
    expect(readdirSync(join(parent, "elsewhere"))).toEqual([]);
  });

  it("names a trace with an unusable start time by the current time", () => {
    const directory = temporaryDirectory();
    new JsonFileExporter({ directory }).export(traceWithId(hexId(1), Number.NaN));
    new JsonFileExporter({ directory }).export(traceWithId(hexId(2), 1e300));
    expect(readdirSync(directory)).toHaveLength(2);
  });

  it("needs a directory or a path", () => {
    expect(() => new JsonFileExporter({} as never)).toThrow(/needs a directory/);
  });
});

describe("JsonFileExporter.written", () => {
  it("keeps only the latest paths (100 by default, or keepWritten), oldest first", () => {
    const directory = temporaryDirectory();
    const exporter = new JsonFileExporter({ directory });
    for (let index = 0; index < 150; index++) exporter.export(traceWithId(hexId(index)));
    expect(readdirSync(directory)).toHaveLength(150);
    expect(exporter.written).toHaveLength(100);
    expect(exporter.written[0]).toMatch(new RegExp(`${hexId(50)}\\.json$`));
    expect(exporter.written[99]).toMatch(new RegExp(`${hexId(149)}\\.json$`));
    const three = new JsonFileExporter({ directory: temporaryDirectory(), keepWritten: 3 });
    for (let index = 0; index < 10; index++) three.export(traceWithId(hexId(index)));
    expect(three.written.map((path) => path.slice(-37, -5))).toEqual([hexId(7), hexId(8), hexId(9)]);
    const none = new JsonFileExporter({ directory: temporaryDirectory(), keepWritten: 0 });
    none.export(traceWithId(hexId(1)));
    expect(none.written).toEqual([]);
  });

  it("lists a file written again (the path mode) once", () => {
    const path = join(temporaryDirectory(), "out.json");
    const exporter = new JsonFileExporter({ path });
    for (let index = 0; index < 5; index++) exporter.export(traceWithId(hexId(index)));
    expect(exporter.written).toEqual([path]);
    expect(readTraceFile(path).traceId).toBe(hexId(4));
  });
});

describe("parseTrace", () => {
  it.each([
    ["{", /trace is not JSON/],
    ['{"spans": []}', /not a minagent trace/],
    ['{"format": "minagent-trace", "version": 2, "spans": []}', /version 2; this minagent reads version 1/],
    ['{"format": "minagent-trace", "version": 1, "spans": []}', /has no traceId/],
    ['{"format": "minagent-trace", "version": 1, "traceId": "ab", "spans": []}', /has no spans/],
    ['{"format": "minagent-trace", "version": 1, "traceId": "ab", "spans": [null]}', /span 0 is not an object/],
    ['{"format": "minagent-trace", "version": 1, "traceId": "ab", "spans": [{"spanId": "a", "name": "x"}]}', /span 0 has no startTime/],
    [
      '{"format": "minagent-trace", "version": 1, "traceId": "ab", "spans": [' +
        '{"spanId": "a", "name": "x", "startTime": 1, "endTime": 2, "durationMs": 1, "status": {"code": "ok"}, "attributes": {}},' +
        '{"spanId": "a", "parentSpanId": "a", "name": "x", "startTime": 1, "endTime": 2, "durationMs": 1, "status": {"code": "ok"}, "attributes": {}}]}',
      /span 1 has the spanId "a" of span 0/,
    ],
  ])("rejects %s", (text, message) => {
    expect(() => parseTrace(text)).toThrow(message);
  });

  it("readTraceFile names the file: missing, a directory, or unreadable", () => {
    const directory = temporaryDirectory();
    expect(() => readTraceFile(join(directory, "nope.json"))).toThrow(/nope\.json: no such file$/);
    expect(() => readTraceFile(directory)).toThrow(/: is a directory, not a trace file$/);
    writeFileSync(join(directory, "bad.json"), "{");
    expect(() => readTraceFile(join(directory, "bad.json"))).toThrow(/bad\.json is not JSON/);
  });
});
