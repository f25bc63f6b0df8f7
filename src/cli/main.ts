import { formatTrajectory } from "./format.js";
import type { CliIo } from "./io.js";
import { runReactDemo } from "./demos/react-demo.js";

type Demo = { summary: string; run: (io: CliIo) => Promise<void> };

const demos: Record<string, Demo> = {
  react: {
    summary: "the book's two-city weather example as a ReAct trajectory (scripted model, offline)",
    run: async (io) => io.stdout(formatTrajectory(await runReactDemo())),
  },
};

const help = `minagent — a small agent engine: one plain tool-use loop.

Usage:
  minagent demo <name>      run an offline demo on the scripted model (no key, no network)
  minagent --help           show this help
  minagent --version        show the version

Demos:
${demoList()}

Run "minagent demo --help" for details.
`;

const demoHelp = `Usage: minagent demo <name>

Runs a demo on FakeModel, a scripted model: no API key and no network needed.

Demos:
${demoList()}
`;

function demoList(): string {
  return Object.entries(demos)
    .map(([name, demo]) => `  ${name.padEnd(24)}${demo.summary}`)
    .join("\n");
}

/** The CLI: runs the command in `argv` (without node and script) and resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    io.stdout(help);
    return 0;
  }
  if (command === "--version" || command === "-v") {
    io.stdout(`${await readVersion()}\n`);
    return 0;
  }
  if (command === "demo") return runDemo(rest, io);
  io.stderr(`minagent: unknown command "${command}". Run "minagent --help" to see the commands.\n`);
  return 2;
}

async function runDemo(args: readonly string[], io: CliIo): Promise<number> {
  const [name] = args;
  if (name === undefined || name === "--help" || name === "-h") {
    (name === undefined ? io.stderr : io.stdout)(demoHelp);
    return name === undefined ? 2 : 0;
  }
  const demo = demos[name];
  if (!demo) {
    io.stderr(`minagent: no demo named "${name}".\n\n${demoHelp}`);
    return 2;
  }
  await demo.run(io);
  return 0;
}

async function readVersion(): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  const manifest = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}
