import type { Trace, TraceExporter } from "./trace.js";

/** Keeps traces in memory, for tests and for callers that ship traces themselves. */
export class MemoryTraceExporter implements TraceExporter {
  /** Every trace exported, oldest first. */
  readonly traces: Trace[] = [];

  export(trace: Trace): void {
    this.traces.push(trace);
  }
}
