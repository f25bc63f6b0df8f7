import type { AgentEvent, AgentEventListener } from "../core/events.js";
import { createSecretScrubber, type ScrubOptions, type SecretScrubber } from "./scrub-secrets.js";
import { SpanTreeBuilder, type TraceSubject } from "./span-tree-builder.js";
import type { Trace, TraceExporter } from "./trace.js";

/** Settings of a tracer. Scrubbing options say what never reaches a span and how long payloads may be. */
export type TracerOptions = ScrubOptions & {
  /** Where finished traces go: a JSON file, the console, OpenTelemetry, memory. */
  exporters: readonly TraceExporter[];
  /** Record messages, tool arguments, results and answers (scrubbed and truncated). Default true; false keeps only names, counts and timings. */
  recordPayloads?: boolean;
  /** The clock, in milliseconds since the epoch (tests pass a fake one). Default: the high-resolution clock. */
  now?: () => number;
  /** Told about an exporter that throws or rejects, or a tracing failure. Default: a process warning. Tracing never fails a run. */
  onError?: (error: unknown) => void;
};

/**
 * Turns agent runs into span trees and hands each finished trace to the exporters. Tracing is a
 * listener and nothing more: an agent without one runs no tracing code at all.
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

  constructor(options: TracerOptions) {
    this.#exporters = [...options.exporters];
    this.#scrubber = createSecretScrubber(options);
    this.#recordPayloads = options.recordPayloads ?? true;
    this.#now = options.now ?? (() => performance.timeOrigin + performance.now());
    this.#onError = options.onError ?? reportAsWarning;
  }

  /**
   * A listener to pass as an agent's or a run's `onEvent`. It traces one run at a time: give each
   * agent (or each concurrent run) its own listener, since events do not say which run they belong to.
   * @param subject the agent's name for the run span; the model is named by the run's `run-start` event unless given here.
   */
  listener(subject: TraceSubject = {}): AgentEventListener {
    let builder: SpanTreeBuilder | undefined;
    const options = {
      subject: { ...(subject.model && { model: subject.model }), ...(subject.agentName && { agentName: subject.agentName }) },
      scrubber: this.#scrubber,
      recordPayloads: this.#recordPayloads,
      now: this.#now,
      createId: randomHex,
    };
    return (event: AgentEvent) => {
      // A listener is called from inside the run: a tracing bug must cost the trace, never the run.
      try {
        if (event.type === "run-start") {
          if (builder)
            this.#export(builder.interrupt("Another run started on the same trace listener; give concurrent runs their own listener."));
          builder = new SpanTreeBuilder(event, options);
          return;
        }
        const trace = builder?.add(event);
        if (trace) {
          builder = undefined;
          this.#export(trace);
        }
      } catch (error) {
        builder = undefined;
        this.#onError(error);
      }
    };
  }

  /** Resolves when every export started so far has finished (exporters may write asynchronously). */
  async flush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
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
