import { readFile } from "node:fs/promises";
import { Worker } from "node:worker_threads";
import { ToolError, toAbortError } from "../../../errors.js";
import type { Batch, BatchAnswer, FoundFile, SearchSettings, ThreadData } from "./protocol.js";

/** Threads and time the search may take. */
export type PoolLimits = {
  /** Threads that read and search files at most. */
  threads: number;
  /** Milliseconds a thread may spend on one file before the file is given up. */
  maxFileMilliseconds: number;
};

/** Files the search did not finish: too big to search, given up as too slow, and whether it stopped for that. */
export type SearchReport = { tooBig: string[]; slow: string[]; stopped: boolean };

/** Files where the pattern ran out of time before the search stops. */
const maxSlowFiles = 3;
/** Files sent to a search thread at once. */
const batchSize = 32;

type Searcher = { worker: Worker; progress: Int32Array; batches: Batch[]; completed: number; seen: number; since: number };

/**
 * Searches the files `produce` adds, in worker threads (search-thread.cts): each is sent batches of paths (two at
 * most ahead) and answers with what it found. A thread counts the files it has finished in shared memory; a watchdog
 * gives up a file (kills the thread, starts another, sends the rest again) when that count stands still for longer
 * than `maxFileMilliseconds`. The signal kills every thread at once.
 */
export async function searchInThreads(
  produce: (add: (path: string) => void) => Promise<void>,
  settings: SearchSettings,
  limits: PoolLimits,
  signal: AbortSignal,
  onFound: (file: FoundFile) => void,
): Promise<SearchReport> {
  if (signal.aborted) throw toAbortError(signal);
  const script = await searchThreadScript();
  if (signal.aborted) throw toAbortError(signal);
  return new Promise((resolve, reject) => {
    const report: SearchReport = { tooBig: [], slow: [], stopped: false };
    const queue: string[] = [];
    const searchers: Searcher[] = [];
    let produced = false;
    let settled = false;
    let nextBatch = 0;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      clearInterval(watchdog);
      signal.removeEventListener("abort", onAbort);
      for (const searcher of searchers) void searcher.worker.terminate();
      if (error === undefined) resolve(report);
      else reject(error);
    };
    const onAbort = () => finish(toAbortError(signal));
    const start = () => {
      const progress = new SharedArrayBuffer(4);
      Atomics.store(new Int32Array(progress), 0, -1); // -1 while the thread starts up
      const workerData: ThreadData = { ...settings, progress };
      const worker = "file" in script ? new Worker(script.file, { workerData }) : new Worker(script.source, { eval: true, workerData });
      const searcher: Searcher = { worker, progress: new Int32Array(progress), batches: [], completed: 0, seen: 0, since: 0 };
      worker.on("message", (message: BatchAnswer) => receive(searcher, message));
      worker.on("error", (error) => finish(new ToolError(`The search failed: ${error.message}`, { cause: error })));
      searchers.push(searcher);
    };
    const receive = (searcher: Searcher, { id, results }: BatchAnswer) => {
      if (settled || !searchers.includes(searcher) || searcher.batches[0]?.id !== id) return;
      const batch = searcher.batches.shift() as Batch;
      searcher.completed += batch.files.length;
      for (const { index, ...result } of results) {
        const path = batch.files[index] as string;
        if ("tooBig" in result) report.tooBig.push(path);
        else onFound({ ...result, path });
      }
      dispatch();
    };
    const dispatch = () => {
      if (settled) return;
      if (searchers.length < limits.threads && (searchers.length === 0 ? queue.length > 0 : queue.length > batchSize)) start();
      for (const searcher of searchers) {
        while (searcher.batches.length < 2 && (queue.length >= batchSize || (produced && queue.length > 0))) {
          const batch = { id: nextBatch++, files: queue.splice(-batchSize) };
          if (searcher.batches.length === 0) [searcher.seen, searcher.since] = [Atomics.load(searcher.progress, 0), performance.now()];
          searcher.batches.push(batch);
          searcher.worker.postMessage(batch);
        }
      }
      if (produced && queue.length === 0 && searchers.every((searcher) => searcher.batches.length === 0)) finish();
    };
    const giveUp = (searcher: Searcher, done: number) => {
      const files = searcher.batches.flatMap((batch) => batch.files);
      const stuck = done - searcher.completed;
      report.slow.push(files[stuck] as string);
      queue.push(...files.filter((_, index) => index !== stuck));
      searchers.splice(searchers.indexOf(searcher), 1);
      void searcher.worker.terminate();
      if (report.slow.length >= maxSlowFiles) {
        report.stopped = true;
        finish();
      } else dispatch();
    };
    const watchdog = setInterval(
      () => {
        const now = performance.now();
        for (const searcher of [...searchers]) {
          const done = Atomics.load(searcher.progress, 0);
          if (searcher.batches.length === 0 || done < 0) continue;
          if (done !== searcher.seen) [searcher.seen, searcher.since] = [done, now];
          else if (now - searcher.since > limits.maxFileMilliseconds) giveUp(searcher, done);
        }
      },
      Math.min(250, limits.maxFileMilliseconds / 4),
    );
    signal.addEventListener("abort", onAbort, { once: true });
    produce((path) => {
      queue.push(path);
      if (queue.length >= batchSize) dispatch();
    }).then(() => {
      produced = true;
      dispatch();
    }, finish);
  });
}

/** How a search thread is started: the module's file, or (from the sources) its compiled text, run with `eval`. */
type ThreadScript = { file: URL } | { source: string };

let threadScript: Promise<ThreadScript> | undefined;

/**
 * The search thread's module: search-thread.cjs beside this module, as built into dist/. When this module runs from
 * the TypeScript sources (under vitest, which compiles what it imports but not what a worker thread loads),
 * search-thread.cts is compiled here instead, with the TypeScript compiler of the development install (once per
 * process), and the thread evaluates the output; the module requires only Node's modules, so nothing else is needed.
 */
function searchThreadScript(): Promise<ThreadScript> {
  threadScript ??= import.meta.url.endsWith(".ts")
    ? compileFromSources(new URL("./search-thread.cts", import.meta.url))
    : Promise.resolve({ file: new URL("./search-thread.cjs", import.meta.url) });
  return threadScript;
}

async function compileFromSources(file: URL): Promise<ThreadScript> {
  const compiler = "typescript"; // a development dependency: a name bundlers of the built package do not try to resolve
  const { default: ts } = (await import(compiler)) as { default: typeof import("typescript") };
  const { outputText } = ts.transpileModule(await readFile(file, "utf8"), {
    fileName: file.pathname,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  });
  return { source: outputText };
}
