import { JsonFileExporter } from "../../trace/json-file-exporter.js";
import { Tracer } from "../../trace/tracer.js";
import type { CliIo } from "../io.js";
import { formatTrajectory } from "../format.js";
import { runReactDemo } from "../demos/react-demo.js";

/** What a demo gets besides io: a tracer when `--trace <file>` was given. */
type DemoOptions = { tracer?: Tracer };

type Demo = { summary: string; run: (io: CliIo, options: DemoOptions) => Promise<void> };

const demos: Record<string, Demo> = {
  react: {
    summary: "the book's two-city weather example as a ReAct trajectory",
    run: async (io, options) => io.stdout(formatTrajectory(await runReactDemo(options))),
  },
};

/** Names and one-line summaries of the demos, for help texts. */
export function demoList(): string {
  return Object.entries(demos)
    .map(([name, demo]) => `  ${name.padEnd(22)}${demo.summary}`)
    .join("\n");
}

const demoHelp = () => `Usage: minagent demo <name> [options]

Runs a demo on FakeModel, a scripted model: no API key and no network needed.

Demos:
${demoList()}

Options:
  --trace <file>          write the run's span tree as JSON (view it with "minagent trace show <file>")
`;

/** `minagent demo <name>` */
export async function demoCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = args;
  if (name === "--help" || name === "-h") {
    io.stdout(demoHelp());
    return 0;
  }
  if (name === undefined) {
    io.stderr(`minagent demo: name a demo.\n\n${demoHelp()}`);
    return 2;
  }
  const demo = demos[name];
  if (!demo) {
    io.stderr(`minagent demo: no demo named "${name}".\n\n${demoHelp()}`);
    return 2;
  }
  const options = parseDemoOptions(rest);
  if (typeof options === "string") {
    io.stderr(`minagent demo: ${options}\n\n${demoHelp()}`);
    return 2;
  }
  const tracer = options.trace === undefined ? undefined : new Tracer({ exporters: [new JsonFileExporter({ path: options.trace })] });
  await demo.run(io, tracer ? { tracer } : {});
  if (tracer) {
    await tracer.flush();
    // Standard error, so the demo's printed trajectory stays the same with or without tracing.
    io.stderr(`Trace written to ${options.trace}; view it with: minagent trace show ${options.trace}\n`);
  }
  return 0;
}

/** The demo options, or what is wrong with them. */
function parseDemoOptions(args: readonly string[]): { trace?: string } | string {
  const options: { trace?: string } = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--trace" || arg.startsWith("--trace=")) {
      const file = arg === "--trace" ? args[++i] : arg.slice("--trace=".length);
      if (!file || file.startsWith("--")) return "--trace needs a file name, e.g. --trace out.json.";
      options.trace = file;
    } else {
      return `unknown option "${arg}".`;
    }
  }
  return options;
}
