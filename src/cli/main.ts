import { demoCommand, demoList } from "./commands/demo.js";
import type { CliIo } from "./io.js";

type Command = { usage: string; summary: string; run: (args: readonly string[], io: CliIo) => Promise<number> };

/** The CLI's commands; each lives in its own file under commands/. */
const commands: Record<string, Command> = {
  code: {
    usage: 'code [-p "<prompt>"]',
    summary: "a coding agent in this folder: interactive, or to the end with -p",
    run: (args, io) => import("./commands/code.js").then(({ codeCommand }) => codeCommand(args, io)),
  },
  acp: {
    usage: "acp [--model <m>]",
    summary: "the coding agent inside your editor, over the Agent Client Protocol (Zed, JetBrains, Neovim)",
    run: (args, io) => import("./commands/acp.js").then(({ acpCommand }) => acpCommand(args, io)),
  },
  mcp: {
    usage: "mcp list|login|logout",
    summary: "the MCP servers configured here, and their OAuth logins",
    run: (args, io) => import("./commands/mcp.js").then(({ mcpCommand }) => mcpCommand(args, io)),
  },
  demo: { usage: "demo <name>", summary: "run an offline demo on the scripted model (no key, no network)", run: demoCommand },
  run: {
    usage: "run <task> --model <m>",
    summary: "run an agent on a real model, streaming (anthropic:, openai:, ollama:, …)",
    run: (args, io) => import("./commands/run.js").then(({ runCommand }) => runCommand(args, io)),
  },
  trace: {
    usage: "trace show|serve <file or dir>",
    summary: "draw a trace as a tree of spans, or see traces and sessions in the browser",
    run: (args, io) => import("./commands/trace.js").then(({ traceCommand }) => traceCommand(args, io)),
  },
};

function help(): string {
  const rows: [string, string][] = [
    ...Object.values(commands).map((command): [string, string] => [command.usage, command.summary]),
    ["--help", "show this help"],
    ["--version", "show the version"],
  ];
  const width = Math.max(...rows.map(([usage]) => usage.length)) + 2;
  const lines = rows.map(([usage, summary]) => `  minagent ${usage.padEnd(width)}${summary}`);
  return `minagent — a small agent engine: one plain tool-use loop.

Usage:
${lines.join("\n")}

Demos:
${demoList()}

Run "minagent <command> --help" for a command's options.
`;
}

/** The CLI: runs the command in `argv` (without node and script) and resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.stdout(help());
    return 0;
  }
  if (name === "--version" || name === "-v") {
    const { readVersion } = await import("./read-version.js");
    io.stdout(`${await readVersion()}\n`);
    return 0;
  }
  const command = commands[name];
  if (!command) {
    io.stderr(`minagent: unknown command "${name}". Run "minagent --help" to see the commands.\n`);
    return 2;
  }
  return command.run(rest, io);
}
