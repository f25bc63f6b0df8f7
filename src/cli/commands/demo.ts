import type { CliIo } from "../io.js";
import { formatTrajectory } from "../format.js";
import { runReactDemo } from "../demos/react-demo.js";

type Demo = { summary: string; run: (io: CliIo, args: readonly string[]) => Promise<void> };

const demos: Record<string, Demo> = {
  react: {
    summary: "the book's two-city weather example as a ReAct trajectory",
    run: async (io) => io.stdout(formatTrajectory(await runReactDemo())),
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
  await demo.run(io, rest);
  return 0;
}
