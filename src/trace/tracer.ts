import type { AgentEvent, AgentEventListener } from "../core/events.js";
import { createSecretScrubber, type ScrubOptions, type SecretScrubber } from "./scrub-secrets.js";
import { SpanTreeBuilder, type SpanTreeBuilderOptions, type TraceSubject } from "./span-tree-builder.js";
import type { Trace, TraceExporter } from "./trace.js";

/**
 * Settings of a tracer. Scrubbing options say what never reaches a span and how long payloads may be.
 * Every field but `exporters` may be left out or `undefined` (the default applies).
 */
export type TracerOptions = ScrubOptions & {
  /** Where finished traces go: a JSON file, the console, OpenTelemetry, memory. */
  exporters: readonly TraceExporter[];
  /** Record messages, tool arguments, results and answers (scrubbed and truncated). Default true; false keeps only names, counts and timings. */
  recordPayloads?: boolean | undefined;
  /** The clock, in milliseconds since the epoch (tests pass a fake one). Default: the high-resolution clock. */
  now?: (() => number) | undefined;
  /** Told about an exporter that throws or rejects, or a tracing failure. Default: a process warning. Tracing never fails a run. */
  onError?: ((error: unknown) => void) | undefined;
};

/**
 * Turns agent runs into span trees and hands each finished trace to the exporters. Tracing is a
 * listener and nothing more: an agent without one runs no tracing code at all.
 *
 * One trace per top-level run: a run started under another (a tool's `agent.run(task, { parent: context })`,
 * a pattern's trials) is drawn inside its parent's trace, and the trace is exported when the top-level
 * run ends. Events say which run they belong to, so one listener can hear many runs at once.
 * @example
 * const tracer = new Tracer({ exporters: [new JsonFileExporter({ directory: "traces" })] });
 * const agent = new Agent(model, registry, { onEvent: tracer.listener() });
 * await agent.run("…");
 * await tracer.flush();
 */
export class Tracer {
  readonly #exporters: readonly TraceExporter[];
  readonly #scrubber: SecretScrubber;
  readonly #recordPayloads: boolean;
  readonly #now: () => number;
  readonly #onError: (error: unknown) => void;
  readonly #pending = new Set<Promise<void>>();
  /** Every run being traced, by run id, whichever listener heard it start. */
  readonly #runs = new Map<string, SpanTreeBuilder>();
  /** The run of the last event: most events follow one of the same run, and need no lookup. */
  #current: SpanTreeBuilder | undefined;
  /** The last event recorded: a child run's event reaches each ancestor's listeners as the same object. */
  #lastEvent: AgentEvent | undefined;

  constructor(options: TracerOptions) {
    this.#exporters = [...options.exporters];
    this.#scrubber = createSecretScrubber(options);
    this.#recordPayloads = options.recordPayloads ?? true;
    this.#now = options.now ?? (() => performance.timeOrigin + performance.now());
    this.#onError = options.onError ?? reportAsWarning;
  }

  /**
   * A listener to pass as an agent's or a run's `onEvent`. It traces every run it hears, concurrent ones
   * included, each top-level run as its own trace with its child runs inside. Listeners of one tracer
   * share their runs: a child agent with its own listener is still drawn inside its parent's trace, once.
   * @param subject names the runs this listener is attached to (not the child runs it hears from below):
   * the agent's name for the run span; the model is named by each run's `run-start` event unless given here.
   */
  listener(subject: TraceSubject = {}): AgentEventListener {
    const options: SpanTreeBuilderOptions = {
      subject: { ...(subject.model && { model: subject.model }), ...(subject.agentName && { agentName: subject.agentName }) },
      scrubber: this.#scrubber,
      recordPayloads: this.#recordPayloads,
      now: this.#now,
      createId: randomHex,
    };
    // A child run heard from below (its parent recorded by this listener) is not the agent the subject names.
    const unnamed = { ...options, subject: {} };
    return (event: AgentEvent) => {
      if (event === this.#lastEvent) return;
      this.#lastEvent = event;
      // A listener is called from inside the run: a tracing bug must cost the trace, never the run.
      try {
        if (event.type === "run-start") {
          this.#startRun(event, options, unnamed);
          return;
        }
        let run = this.#current;
        if (run === undefined || run.runId !== event.runId) {
          run = this.#runs.get(event.runId);
          if (run === undefined) return;
          this.#current = run;
        }
        if (run.add(event)) this.#endRun(run);
      } catch (error) {
        this.#runs.delete(event.runId);
        this.#current = undefined;
        this.#onError(error);
      }
    };
  }

  /** Resolves when every export started so far has finished (exporters may write asynchronously). */
  async flush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
  }

  /** `options` is the listener's own (its subject); `unnamed`, for a child run of a run this listener records. */
  #startRun(event: Extract<AgentEvent, { type: "run-start" }>, options: SpanTreeBuilderOptions, unnamed: SpanTreeBuilderOptions): void {
    if (this.#runs.has(event.runId)) return;
    const parent = event.parentRunId === undefined ? undefined : this.#runs.get(event.parentRunId);
    const run = parent
      ? parent.startChild(event, parent.recordedBy === options ? unnamed : options, options)
      : new SpanTreeBuilder(event, options, options);
    this.#runs.set(event.runId, run);
    this.#current = run;
  }

  /** A run has ended: a top-level run's trace is finished and exported. */
  #endRun(run: SpanTreeBuilder): void {
    this.#runs.delete(run.runId);
    this.#current = undefined;
    if (!run.isTopLevel) return;
    this.#lastEvent = undefined;
    this.#export(run.trace.finish());
  }

  #export(trace: Trace): void {
    for (const exporter of this.#exporters) {
      try {
        const outcome = exporter.export(trace);
        if (outcome instanceof Promise) {
          const pending: Promise<void> = outcome.catch(this.#onError).finally(() => this.#pending.delete(pending));
          this.#pending.add(pending);
        }
      } catch (error) {
        this.#onError(error);
      }
    }
  }
}

/**
 * Random hex of `bytes` bytes. Ids need to be unique, not secret, so Math.random serves (as in
 * OpenTelemetry's own id generator); crypto.randomBytes cost a third of a traced run.
 */
function randomHex(bytes: number): string {
  let hex = "";
  // Four bytes per draw: a double carries 52 random bits.
  for (let i = 0; i < bytes; i += 4) hex += ((Math.random() * 0x1_0000_0000) >>> 0).toString(16).padStart(8, "0");
  return hex.slice(0, bytes * 2);
}

function reportAsWarning(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  process.emitWarning(`minagent tracing: ${message}`, { type: "MinagentTraceWarning" });
}
