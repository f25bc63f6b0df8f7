// Every option type of minagent/trace and minagent/otel accepts an explicit `undefined` for an optional
// field, as `{ maxPayloadLength: config.maxPayload }` needs under exactOptionalPropertyTypes (which this
// project's tsconfig, and so `npm test`'s type check, turns on): a missing `| undefined`, or an optional
// field added without being listed here, makes this file fail to compile. At run time an explicit
// undefined means the default.

import { readdirSync } from "node:fs";
import { join } from "node:path";
import { trace as otelTrace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent, FakeModel, ToolRegistry } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import {
  ConsoleTraceExporter,
  type ConsoleTraceExporterOptions,
  createSecretScrubber,
  type FormatTraceTreeOptions,
  formatTraceTree,
  type JsonDirectoryOptions,
  JsonFileExporter,
  type JsonPathOptions,
  MemoryTraceExporter,
  parseTrace,
  type ScrubOptions,
  type Trace,
  type TraceExporter,
  Tracer,
  type TracerOptions,
  type TraceSubject,
} from "../../src/trace/index.js";
import { OpenTelemetryExporter, type OpenTelemetryExporterOptions } from "../../src/trace/otel/index.js";
import { temporaryFolder } from "../helpers/temporary-folder.js";

/** The optional fields of T (those a caller may leave out). */
type OptionalKeys<T> = { [K in keyof T]-?: Pick<T, K> extends Required<Pick<T, K>> ? never : K }[keyof T];
/** Every optional field of T, each given as undefined; the required ones are not in it. */
type AllUndefined<T> = Required<{ [K in OptionalKeys<T>]: undefined }>;

const scrubOptions: AllUndefined<ScrubOptions> = { secrets: undefined, secretKeys: undefined, maxPayloadLength: undefined };
const tracerOptions: AllUndefined<TracerOptions> = { ...scrubOptions, recordPayloads: undefined, now: undefined, onError: undefined };
const subject: AllUndefined<TraceSubject> = { model: undefined, agentName: undefined };
const treeOptions: AllUndefined<FormatTraceTreeOptions> = { timelineWidth: undefined, previewLength: undefined };
const consoleOptions: AllUndefined<ConsoleTraceExporterOptions> = { ...treeOptions, write: undefined };
const directoryOptions: AllUndefined<JsonDirectoryOptions> = { path: undefined, fileName: undefined, keepWritten: undefined };
const pathOptions: AllUndefined<JsonPathOptions> = { directory: undefined, fileName: undefined, keepWritten: undefined };
const otelOptions: AllUndefined<OpenTelemetryExporterOptions> = { tracer: undefined, tracerProvider: undefined };

const key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";

/** A run whose tool returns 9,000 characters holding a key, traced by a tracer made with `options`. */
async function tracedRun(options: TracerOptions, listenerSubject: TraceSubject = subject): Promise<void> {
  const registry = new ToolRegistry().add({
    name: "dump",
    description: "",
    parameters: { type: "object" },
    execute: () => `${key} ${"y".repeat(9_000)}`,
  });
  const tracer = new Tracer(options);
  await new Agent(new FakeModel([reply("", toolCall("dump", {}, "c1")), "ok"]), registry, {
    onEvent: tracer.listener(listenerSubject),
  }).run("go");
  await tracer.flush();
}

afterEach(() => {
  vi.restoreAllMocks();
  otelTrace.disable();
});

describe("trace options given as explicit undefined behave as if left out", () => {
  it("Tracer and ScrubOptions: payloads recorded, scrubbed and cut at 8,000 characters; the real clock", async () => {
    const memory = new MemoryTraceExporter();
    const before = Date.now();
    await tracedRun({ exporters: [memory], ...tracerOptions });
    const [trace] = memory.traces as [Trace];
    const result = trace.spans.find((span) => span.type === "tool-execution")?.attributes["gen_ai.tool.call.result"];
    expect(result).toMatch(/^\[redacted\] y+\n…\[truncated \d+ of 9011 characters\]$/);
    expect((result as string).indexOf("\n")).toBe(8_000);
    expect(trace.spans[0]?.startTime).toBeGreaterThanOrEqual(before - 1);
    expect(createSecretScrubber(scrubOptions).text("x".repeat(8_001))).toMatch(/^x{8000}\n…\[truncated 1 of 8001 characters\]$/);
  });

  it("Tracer: a failing exporter is a process warning (the default onError)", async () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
    const failing: TraceExporter = {
      export: () => {
        throw new Error("disk full");
      },
    };
    await tracedRun({ exporters: [failing], ...tracerOptions });
    expect(warn).toHaveBeenCalledWith("minagent tracing: disk full", { type: "MinagentTraceWarning" });
  });

  it("TraceSubject: the run span is unnamed and the model is named by run-start", async () => {
    const memory = new MemoryTraceExporter();
    await tracedRun({ exporters: [memory] }, subject);
    const names = memory.traces[0]?.spans.map((span) => span.name);
    expect(names?.slice(0, 3)).toEqual(["invoke_agent", "turn 0", "chat fake-model"]);
  });

  it("formatTraceTree and ConsoleTraceExporter: the timeline, 60-character previews, standard error", async () => {
    const memory = new MemoryTraceExporter();
    await tracedRun({ exporters: [memory] });
    const trace = memory.traces[0] as Trace;
    expect(formatTraceTree(trace, treeOptions)).toBe(formatTraceTree(trace));
    const written = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    new ConsoleTraceExporter(consoleOptions).export(trace);
    expect(written).toHaveBeenCalledWith(formatTraceTree(trace));
  });

  it("JsonFileExporter: a directory's default names and record, or one path", async () => {
    const directory = temporaryFolder("minagent-undefined-");
    const exporter = new JsonFileExporter({ directory, ...directoryOptions });
    await tracedRun({ exporters: [exporter] });
    expect(readdirSync(directory)).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d-]+\.\d{3}Z-[0-9a-f]{32}\.json$/)]);
    expect(exporter.written).toEqual([join(directory, readdirSync(directory)[0] as string)]);
    const path = join(directory, "one", "out.json");
    const single = new JsonFileExporter({ path, ...pathOptions });
    await tracedRun({ exporters: [single] });
    expect(single.written).toEqual([path]);
    expect(() => parseTrace("{", undefined)).toThrow(/^trace is not JSON/);
  });

  it("OpenTelemetryExporter: the globally registered provider", async () => {
    const spans = new InMemorySpanExporter();
    otelTrace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
    await tracedRun({ exporters: [new OpenTelemetryExporter(otelOptions)] });
    expect(spans.getFinishedSpans().map((span) => span.name)).toContain("invoke_agent");
  });
});
