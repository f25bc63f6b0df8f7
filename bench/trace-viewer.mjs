// The trace viewer on a 40,000-span trace (issue 16): time to first paint, time to interactive, and frames per
// second while scrolling the waterfall, in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core).
// `npm run bench:trace-viewer` builds first; to measure another build, point MINAGENT_DIST at its dist/ folder.
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const dist = process.env.MINAGENT_DIST ?? fileURLToPath(new URL("../dist", import.meta.url));
const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const spanTarget = Number(process.env.SPANS ?? 40_000);
const loads = 5;
const scrollSeconds = 3;

try {
  statSync(executablePath);
} catch {
  console.error(`No Chromium at ${executablePath}: run scripts/install-test-deps.sh (or set CHROMIUM).`);
  process.exit(1);
}
const { startTraceServer } = await import(pathToFileURL(join(dist, "trace/viewer/trace-server.js")).href);

/**
 * A long run as the tracer records it: turns of a model call (with the messages it adds and its answer) and two
 * parallel tool calls, and every 25th turn a sub-agent of 3 turns under one of its calls.
 */
function longTrace(target) {
  const spans = [];
  let clock = Date.UTC(2026, 10, 30, 12);
  let counter = 0;
  const span = (parent, name, type, start, end, attributes = {}, error) => {
    const created = {
      spanId: (++counter).toString(16).padStart(16, "0"),
      ...(parent && { parentSpanId: parent.spanId }),
      name,
      type,
      kind: type === "model-call" || type === "tool-call" ? "client" : type === "tool-execution" ? "server" : "internal",
      startTime: start,
      endTime: end,
      durationMs: end - start,
      status: error ? { code: "error", message: error } : { code: "ok" },
      attributes,
    };
    spans.push(created);
    return created;
  };
  const message = (role, text) => JSON.stringify([{ role, parts: [{ type: "text", content: text }] }]);
  const turnOf = (run, index, model) => {
    const start = clock;
    const turn = span(run, `turn ${index}`, "turn", start, start, { "minagent.turn.index": index });
    const answered = start + 800 + (index % 7) * 90;
    span(turn, `chat ${model}`, "model-call", start, answered, {
      "gen_ai.request.model": model,
      "gen_ai.response.finish_reasons": ["tool_use"],
      "gen_ai.usage.input_tokens": 2000 + index * 3,
      "gen_ai.usage.output_tokens": 120,
      "minagent.request.new_messages": message("tool", `Result of step ${index - 1}: ${"lorem ipsum ".repeat(20)}`),
      "gen_ai.output.messages": message("assistant", `Step ${index}: reading two files at once. ${"dolor sit amet ".repeat(10)}`),
    });
    let end = answered;
    const calls = [];
    for (const call of [0, 1]) {
      const finished = answered + 40 + ((index * 13 + call * 29) % 400);
      const client = span(turn, "execute_tool read_file", "tool-call", answered, finished, {
        "gen_ai.tool.name": "read_file",
        "gen_ai.tool.call.arguments": JSON.stringify({ path: `src/module-${index}-${call}.ts` }),
      });
      const failed = index % 97 === 0 && call === 1;
      span(
        client,
        "read_file",
        "tool-execution",
        answered + 2,
        finished,
        {
          "gen_ai.tool.call.result": failed ? "Error: no such file" : `export const value${index} = ${call};`,
        },
        failed ? "Error: no such file" : undefined,
      );
      calls.push(client);
      end = Math.max(end, finished);
    }
    clock = end + 5;
    turn.endTime = end;
    turn.durationMs = end - turn.startTime;
    return calls;
  };
  const root = span(undefined, "invoke_agent long-run", "run", clock, clock, {
    "gen_ai.agent.name": "long-run",
    "gen_ai.request.model": "claude-sonnet-4-5",
    "minagent.run.input": "Refactor the whole project",
    "minagent.run.status": "completed",
  });
  for (let index = 0; spans.length < target; index++) {
    const calls = turnOf(root, index, "claude-sonnet-4-5");
    if (index % 25 === 24) {
      // A sub-agent under the second call's execution.
      const execution = spans.find((candidate) => candidate.parentSpanId === calls[1].spanId);
      const child = span(execution, "invoke_agent", "run", clock, clock, { "minagent.run.input": `Check step ${index}` });
      for (let turn = 0; turn < 3; turn++) turnOf(child, turn, "claude-haiku-4-5");
      child.endTime = clock;
      child.durationMs = child.endTime - child.startTime;
    }
  }
  root.endTime = clock;
  root.durationMs = root.endTime - root.startTime;
  return { format: "minagent-trace", version: 1, traceId: "0123456789abcdef0123456789abcdef", spans };
}

