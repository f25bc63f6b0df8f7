import type { DemoContext } from "../demos/demo-context.js";
import { runPlanAndSolveDemo } from "../demos/plan-and-solve-demo.js";
import { runPlanModeDemo } from "../demos/plan-mode-demo.js";
import { runReactDemo } from "../demos/react-demo.js";
import { runReflexionDemo } from "../demos/reflexion-demo.js";
import { formatTrajectory } from "../format.js";
import type { CliIo } from "../io.js";

type Demo = { summary: string; run: (context: DemoContext) => Promise<void> };

const demos: Record<string, Demo> = {
  react: {
    summary: "the book's two-city weather example as a ReAct trajectory",
    run: async (context) => context.io.stdout(formatTrajectory(await runReactDemo(context), context.io.env)),
  },
  "plan-and-solve": {
    summary: "a plan first (the model must call write_plan), then the same run carries it out",
    run: async (context) => context.io.stdout(formatTrajectory(await runPlanAndSolveDemo(context), context.io.env)),
  },
  reflexion: {
    summary: "a wrong answer, a self-reflection, and a second trial that passes",
    run: async (context) => {
      const result = await runReflexionDemo(context);
      context.io.stdout(`${formatTrajectory(result, context.io.env)}trials: ${result.trials}, passed: ${result.passed}\n`);
    },
  },
  "plan-mode": {
    summary: "a write refused while planning, a plan to approve (stdin, or --yes), then the write",
    run: async (context) => context.io.stdout(`\n${formatTrajectory(await runPlanModeDemo(context), context.io.env)}`),
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
  --yes                   approve any plan without asking (plan-mode)
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
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(demoHelp());
    return 0;
  }
  const options = parseDemoOptions(rest);
  if (typeof options === "string") {
    io.stderr(`minagent demo: ${options}\n\n${demoHelp()}`);
    return 2;
  }
  const tracer = options.trace === undefined ? undefined : await createTracer(options.trace);
  await demo.run({ io, yes: options.yes ?? false, ...(tracer && { tracer }) });
  if (tracer) {
    await tracer.flush();
    // Standard error, so the demo's printed trajectory stays the same with or without tracing.
    io.stderr(`Trace written to ${options.trace}; view it with: minagent trace show ${options.trace}\n`);
  }
  return 0;
}

/** A tracer writing to `path`; tracing is loaded only when asked for, so that plain demos start faster. */
async function createTracer(path: string) {
  const [{ Tracer }, { JsonFileExporter }] = await Promise.all([
    import("../../trace/tracer.js"),
    import("../../trace/json-file-exporter.js"),
  ]);
  return new Tracer({ exporters: [new JsonFileExporter({ path })] });
}

/** The demo options, or what is wrong with them. */
function parseDemoOptions(args: readonly string[]): { trace?: string; yes?: boolean } | string {
  const options: { trace?: string; yes?: boolean } = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--yes" || arg === "-y") {
      options.yes = true;
    } else if (arg === "--trace" || arg.startsWith("--trace=")) {
      const file = arg === "--trace" ? args[++i] : arg.slice("--trace=".length);
      if (!file || file.startsWith("--")) return "--trace needs a file name, e.g. --trace out.json.";
      options.trace = file;
    } else {
      return `unknown option "${arg}".`;
    }
  }
  return options;
}
