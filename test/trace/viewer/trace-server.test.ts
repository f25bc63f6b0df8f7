import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Trace } from "../../../src/trace/trace.js";
import { startTraceServer, type TraceServer } from "../../../src/trace/viewer/trace-server.js";
import type { TraceSummary } from "../../../src/trace/viewer/trace-summary.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";
import { writeResearchTrace, writeSession } from "./make-traces.js";

let directory: string;
let outside: string;
let traceName: string;
let sessionName: string;
let server: TraceServer;

beforeAll(async () => {
  directory = temporaryFolder("minagent-viewer-api-");
  outside = temporaryFolder("minagent-viewer-outside-");
  traceName = basename(await writeResearchTrace(directory));
  const session = (await writeSession(temporaryFolder("minagent-viewer-home-"))).file;
  sessionName = basename(session);
  copyFileSync(session, join(directory, sessionName));
  writeFileSync(join(directory, "package.json"), '{"name":"not-a-trace"}');
  writeFileSync(join(directory, "notes.txt"), "not a trace");
  // A trace outside the directory, and a link to it from inside: the link must not be followed out.
  copyFileSync(join(directory, traceName), join(outside, "secret.json"));
  symlinkSync(join(outside, "secret.json"), join(directory, "link-out.json"));
  mkdirSync(join(directory, "sub"));
  // A span that repeats its parent's id: the page's tree walk would never end on it.
  const span = { name: "x", startTime: 1, endTime: 2, durationMs: 1, status: { code: "ok" }, attributes: {} };
  const spans = [
    { ...span, spanId: "a" },
    { ...span, spanId: "a", parentSpanId: "a" },
  ];
  writeFileSync(join(directory, "repeated-ids.json"), JSON.stringify({ format: "minagent-trace", version: 1, traceId: "ab", spans }));
  server = await startTraceServer({ path: directory, pollMs: 200 });
});

afterAll(async () => {
  await server?.close();
});

/** Opens the event stream, runs `action` once it is connected, and resolves with the first change event's data. */
function nextChange(action: () => Promise<void>): Promise<{ changed: string[]; removed: string[] }> {
  return new Promise((resolve, reject) => {
    const call = request({ host: "127.0.0.1", port: server.port, path: "/api/events", headers: { host: `127.0.0.1:${server.port}` } });
    call.on("response", (response) => {
      let text = "";
      let acted = false;
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
        if (!acted && text.includes(": connected")) {
          acted = true;
          action().catch(reject);
        }
        const data = /event: change\ndata: (.*)\n/.exec(text)?.[1];
        if (data !== undefined) {
          call.destroy();
          resolve(JSON.parse(data) as { changed: string[]; removed: string[] });
        }
      });
    });
    call.on("error", (error) => {
      if ((error as NodeJS.ErrnoException).code !== "ECONNRESET") reject(error);
    });
    call.end();
  });
}

/** GETs a path as written (no URL normalisation), with the Host header the server expects unless told otherwise. */
function get(path: string, host = `127.0.0.1:${server.port}`): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const call = request({ host: "127.0.0.1", port: server.port, path, headers: { host } }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    call.on("error", reject);
    call.end();
  });
}