const directory = mkdtempSync(join(tmpdir(), "minagent-bench-viewer-"));
const trace = longTrace(spanTarget);
const name = "long-run.json";
writeFileSync(join(directory, name), JSON.stringify(trace));
const fileMb = statSync(join(directory, name)).size / 1e6;
const server = await startTraceServer({ path: directory });
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

try {
  const firstPaint = [];
  const waterfallPaint = [];
  const interactive = [];
  const fetched = [];
  for (let load = 0; load < loads; load++) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${server.url}#/trace/${name}`);
    await page.locator("body[data-view=trace] .row").first().waitFor({ timeout: 120_000 });
    // The waterfall's rows are painted once a frame has passed since they were put in the document.
    const painted = await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now())))),
    );
    // Interactive: a click on a span shows its details.
    await page.locator(".row", { hasText: "chat claude-sonnet-4-5" }).first().click();
    await page.locator(".detail h2", { hasText: "chat claude-sonnet-4-5" }).waitFor();
    const ready = await page.evaluate(() => performance.now());
    const paint = await page.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN);
    fetched.push(await page.evaluate(() => performance.getEntriesByName("trace-fetched")[0]?.startTime ?? Number.NaN));
    firstPaint.push(paint);
    waterfallPaint.push(painted);
    interactive.push(ready);
    if (load < loads - 1) await page.close();
  }

  // Scrolling: the waterfall moves 150 px (about 6 rows) every frame for a few seconds, from the top down.
  const page = browser.contexts()[0].pages().at(-1);
  const scroll = await page.evaluate(
    (seconds) =>
      new Promise((resolve) => {
        const scroller = document.querySelector(".scroller");
        const frames = [];
        let last = performance.now();
        const until = last + seconds * 1000;
        const step = (now) => {
          frames.push(now - last);
          last = now;
          scroller.scrollTop += 150;
          if (now < until) requestAnimationFrame(step);
          else resolve({ frames, rows: scroller.scrollTop / 26 });
        };
        requestAnimationFrame((now) => {
          last = now;
          requestAnimationFrame(step);
        });
      }),
    scrollSeconds,
  );
  const frameTimes = scroll.frames.slice(1);
  const total = frameTimes.reduce((sum, time) => sum + time, 0);
  const sorted = [...frameTimes].sort((a, b) => a - b);
  const rowsInDom = await page.locator(".row").count();

  // Zooming: ten zoom steps in and out, each a full redraw of the rows in view.
  const zoomMs = await page.evaluate(async () => {
    const [minus, plus] = [...document.querySelectorAll(".tools button")].filter((button) => ["−", "+"].includes(button.textContent));
    const start = performance.now();
    for (let step = 0; step < 10; step++) (step % 2 ? minus : plus).click();
    await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    return (performance.now() - start) / 10;
  });

  console.log(
    `trace viewer, ${trace.spans.length.toLocaleString("en-US")} spans (${fileMb.toFixed(1)} MB of JSON), headless Chromium, median of ${loads} loads:`,
  );
  console.log(`  first contentful paint (page shell)    ${median(firstPaint).toFixed(0)} ms`);
  console.log(`  trace fetched and parsed               ${median(fetched).toFixed(0)} ms`);
  console.log(`  waterfall painted (first rows shown)   ${median(waterfallPaint).toFixed(0)} ms`);
  console.log(`  interactive (a click shows a span)     ${median(interactive).toFixed(0)} ms`);
  console.log(
    `  scrolling ${scrollSeconds} s at 150 px/frame: ${(frameTimes.length / (total / 1000)).toFixed(1)} frames/s, ` +
      `median frame ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, p95 ${sorted[Math.floor(sorted.length * 0.95)].toFixed(1)} ms, ` +
      `longest ${sorted.at(-1).toFixed(1)} ms; ${Math.round(scroll.rows).toLocaleString("en-US")} rows scrolled past, ${rowsInDom} row elements in the DOM`,
  );
  console.log(`  zoom step (redraw of the rows in view) ${zoomMs.toFixed(1)} ms`);
} finally {
  await browser.close();
  await server.close();
  if (!process.env.KEEP) rmSync(directory, { recursive: true, force: true });
  else console.log(directory);
}
