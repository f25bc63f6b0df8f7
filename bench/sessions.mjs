// node bench/sessions.mjs (npm run bench:sessions) — what minagent/code's sessions cost (docs/sessions.md), offline.
// Compiles src/code/sessions and the engine with tsc into node_modules/.cache (the package need not be built), then:
// a real run of 2,500 scripted turns (an assistant message and three Read results of 200 to 2,000 characters each,
// like file excerpts) recorded by a SessionRecorder: µs of listener time per line written (scrubbing, formatting,
// one synchronous write); loading the 10,003-message session back (median and best of ROUNDS) and listing its folder;
// what the session lock costs (taking and giving it up); and an append with fsync on. The loaded conversation is
// checked against the run's, so that the figures are of work that was done.
//   TURNS=<n>   turns of the recorded run (default 2500)
//   ROUNDS=<n>  loads and lists timed (default 5)
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { compileSources } from "./compile-sources.mjs";
import { createLongSessionRun } from "./long-session-run.mjs";

const turns = Number(process.env.TURNS ?? 2500);
const rounds = Number(process.env.ROUNDS ?? 5);
const sources = ["code/sessions/index.ts", "engine.ts", "testing/script.ts"];
const load = compileSources("minagent-bench-sessions", sources);
const [{ JsonLinesSessionStore, SessionRecorder }, { Agent, FakeModel, ToolRegistry }, { reply, toolCall, withUsage }] = await Promise.all(
  sources.map(load),
);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const directory = mkdtempSync(join(tmpdir(), "minagent-bench-sessions-"));
const cwd = join(directory, "work", "project");
try {
  // ---- recording: a real run, the listener timed ----
  const store = new JsonLinesSessionStore({ directory });
  const { agent, prompt } = createLongSessionRun({ Agent, FakeModel, ToolRegistry, reply, toolCall, withUsage }, turns);
  const recorder = new SessionRecorder({ store, cwd, env: {} });
  let listenerMs = 0;
  let linesWritten = 0;
  // The lines each event writes: the header, the system prompt and the prompt at the start; one per message and run end.
  const linesOf = (event) =>
    event.type === "model-call-end" || event.type === "tool-call-end" || event.type === "run-end" ? 1 : event.type === "run-start" ? 3 : 0;
  const result = await agent.run(prompt, {
    onEvent: (event) => {
      const start = performance.now();
      recorder.listen(event);
      listenerMs += performance.now() - start;
      linesWritten += linesOf(event);
    },
  });
  if (recorder.error) throw recorder.error;
  const bytes = statSync(store.sessionPath(cwd, recorder.sessionId)).size;
  console.log(
    `record: ${linesWritten} lines (${(bytes / 1e6).toFixed(1)} MB) in ${listenerMs.toFixed(0)} ms of listener time: ${((listenerMs * 1_000) / linesWritten).toFixed(1)} µs per line`,
  );

  // ---- loading and listing ----
  const reader = new JsonLinesSessionStore({ directory });
  let loaded = await reader.load(recorder.sessionId); // warm-up
  const loads = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    loaded = await reader.load(recorder.sessionId);
    loads.push(performance.now() - start);
  }
  if (!isDeepStrictEqual(loaded.messages, result.messages)) throw new Error("the loaded conversation is not the run's");
  const lists = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    const [summary] = await reader.list(cwd);
    lists.push(performance.now() - start);
    if (summary?.turns !== turns + 1) throw new Error(`the list counts ${summary?.turns} turns, not ${turns + 1}`);
  }
  console.log(
    `load: ${loaded.messages.length} messages, median of ${rounds} ${median(loads).toFixed(1)} ms, best ${Math.min(...loads).toFixed(1)} ms (${loads.map((time) => time.toFixed(0)).join(", ")})`,
  );
  console.log(`list: the folder's one session of ${loaded.messages.length} messages, median of ${rounds} ${median(lists).toFixed(1)} ms`);

  // ---- the lock: taken before a session's first line, given up when done ----
  store.unlock(recorder.sessionId);
  const cycles = 1_000;
  const lockStart = performance.now();
  for (let cycle = 0; cycle < cycles; cycle++) {
    store.lock(recorder.sessionId);
    store.unlock(recorder.sessionId);
  }
  const lockUs = ((performance.now() - lockStart) * 1_000) / cycles;
  console.log(`lock: taking and giving up a session's lock, ${lockUs.toFixed(0)} µs (mean of ${cycles}; once per session and process)`);

  // ---- fsync: an append that survives a power cut ----
  const durable = new JsonLinesSessionStore({ directory, fsync: true });
  await durable.load(recorder.sessionId);
  const appends = 100;
  const fsyncStart = performance.now();
  for (let index = 0; index < appends; index++)
    durable.append(recorder.sessionId, [
      { type: "message", message: { role: "user", content: `Note ${index}.` }, at: new Date().toISOString() },
    ]);
  console.log(`fsync: ${((performance.now() - fsyncStart) / appends).toFixed(2)} ms per append with { fsync: true } (mean of ${appends})`);
} finally {
  rmSync(directory, { recursive: true, force: true });
}
