import { writeFileSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTraceServer, type TraceServer } from "../../../src/trace/viewer/trace-server.js";
import type { TraceSummary } from "../../../src/trace/viewer/trace-summary.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";
import { wideTrace } from "../large-traces.js";

// Every file the server reads goes through this readFile, and every stat through this stat: the test counts the
// reads of the large trace, and holds the first one back until every request has asked for it.
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return { ...actual, readFile: vi.fn(actual.readFile), stat: vi.fn(actual.stat) };
});

const concurrentRequests = 16;
let directory: string;
let size: number;

beforeAll(() => {
  directory = temporaryFolder("minagent-viewer-large-");
  // About 2 MB: large against the limits the servers below are given, small enough to keep the test quick.
  const text = JSON.stringify(wideTrace(8_001));
  size = Buffer.byteLength(text);
  writeFileSync(join(directory, "large.json"), text);
});

/** Reads of the large trace since the test started. */
function readsOfLargeTrace(): number {
  return vi.mocked(readFile).mock.calls.filter(([path]) => String(path).endsWith("large.json")).length;
}

async function getAll(server: TraceServer, path: string): Promise<{ status: number; body: string }[]> {
  return Promise.all(
    Array.from({ length: concurrentRequests }, async () => {
      const response = await fetch(`${server.url}${path}`);
      return { status: response.status, body: await response.text() };
    }),
  );
}

describe("minagent trace serve with a large trace and many requests at once", () => {
  let server: TraceServer;
  afterAll(async () => {
    await server?.close();
  });

  it("reads the trace once for 16 concurrent requests, and gives every one the same answer", async () => {
    server = await startTraceServer({ path: directory, maxTraceBytes: 10_000_000 });
    vi.mocked(readFile).mockClear();
    // The read waits until all 16 requests have checked the file's size (TraceDirectory.read's stat) and so asked
    // for its contents: however slowly they arrive, they are all concurrent with it. (At most 10 s: a read that
    // is never shared fails on the count below rather than hanging.)
    let letReadsGo = () => {};
    const everyRequestAsked = new Promise<void>((resolve) => {
      letReadsGo = resolve;
    });
    const fallback = setTimeout(letReadsGo, 10_000);
    let sizeChecks = 0;
    const { stat: realStat, readFile: realReadFile } = await vi.importActual<typeof import("node:fs/promises")>("node:fs/promises");
    vi.mocked(stat).mockImplementation(async (...args: Parameters<typeof realStat>) => {
      // The innermost TraceDirectory method on the stack is the caller: read's own size check, not resolve's stat.
      const caller = /at (?:async )?TraceDirectory\.(\w+)/.exec(new Error().stack ?? "")?.[1];
      const fromRead = String(args[0]).endsWith("large.json") && caller === "read";
      const stats = await realStat(...args);
      // Once the caller resumes (a microtask), it asks for the load; the reads go after that.
      if (fromRead && ++sizeChecks === concurrentRequests) setImmediate(letReadsGo);
      return stats;
    });
    vi.mocked(readFile).mockImplementation((async (...args: Parameters<typeof realReadFile>) => {
      if (String(args[0]).endsWith("large.json")) await everyRequestAsked;
      return realReadFile(...args);
    }) as typeof readFile);
    const answers = await getAll(server, "api/traces/large.json");
    clearTimeout(fallback);
    expect(sizeChecks).toBe(concurrentRequests);
    expect(answers.map((answer) => answer.status)).toEqual(Array(concurrentRequests).fill(200));
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect((JSON.parse(answers[0]?.body ?? "{}") as { trace: { spans: unknown[] } }).trace.spans).toHaveLength(8_001);
    expect(readsOfLargeTrace()).toBe(1);
    await server.close();
  });

  it("answers 413 for a file over the limit, with the limit and what to do, without reading it", async () => {
    server = await startTraceServer({ path: directory, maxTraceBytes: 1_000_000 });
    vi.mocked(readFile).mockClear();
    const answers = await getAll(server, "api/traces/large.json");
    expect(answers.map((answer) => answer.status)).toEqual(Array(concurrentRequests).fill(413));
    const { error } = JSON.parse(answers[0]?.body ?? "{}") as { error: string };
    expect(error).toContain(`large.json is ${(size / 1e6).toFixed(1)} MB, more than the 1.0 MB this viewer loads`);
    expect(error).toContain(`minagent trace serve --max-trace-mb ${Math.ceil(size / 1e6)}`);
    // The list shows it, marked, with the same reason, and without reading it either.
    const list = (await (await fetch(`${server.url}api/traces`)).json()) as TraceSummary[];
    expect(list).toEqual([expect.objectContaining({ name: "large.json", status: "too_large", error })]);
    expect(readsOfLargeTrace()).toBe(0);
    // The server is still there for the next request.
    expect((await fetch(`${server.url}api/traces`)).status).toBe(200);
  });

  it("refuses a limit that is not a positive number of bytes", async () => {
    await expect(startTraceServer({ path: directory, maxTraceBytes: 0 })).rejects.toThrow(/maxTraceBytes must be a positive number/);
  });
});
