// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright locators, whose innerText() is what a person sees (textContent would include hidden text)
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTraceServer, type TraceServer } from "../../../src/trace/viewer/trace-server.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";
import { compilePage, launchChromium } from "./browser.js";
import { codeSessionPrompt, writeCodeSession } from "./make-code-session.js";
import { type RecordedSession, writeResearchTrace, writeSession } from "./make-traces.js";

// The viewer driven in a real headless Chromium, against traces the engine wrote in this test: a run with
// parallel tool calls (one failing) and a sub-agent, and a minagent code session. The screenshots of the docs
// (docs/images/trace-viewer-*.png) are taken here; a normal run takes them without writing them (the tracked
// images are only checked to exist at the size the test takes them). After a deliberate change to the page,
// rewrite them with
//   MINAGENT_UPDATE_EXAMPLES=1 npx vitest run test/trace/viewer/viewer-browser.test.ts

const images = fileURLToPath(new URL("../../../docs/images/", import.meta.url));
let directory: string;
let traceName: string;
let session: RecordedSession;
let server: TraceServer | undefined;
let browser: BrowserContext | undefined;
let page: Page;
let assets: string | undefined;

beforeAll(async () => {
  browser = await launchChromium(); // fails first, with what to do, when Chromium is missing
  assets = compilePage();
  // The session store writes into <home>/projects/<folder>/: the viewer serves that folder, traces go there too.
  const home = temporaryFolder("minagent-viewer-browser-");
  // Fixed clocks for the traces in the screenshots, so that they are the same picture every run.
  session = await writeSession(home, { startTime: Date.UTC(2026, 10, 30, 9, 12) });
  directory = dirname(session.file);
  traceName = basename(await writeResearchTrace(directory, { startTime: Date.UTC(2026, 10, 30, 9, 41) }));
  server = await startTraceServer({ path: directory, assetsDirectory: assets, pollMs: 300 });
  page = await browser.newPage();
  page.setDefaultTimeout(20_000);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (assets) rmSync(dirname(dirname(dirname(assets))), { recursive: true, force: true });
});

/** Rows drawn (the waterfall keeps a pool of row elements; those out of use are hidden). */
const rows = ".row:not([hidden])";
const rowOf = (text: string) => page.locator(rows, { hasText: text });

/** Width and height of a PNG, from its header (IHDR). */
function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/**
 * A PNG for the docs, once the page is live (its indicator says so), with animations and the caret still. Written
 * to docs/images only with MINAGENT_UPDATE_EXAMPLES set; otherwise the tracked image must be there, of that size.
 */
async function screenshot(file: string, height?: number): Promise<void> {
  await page.locator("#live.on").waitFor();
  const clip = height === undefined ? undefined : { x: 0, y: 0, width: 1400, height };
  const taken = await page.screenshot({ animations: "disabled", caret: "hide", ...(clip && { clip }) });
  if (process.env.MINAGENT_UPDATE_EXAMPLES) {
    mkdirSync(images, { recursive: true });
    writeFileSync(join(images, file), taken);
    return;
  }
  // Pixels differ between Chromium builds and fonts: a normal run compares only what the docs' layout relies on.
  expect(pngSize(readFileSync(join(images, file))), `docs/images/${file} (MINAGENT_UPDATE_EXAMPLES=1 rewrites it)`).toEqual(pngSize(taken));
}

async function openTrace(name: string): Promise<void> {
  await page.goto(`${server?.url}#/trace/${encodeURIComponent(name)}`);
  await page.locator(`body[data-view=trace] ${rows}`).first().waitFor();
}

