import { Readable, Writable } from "node:stream";
import { permissionModes } from "../../code/permissions/modes.js";
import { killRunningCommands } from "../../code/tools/bash.js";
import { UsageError } from "../../errors.js";
import { modelSpecSyntax } from "../../models/resolve-model.js";
import type { CodeOptions } from "../code/session-context.js";
import type { CliIo } from "../io.js";
import { readVersion } from "../read-version.js";
import { parseCodeArguments } from "./code.js";

const usage = `Usage: minagent acp [options]

The coding agent inside your editor: minagent code's tools, permissions, hooks, sessions and MCP servers, served over
the Agent Client Protocol on stdio (Zed, JetBrains IDEs, Neovim plugins). The editor starts it and opens sessions in
its project's folder; stdout carries only JSON-RPC, logs go to stderr. See docs/editors.md.

Models (--model, or the MINAGENT_MODEL environment variable, or "model" in the settings files):
${modelSpecSyntax}

Options (as minagent code's):
  -m, --model <model>              the model to run
  --permission-mode <mode>         the mode sessions start in: ${permissionModes.join(", ")}
  --allowedTools <rules…>          allow rules, e.g. "Bash(npm test)" Edit
  --disallowedTools <rules…>       deny rules, same syntax
  --max-turns <n>                  model calls allowed per prompt (default 50)
  --max-budget-usd <dollars>       make no model call that would take a session's spending past this
  --add-dir <dir>                  another folder the tools may use (repeat for more)
  --timeout <seconds>              give up on one attempt at a model call after this long, and retry it
  --mcp-config <file>              start the MCP servers of this .mcp.json file too (repeat for more)
  --strict-mcp-config              start only the --mcp-config files' servers (and the editor's)
  --sandbox / --no-sandbox         run every Bash command in the OS sandbox (the default where it can run), or not
`;

/** Flags of minagent code that have no meaning here: the editor chooses the folder, the sessions and the prompts. */
const editorChooses: readonly [keyof CodeOptions, string][] = [
  ["print", "-p"],
  ["prompt", "a prompt"],
  ["continue", "--continue"],
  ["resume", "--resume"],
  ["forkSession", "--fork-session"],
  ["rewind", "--rewind"],
  ["jsonSchema", "--json-schema"],
];

/**
 * `minagent acp`: serves the coding agent to an editor over ACP on stdin and stdout until the editor closes stdin
 * (or SIGTERM), then closes every session — its runs cancelled, command process trees killed, MCP servers stopped —
 * and exits.
 */
export async function acpCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(usage);
    return 0;
  }
  let options: CodeOptions;
  try {
    if (args.some((arg) => arg === "--cwd" || arg.startsWith("--cwd=")))
      throw new UsageError("--cwd does not apply: the editor names each session's folder");
    options = parseCodeArguments(args, io.env, process.cwd());
    for (const [field, flag] of editorChooses)
      if (options[field] !== undefined && options[field] !== false)
        throw new UsageError(`${flag} does not apply to minagent acp: the editor chooses the sessions and sends the prompts`);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`minagent acp: ${error.message}\nRun "minagent acp --help" for the options.\n`);
    return 2;
  }
  // Nothing but JSON-RPC may reach stdout: a library that logs with console.log writes to stderr instead.
  for (const method of ["log", "info", "debug"] as const) console[method] = console.error;
  const { ndJsonStream } = await import("@agentclientprotocol/sdk");
  const { serveAcp } = await import("../acp/serve-acp.js");
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const server = serveAcp(stream, { options, io, version: await readVersion() });
  const stop = () => void server.close();
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  // Once the editor has gone, the sessions get a moment to close (runs cancelled, MCP servers stopped), no more.
  await Promise.race([server.closed, server.disconnected.then(() => delay(closeGraceMs))]);
  process.off("SIGTERM", stop);
  process.off("SIGINT", stop);
  // A command still dying (one that ignores SIGTERM, waiting for its SIGKILL) is killed now, not after the exit.
  killRunningCommands();
  // Whatever is still pending (a server slow to stop, a timer) must not keep the process.
  setTimeout(() => process.exit(0), 200).unref();
  return 0;
}

/** How long the sessions may take to close once the editor has gone. */
const closeGraceMs = 1_000;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