describe("the trace viewer's JSON API", () => {
  it("listens on 127.0.0.1 and lists the traces and sessions, newest first, leaving other files out", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const { status, body } = await get("/api/traces");
    expect(status).toBe(200);
    const list = (JSON.parse(body) as TraceSummary[]).filter((entry) => entry.status !== "unreadable");
    expect(list.map((entry) => entry.name)).toEqual([sessionName, traceName]);
    const trace = list.find((entry) => entry.name === traceName) as TraceSummary;
    expect(trace).toMatchObject({
      kind: "trace",
      agent: "weather-bot",
      model: "claude-sonnet-4-5",
      status: "completed",
      turns: 3,
      inputTokens: 3580,
      outputTokens: 153,
      spanCount: 20,
      errorCount: 1,
    });
    // Priced from src/trace/model-prices.ts: sonnet 4.5 calls (388 uncached + 512 cached, 1100, 1300 in; 130 out) and haiku's.
    const sonnet = (388 + 1100 + 1300) * 3 + 512 * 0.3 + 130 * 15;
    const haiku = 280 * 1 + 23 * 5;
    expect(trace.cost).toBeCloseTo((sonnet + haiku) / 1_000_000, 12);
    expect(trace.durationMs).toBeGreaterThan(0);
  });

  it("serves one trace with its spans and each model call's cost", async () => {
    const { status, body } = await get(`/api/traces/${encodeURIComponent(traceName)}`);
    expect(status).toBe(200);
    const { trace, costs, summary } = JSON.parse(body) as { trace: Trace; costs: Record<string, number>; summary: TraceSummary };
    expect(trace.format).toBe("minagent-trace");
    expect(summary.name).toBe(traceName);
    const modelCalls = trace.spans.filter((span) => span.type === "model-call");
    expect(modelCalls).toHaveLength(5);
    for (const call of modelCalls) expect(costs[call.spanId]).toBeGreaterThan(0);
    // The sub-agent's run is nested under the research tool's execution.
    const child = trace.spans.find((span) => span.type === "run" && span.parentSpanId !== undefined);
    const execution = trace.spans.find((span) => span.spanId === child?.parentSpanId);
    expect(execution).toMatchObject({ type: "tool-execution", name: "research" });
  });

  it("serves a minagent code session file as a trace: runs, turns, model calls and tool calls", async () => {
    const { status, body } = await get(`/api/traces/${encodeURIComponent(sessionName)}`);
    expect(status).toBe(200);
    const { trace, summary } = JSON.parse(body) as { trace: Trace; summary: TraceSummary };
    expect(summary).toMatchObject({ kind: "session", status: "completed", turns: 3, inputTokens: 1420, outputTokens: 37 });
    const runs = trace.spans.filter((span) => span.type === "run");
    // The session's input is its first prompt.
    expect(runs.map((span) => span.attributes["minagent.run.input"])).toEqual([
      "Weather in Oslo and Atlantis?",
      "Weather in Oslo and Atlantis?",
      "Thanks!",
    ]);
    const failed = trace.spans.filter((span) => span.type === "tool-execution" && span.status.code === "error");
    expect(failed.map((span) => span.attributes["gen_ai.tool.call.arguments"])).toEqual(['{"city":"Atlantis"}']);
    const firstCall = trace.spans.find((span) => span.type === "model-call");
    expect(firstCall?.attributes["minagent.request.new_messages"]).toContain("Weather in Oslo and Atlantis?");
  });

  it("refuses path traversal, links out of the directory, other files and foreign hosts with a 4xx", async () => {
    const attempts = [
      "/api/traces/..%2F..%2F..%2Fetc%2Fpasswd",
      "/api/traces/..%2Fsecret.json",
      "/api/traces/%2Fetc%2Fpasswd",
      "/api/traces/..",
      "/api/traces/sub",
      "/api/traces/link-out.json",
      "/api/traces/notes.txt",
      "/api/traces/package.json",
      "/api/traces/%E0%A4%A",
      "/api/traces/missing.json",
      "/../../etc/passwd",
      "/..%2F..%2Fetc%2Fpasswd",
    ];
    for (const path of attempts) {
      const { status, body } = await get(path);
      expect({ path, status }).toEqual({ path, status: expect.toSatisfy((code: number) => code >= 400 && code < 500) });
      expect(body).not.toContain("root:");
      expect(body).not.toContain("traceId");
    }
    expect((await get("/api/traces/link-out.json")).status).toBe(403);
    expect((await get("/api/traces", "evil.example:80")).status).toBe(403);
    // The link is not listed either.
    expect((await get("/api/traces")).body).not.toContain("link-out.json");
  });

  it("refuses a trace whose span ids repeat with a 415 that says which span, and lists it as unreadable", async () => {
    const { status, body } = await get("/api/traces/repeated-ids.json");
    expect(status).toBe(415);
    const reason = 'repeated-ids.json: span 1 has the spanId "a" of span 0.';
    expect(JSON.parse(body)).toEqual({ error: reason });
    const list = JSON.parse((await get("/api/traces")).body) as TraceSummary[];
    expect(list.find((entry) => entry.name === "repeated-ids.json")).toMatchObject({ status: "unreadable", error: reason, spanCount: 0 });
    // Files that do not say they are minagent traces are still left out.
    expect(list.filter((entry) => entry.status === "unreadable").map((entry) => entry.name)).toEqual(["repeated-ids.json"]);
  });

  it("sends a live event when a new trace file is written, and when one is removed", async () => {
    let written = "";
    const added = await nextChange(async () => {
      written = basename(await writeResearchTrace(directory, { question: "A live one" }));
    });
    expect(added).toEqual({ changed: [written], removed: [] });
    const list = JSON.parse((await get("/api/traces")).body) as TraceSummary[];
    expect(list[0]?.name).toBe(written);
    const opened = JSON.parse((await get(`/api/traces/${written}`)).body) as { trace: Trace };
    expect(opened.trace.spans[0]?.attributes["minagent.run.input"]).toBe("A live one");
    const removed = await nextChange(async () => rmSync(join(directory, written)));
    expect(removed).toEqual({ changed: [], removed: [written] });
  });

  it("serves only the named file when given a file", async () => {
    const single = await startTraceServer({ path: join(directory, traceName) });
    try {
      const list = JSON.parse(await (await fetch(`${single.url}api/traces`)).text()) as TraceSummary[];
      expect(list.map((entry) => entry.name)).toEqual([traceName]);
      expect((await fetch(`${single.url}api/traces/${sessionName}`)).status).toBe(404);
    } finally {
      await single.close();
    }
    expect(readFileSync(join(directory, traceName), "utf8")).toContain("minagent-trace");
  });
});
