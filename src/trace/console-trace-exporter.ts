import { type FormatTraceTreeOptions, formatTraceTree } from "./format-trace-tree.js";
import type { Trace, TraceExporter } from "./trace.js";

/** Settings of the console exporter. Each may be left out or `undefined` (the default applies). */
export type ConsoleTraceExporterOptions = FormatTraceTreeOptions & {
  /** Where the tree goes. Default: standard error, so a program's own output stays clean. */
  write?: ((text: string) => void) | undefined;
};

/** Prints each finished run as a tree (see {@link formatTraceTree}). */
export class ConsoleTraceExporter implements TraceExporter {
  readonly #options: ConsoleTraceExporterOptions;
  readonly #write: (text: string) => void;

  constructor(options: ConsoleTraceExporterOptions = {}) {
    this.#options = options;
    this.#write = options.write ?? ((text) => process.stderr.write(text));
  }

  export(trace: Trace): void {
    this.#write(formatTraceTree(trace, this.#options));
  }
}
