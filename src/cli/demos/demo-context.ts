import type { Tracer } from "../../trace/tracer.js";
import type { CliIo } from "../io.js";

/** What a demo gets from the command line. */
export type DemoContext = {
  io: CliIo;
  /** `--yes`: approve prompts without asking. */
  yes: boolean;
  /** `--trace <file>`: the tracer to attach to the run. */
  tracer?: Tracer;
};