describe("the trace viewer in Chromium", { timeout: 60_000 }, () => {
  it("lists the traces newest first: agent, model, status, turns, tokens, cost, duration", async () => {
    await page.goto(server?.url as string);
    await page.locator("tr.trace-row").nth(1).waitFor();
    const rows = await page
      .locator("tr.trace-row")
      .evaluateAll((elements) => elements.map((row) => Array.from(row.querySelectorAll("td"), (cell) => cell.textContent ?? "")));
    expect(rows).toHaveLength(2);
    const [trace, recorded] = rows as string[][];
    expect(trace?.slice(1, 7)).toEqual(["weather-bot", "claude-sonnet-4-5", "✓ completed · 1 error", "3", "3,580 / 153", "$0.011"]);
    expect(trace?.[7]).toBe("7.61 s");
    expect(trace?.[9]).toBe(traceName);
    // A session is named by its first prompt.
    expect(recorded?.slice(1, 6)).toEqual([
      "Weather in Oslo and Atlantis?session",
      "claude-sonnet-4-5",
      "✓ completed · 1 error",
      "3",
      "1,420 / 37",
    ]);
    await screenshot("trace-viewer-list.png", 220);
  });

  it("opens a trace: the waterfall of every span, parallel tool calls overlapping, and the totals", async () => {
    await page.locator("tr.trace-row", { hasText: "weather-bot" }).click();
    await page.locator(`body[data-view=trace] ${rows}`).first().waitFor();
    expect(decodeURIComponent(new URL(page.url()).hash)).toBe(`#/trace/${traceName}`);
    expect(await page.locator(rows).count()).toBe(20);
    const totals = await page.locator(".totals").innerText();
    expect(totals).toMatch(/tokens in \/ out\s+3,580 \/ 153/);
    expect(totals).toMatch(/cost\s+\$0\.011/);
    expect(totals).toMatch(/model wait [\d.]+ [µm]?s/);
    expect(totals).toMatch(/tools [\d.]+ m?s/);
    // The two weather calls of turn 0 ran at once: their bars overlap in time.
    const [beijing, atlantis] = await Promise.all(
      ["Beijing", "Atlantis"].map((city) => rowOf(`{"city":"${city}"}`).locator(".bar").boundingBox()),
    );
    expect(beijing && atlantis).toBeTruthy();
    if (beijing && atlantis) {
      expect(atlantis.x).toBeLessThan(beijing.x + beijing.width);
      expect(beijing.x).toBeLessThan(atlantis.x + atlantis.width);
    }
  });

  it("shows a model call's messages, thinking, answer, stop reason, tokens and cost when it is selected", async () => {
    await rowOf("chat claude-sonnet-4-5").first().click();
    const detail = page.locator(".detail");
    await detail.locator("h2", { hasText: "chat claude-sonnet-4-5" }).waitFor();
    const text = await detail.innerText();
    expect(text).toContain("Compare the weather in Beijing, Atlantis and Paris");
    expect(text).toMatch(/Thinking\s+The user wants two forecasts; I can ask for both in parallel\./);
    expect(text).toContain("Checking both cities at once.");
    expect(text).toMatch(/stop reason\s+tool_use/);
    expect(text).toMatch(/input tokens\s+900/);
    expect(text).toMatch(/cache read\s+512/);
    // (388 uncached × $3 + 512 cached × $0.30 + 60 out × $15) per million
    expect(text).toMatch(/cost\s+\$0\.0022/);
    await screenshot("trace-viewer-trace.png");

    await rowOf('{"city":"Beijing"}').click();
    await detail.locator("h2", { hasText: "execute_tool weather" }).waitFor();
    expect(await detail.locator("section", { hasText: "Arguments" }).innerText()).toContain('"city": "Beijing"');
    expect(await detail.locator("section", { hasText: "Result" }).innerText()).toContain("sunny, 24°C in Beijing");
  });

  it("shows a run's input, final answer, status and any other attribute of its span (a workflow id)", async () => {
    await rowOf("invoke_agent weather-bot").click();
    const detail = page.locator(".detail");
    await detail.locator("h2", { hasText: "invoke_agent weather-bot" }).waitFor();
    const text = await detail.innerText();
    expect(text).toMatch(/run status\s+completed/);
    expect(text).toMatch(/Input\s+Compare the weather in Beijing, Atlantis and Paris/i);
    expect(text).toMatch(/Final answer\s+Beijing: sunny, 24°C\. Atlantis: no forecast\. Paris: sunny and mild\./i);
    expect(await detail.locator("section", { hasText: "Run attributes" }).locator("tr").allInnerTexts()).toEqual([
      "dbos.workflow.id\twf-7f3a",
    ]);
  });

  it("marks a failing tool call as an error, with its error text", async () => {
    const failing = rowOf('{"city":"Atlantis"}');
    expect(await failing.getAttribute("class")).toContain("error");
    await failing.click();
    const detail = page.locator(".detail.is-error");
    await detail.waitFor();
    expect(await detail.locator(".error-box").innerText()).toBe("Error: no forecast for Atlantis");
    expect(await detail.locator("section", { hasText: "Result (error)" }).locator("pre.error-text").innerText()).toBe(
      "Error: no forecast for Atlantis",
    );
    // The errors total steps through the spans that failed.
    await rowOf("invoke_agent weather-bot").click();
    await page.locator(".totals .errors-button").click();
    expect(await page.locator(`${rows}.selected .name`).innerText()).toMatch(/^weather\s*error/);
    expect(await page.locator(".totals .errors-button").innerText()).toMatch(/errors\s+1/);
  });

  it("zooms the time axis around the selected span, and fits it back", async () => {
    const bar = rowOf('{"city":"Atlantis"}').locator(".bar");
    const lane = await rowOf('{"city":"Atlantis"}').locator(".lane").boundingBox();
    const before = await bar.boundingBox();
    for (let step = 0; step < 3; step++) await page.getByRole("button", { name: "+", exact: true }).click();
    const zoomed = await bar.boundingBox();
    expect(before && zoomed && lane).toBeTruthy();
    if (before && zoomed && lane) {
      // 1.6³ ≈ 4.1 times wider (less where it is cut at the lane's edges), and still in view.
      expect(zoomed.width).toBeGreaterThan(before.width * 1.5);
      expect(zoomed.x).toBeLessThan(lane.x + lane.width);
      expect(zoomed.x + zoomed.width).toBeGreaterThan(lane.x);
    }
    expect(await page.locator(".tick").first().innerText()).not.toBe("0 µs");
    await page.getByRole("button", { name: "Fit", exact: true }).click();
    expect(await bar.boundingBox()).toEqual(before);
  });

  it("nests a sub-agent's run under the tool call that started it, and folds it away", async () => {
    const research = page.locator(`${rows}.type-tool-execution`, { hasText: "research" });
    const child = page.locator(`${rows}.subagent`);
    expect(await child.count()).toBe(1);
    const indent = async (row: typeof child) =>
      Number.parseFloat(await row.locator(".name").evaluate((name) => getComputedStyle(name).paddingLeft));
    expect(await indent(child)).toBeGreaterThan(await indent(research));
    await child.click();
    // The address names the selected span: a reload (or a link) opens the trace on it.
    const spanId = await child.getAttribute("data-span-id");
    expect(new URL(page.url()).hash).toBe(`#/trace/${encodeURIComponent(traceName)}/${spanId}`);
    await page.reload();
    await page.locator(`${rows}.selected.subagent`).waitFor();
    const text = await page.locator(".detail").innerText();
    expect(text).toMatch(/Input\s+Research Paris/i);
    expect(text).toMatch(/Final answer\s+Paris is sunny and mild\./i);
    expect(text).toMatch(/run status\s+completed/);
    expect(text).toMatch(/model\s+claude-haiku-4-5/);
    // Its own turns, model calls and tool calls are below it; folding the research call hides them all.
    expect(await rowOf("chat claude-haiku-4-5").count()).toBe(2);
    await research.locator(".toggle").click();
    await child.waitFor({ state: "hidden" });
    expect(await rowOf("chat claude-haiku-4-5").count()).toBe(0);
    expect(await page.locator(rows).count()).toBe(13);
    await research.locator(".toggle").click();
    await child.waitFor();
  });

  it("searches messages and tool results, marks the matches and steps through them", async () => {
    await page.locator("input.search").fill("Paris");
    await page.locator(".search-status", { hasText: /of/ }).waitFor();
    const status = await page.locator(".search-status").innerText();
    const total = Number(/of (\d+)/.exec(status)?.[1]);
    expect(total).toBeGreaterThanOrEqual(6);
    expect(await page.locator(`${rows}.match`).count()).toBe(total);
    expect(await page.locator(".detail mark").first().innerText()).toBe("Paris");
    await screenshot("trace-viewer-search.png");
    await page.locator("input.search").press("Enter");
    expect(await page.locator(".search-status").innerText()).toBe(`2 of ${total}`);
    // The failing call's error text: in its result, and in the messages the next model call was sent.
    await page.locator("input.search").fill("forecast for Atlantis");
    await page.locator(".search-status", { hasText: "1 of 3" }).waitFor();
    expect(await page.locator(`${rows}.selected .name`).innerText()).toMatch(/execute_tool weather\s*error\s*\{"city":"Atlantis"\}/);
    const matched = await page.locator(`${rows}.match .label`).allInnerTexts();
    expect(matched).toEqual(["execute_tool weather", "weather", "chat claude-sonnet-4-5"]);
    await page.locator("input.search").fill("nothing-like-this");
    await page.locator(".search-status", { hasText: "no match" }).waitFor();
    expect(await page.locator(`${rows}.match`).count()).toBe(0);
  });

  it("shows a minagent code session like a trace, and updates it live as the session goes on", async () => {
    await openTrace(basename(session.file));
    expect(await page.locator(`${rows}.type-run`).count()).toBe(3);
    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    await session.continueWith("And tomorrow?");
    await rowOf("And tomorrow?").waitFor({ timeout: 15_000 });
    expect(await page.locator(`${rows}.type-run`).count()).toBe(4);
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  });

  it("shows a CodingAgent session: its prompt, its subagent, the interrupted Bash call, totals that match the root", async () => {
    const code = await writeCodeSession(temporaryFolder("minagent-viewer-code-"));
    const codeServer = await startTraceServer({ path: code.file, assetsDirectory: assets });
    try {
      await page.goto(codeServer.url);
      const cell = page.locator("tr.trace-row td.agent");
      await cell.waitFor();
      expect(await cell.innerText()).toBe(`${codeSessionPrompt.slice(0, 79)}…session`);
      await cell.click();
      await page.locator(`body[data-view=trace] ${rows}`).first().waitFor();
      expect(await page.locator(".trace-title h1").innerText()).toBe(`${codeSessionPrompt.slice(0, 79)}…`);
      // The header counts the subagent's tokens as the root span does.
      const totals = await page.locator(".totals").innerText();
      expect(totals).toMatch(/tokens in \/ out\s+17,000 \/ 177/);
      await page.locator(`${rows}.type-run`).first().click();
      const detail = page.locator(".detail");
      await detail.locator("h2", { hasText: /^session / }).waitFor();
      const rootText = await detail.innerText();
      expect(rootText).toMatch(/input tokens\s+17,000/);
      expect(rootText).toMatch(/Input\s+Find the tests of this project and run them/i);
      expect(rootText).toMatch(/Final answer\s+Stopped; nothing failed before the stop\./i);
      // The subagent is nested under the Agent call, with its own model and tool calls from the session file.
      await page.locator(`${rows}.subagent`, { hasText: "invoke_agent Explore: find the tests" }).click();
      expect(await detail.innerText()).not.toMatch(/not in the session file/);
      expect(await page.locator(`${rows}.type-tool-execution`, { hasText: "Glob" }).count()).toBe(1);
      // The Bash call stopped while it ran: marked interrupted, and as long as it ran.
      const bash = page.locator(`${rows}.type-tool-execution`, { hasText: "Bash" });
      expect(await bash.locator(".badge").innerText()).toBe("interrupted");
      // Stopped 300 ms after it started (later on a busy machine): not the 0 µs of a call without an end.
      expect(await bash.locator(".duration").innerText()).toMatch(/^(\d{3} ms|[\d.]+ s)$/);
      await bash.click();
      expect(await detail.innerText()).toMatch(/status\s+✗ interrupted/);
      expect(await detail.locator(".error-box").innerText()).toMatch(/^Interrupted: the run was stopped/);
    } finally {
      await codeServer.close();
    }
  });

  it("adds a newly written trace to the list live, without a reload", async () => {
    await page.goto(server?.url as string);
    await page.locator("tr.trace-row").nth(1).waitFor();
    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    const written = basename(await writeResearchTrace(directory, { question: "A live question" }));
    await page.locator(`tr.trace-row[data-name="${written}"]`).waitFor({ timeout: 15_000 });
    expect(await page.locator("tr.trace-row").count()).toBe(3);
    expect(await page.locator("tr.trace-row").first().getAttribute("data-name")).toBe(written);
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  });

  it("gets a 4xx from the JSON API for a path outside the directory", async () => {
    const statuses = await page.evaluate(async () => {
      const paths = ["api/traces/..%2F..%2F..%2Fetc%2Fpasswd", "api/traces/%2Fetc%2Fpasswd", "api/traces/..%2Fpackage.json"];
      return Promise.all(paths.map(async (path) => (await fetch(path)).status));
    });
    expect(statuses).toEqual([400, 400, 400]);
  });

  it("shows a model call whose messages have an unexpected shape, with a search active, without an error", async () => {
    // Messages as no tracer writes them: no role, a numeric role, numbers and objects for text, a tool call
    // without arguments, parts that are not a list, a message that is null.
    const input = [
      { parts: [{ type: "text", content: 42 }] },
      null,
      { role: 7, parts: "not a list" },
      {
        role: "assistant",
        parts: [
          { type: "tool_call", id: "c1", name: "weather" },
          { type: "tool_call_response", id: "c1", response: { ok: true } },
          { type: "reasoning" },
          null,
        ],
      },
    ];
    const output = [{ role: "assistant", parts: [{ type: "text", content: { weather: "odd" } }], finish_reason: 3 }];
    const base = { kind: "internal", startTime: 1000, endTime: 1200, durationMs: 200, status: { code: "ok" } };
    const spans = [
      { ...base, spanId: "aa01", name: "invoke_agent odd", type: "run", attributes: {} },
      {
        ...base,
        spanId: "bb02",
        parentSpanId: "aa01",
        name: "chat odd-model",
        type: "model-call",
        status: { code: "error", message: 404 },
        attributes: { "gen_ai.input.messages": JSON.stringify(input), "gen_ai.output.messages": JSON.stringify(output) },
      },
    ];
    const odd = temporaryFolder("minagent-viewer-odd-");
    writeFileSync(join(odd, "odd.json"), JSON.stringify({ format: "minagent-trace", version: 1, traceId: "ab".repeat(16), spans }));
    const oddServer = await startTraceServer({ path: odd, assetsDirectory: assets });
    const errors: string[] = [];
    const onError = (error: Error) => errors.push(error.message);
    page.on("pageerror", onError);
    try {
      await page.goto(`${oddServer.url}#/trace/odd.json/bb02`);
      await page.locator("body[data-view=trace] .detail h2", { hasText: "chat odd-model" }).waitFor();
      await page.locator("input.search").fill("weather");
      await page.locator(".search-status", { hasText: "1 of 1" }).waitFor();
      const detail = page.locator(".detail");
      await detail.locator("mark").first().waitFor();
      const text = await detail.innerText();
      expect(text).toContain("42");
      expect(text).toContain("→ weather");
      expect(text).toContain('{"ok":true}');
      expect(text).toContain('{"weather":"odd"}');
      expect(text).toContain("404");
      expect(await detail.locator(".message").count()).toBe(4);
      expect(errors).toEqual([]);
    } finally {
      page.off("pageerror", onError);
      await oddServer.close();
    }
  });

  it("shows a session's pasted image as a thumbnail, with its type, size and hash", async () => {
    const png = readFileSync(join(images, "trace-viewer-list.png"));
    const folder = temporaryFolder("minagent-viewer-image-");
    const at = (second: number) => new Date(Date.UTC(2026, 10, 30, 10, 0, second)).toISOString();
    const lines = [
      {
        type: "session",
        version: 1,
        sessionId: "0b7f4c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5c",
        cwd: "/home/me/app",
        createdAt: at(0),
        model: { provider: "anthropic", modelId: "claude-sonnet-4-5" },
      },
      {
        type: "message",
        message: {
          role: "user",
          content: "What is on this screen?",
          parts: [{ type: "image", mediaType: "image/png", data: png.toString("base64") }],
        },
        at: at(1),
      },
      {
        type: "message",
        message: { role: "assistant", content: "A list of traces." },
        usage: { inputTokens: 1700, outputTokens: 6 },
        at: at(2),
      },
    ];
    writeFileSync(join(folder, "0b7f4c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5c.jsonl"), `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const imageServer = await startTraceServer({ path: folder, assetsDirectory: assets });
    try {
      await page.goto(`${imageServer.url}#/trace/0b7f4c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5c.jsonl`);
      await rowOf("chat").first().click();
      const thumbnail = page.locator(".detail img.thumbnail");
      await thumbnail.waitFor();
      // The picture was decoded: it has the screenshot's size (scaled down by the page's CSS, not by its bytes).
      expect(await thumbnail.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(pngSize(png).width);
      expect(await page.locator(".detail .blob-part").innerText()).toMatch(/image image\/png, [\d,]+ bytes · sha256 [0-9a-f]{12}…/);
    } finally {
      await imageServer.close();
    }
  });
});
