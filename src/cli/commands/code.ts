import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { RewindConflictPolicy } from "../../code/checkpoints/index.js";
import { isPermissionMode, permissionModes } from "../../code/permissions/modes.js";
import { splitRuleList } from "../../code/permissions/parse-rule.js";
import { UsageError } from "../../errors.js";
import { modelSpecSyntax } from "../../models/resolve-model.js";
import { type OpenedCodeSession, openCodeSession } from "../code/open-code-session.js";
import { runPrintMode } from "../code/print-mode.js";
import { type CodeIo, interruptSignal, readInput, stdinIsTerminal, terminalOf } from "../code/process-input.js";
import { readJsonSchema } from "../code/read-json-schema.js";
import type { CodeOptions, CodeOutputFormat, CodeSessionContext, RewindScope } from "../code/session-context.js";
import type { SpendingTracker } from "../code/spending.js";
import type { CliIo } from "../io.js";
import { parseSeconds, parseWholeNumber } from "../number-flags.js";

const usage = `Usage: minagent code [options] ["<prompt>"]
       minagent code -p "<prompt>" [options]

A coding agent in this folder: Claude Code's tools (Read, Write, Edit, Glob, Grep, Bash, TodoWrite, WebFetch), permissions and
hooks on any model. On a terminal it is interactive; with -p it runs the prompt to the end, prints the outcome
and exits (the prompt may also come on stdin). Every run is saved as a session you can go on with.

Models (--model, or the MINAGENT_MODEL environment variable):
${modelSpecSyntax}

Options:
  -p, --print                      run the prompt to the end, print the outcome, exit
  --output-format <format>         with -p: text (the answer; default), json (one result object) or
                                   stream-json (one JSON object per event, then the result)
  --json-schema <schema|file>      with -p: the answer must be JSON matching this JSON Schema (given inline
                                   or as a file); the json result carries it as structured_output
  -m, --model <model>              the model to run (see above)
  --permission-mode <mode>         ${permissionModes.join(", ")}
  --allowedTools <rules…>          allow rules, e.g. "Bash(npm test)" Edit or "Bash(git log:*),Read"
  --disallowedTools <rules…>       deny rules, same syntax
  --max-turns <n>                  model calls allowed per prompt (default 50)
  --max-budget-usd <dollars>       make no model call that would take the spending past this
  --cwd <dir>                      the folder to work in (default: the current one)
  --add-dir <dir>                  another folder the tools may use (repeat for more)
  --timeout <seconds>              give up on one attempt at a model call after this long, and retry it
  -c, --continue                   go on with this folder's newest session
  -r, --resume [id]                go on with the session <id>; --resume=<name>: the one named so (/rename)
  --fork-session                   with --continue or --resume: save to a new session, leave the old one as it was
  --rewind <n|id|list>             with --continue or --resume: undo the session back to before checkpoint n
                                   (list: show the checkpoints); with a prompt, go on from there
  --rewind-scope <scope>           both (default), code or conversation
  --rewind-conflicts <policy>      files changed after the agent's last change: refuse (default), keep, overwrite
  --mcp-config <file>              start the MCP servers of this .mcp.json file too (repeat for more)
  --strict-mcp-config              start only the --mcp-config files' servers
  --verbose                        show tool calls, results and usage on stderr
  --sandbox                        run every Bash command in the OS sandbox (the default where it can run)
  --no-sandbox                     run Bash commands unconfined, over sandbox.enabled in the settings

MCP servers come from ~/.minagent/mcp.json, the project's .mcp.json (once approved: see docs/mcp.md) and
--mcp-config files; their tools are mcp__<server>__<tool>, and permission rules apply to them.

With -p, a call that needs approval is denied (the model is told nobody could approve it), unless the
permission mode or an --allowedTools rule allows it. Exit codes: 0 done, 1 failed (provider error, turn or
budget limit), 2 misuse, 130 interrupted (the conversation is saved). See docs/cli-code.md.
`;

/** `minagent code`: the coding agent in this folder, interactive on a terminal or to the end with -p. */
export async function codeCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(usage);
    return 0;
  }
  let session: SessionParts;
  try {
    session = await setUpSession(args, io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`minagent code: ${error.message}\n`);
    return 2;
  }
  return runSession(session);
}

/** Everything a session runs with, once the flags have been turned into parts. */
type SessionParts = {
  context: CodeSessionContext;
  /** The whole tracker (-p reports model calls and tool tokens from it); the context holds its UI-facing part. */
  spending: SpendingTracker;
  mcp: OpenedCodeSession["mcp"];
  /** Closes the MCP servers and the latest agent. */
  close: () => Promise<void>;
  /** Stops listening for SIGINT and SIGTERM. */
  disposeInterrupt: () => void;
};

/** The flags turned into a session's parts (openCodeSession), and the process's Ctrl-C and terminal around them. */
async function setUpSession(args: readonly string[], io: CliIo): Promise<SessionParts> {
  const opened = await openCodeSession(await readOptions(args, io), io);
  // Made last: once the process listens for Ctrl-C, nothing may fail before runSession stops listening.
  const interrupt = interruptSignal(io);
  const { spending, mcp, close, ...parts } = opened;
  const context: CodeSessionContext = { ...parts, io, terminal: terminalOf(io), spending, signal: interrupt.signal };
  return { context, spending, mcp, close, disposeInterrupt: interrupt.dispose };
}

/** Runs the session to its end (-p's prompt, or the interactive UI) and closes what it started. */
async function runSession({ context, spending, mcp, close, disposeInterrupt }: SessionParts): Promise<number> {
  try {
    if (context.options.print) {
      // A -p run has no person to wait for: give servers that start quickly the time to, so that the first turn
      // has their tools. A slow one never holds the run longer; its tools join when it is ready.
      if (mcp) await Promise.race([mcp.ready(), delay(printModeMcpWaitMs)]);
      return await runPrintMode({ ...context, spending, prompt: context.options.prompt ?? "" });
    }
    // Loaded only for a terminal session: -p never pays for the UI's modules.
    const { runInteractiveSession } = await import("../code/interactive/index.js");
    return await runInteractiveSession(context);
  } finally {
    disposeInterrupt();
    await close();
  }
}

/** The flags, checked, with -p's prompt read from standard input when the command line has none. */
async function readOptions(args: readonly string[], io: CodeIo): Promise<CodeOptions> {
  try {
    const options = parseCodeArguments(args, io.env, process.cwd());
    if (!options.print && !stdinIsTerminal(io))
      throw new UsageError(
        'standard input is not a terminal: run a prompt to the end with -p, e.g. minagent code -p "Fix the failing test"',
      );
    await checkFolders(options);
    // `--rewind` alone is a whole run: no prompt is waited for.
    return options.print && options.prompt === undefined && !options.rewind ? { ...options, prompt: await promptFromInput(io) } : options;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw new UsageError(`${error.message}\nRun "minagent code --help" for the options.`, { cause: error });
  }
}

/** How long a -p run waits for its MCP servers before the first turn, at most. */
const printModeMcpWaitMs = 5_000;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

async function checkFolders(options: CodeOptions): Promise<void> {
  const folders: [string, string][] = [
    ["--cwd", options.cwd],
    ...options.additionalDirectories.map((dir): [string, string] => ["--add-dir", dir]),
  ];
  for (const [flag, folder] of folders) {
    const info = await stat(folder).catch(() => undefined);
    if (!info?.isDirectory()) throw new UsageError(`${flag} ${folder}: ${info ? "not a folder" : "no such folder"}`);
  }
}

async function promptFromInput(io: CodeIo): Promise<string> {
  const hint = 'give the prompt as an argument (minagent code -p "Fix the failing test") or on standard input';
  if (stdinIsTerminal(io)) throw new UsageError(`-p needs a prompt: ${hint}`);
  const text = (await readInput(io)).trim();
  if (text === "") throw new UsageError(`-p needs a prompt, and standard input was empty: ${hint}`);
  return text;
}

const outputFormats: readonly CodeOutputFormat[] = ["text", "json", "stream-json"];
const valueFlags = new Set([
  "--rewind",
  "--rewind-scope",
  "--rewind-conflicts",
  "--output-format",
  "--model",
  "--permission-mode",
  "--max-turns",
  "--max-budget-usd",
  "--cwd",
  "--add-dir",
  "--timeout",
  "--mcp-config",
  "--json-schema",
]);
const ruleFlags = new Set(["--allowedTools", "--disallowedTools"]);
const aliases: Record<string, string> = {
  "-p": "--print",
  "-m": "--model",
  "-c": "--continue",
  "-r": "--resume",
  "--allowed-tools": "--allowedTools",
  "--disallowed-tools": "--disallowedTools",
};
/** A whole argument that reads as a permission rule: `Edit`, `Bash(npm test)`, `mcp__github`. */
const ruleShape = /^(?:[A-Z][A-Za-z0-9_-]*|mcp__[A-Za-z0-9_-]+)(?:\(.*\))?$/s;
const sessionIdShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Parses `minagent code`'s arguments. Rule flags take one argument of rules separated by commas or spaces (outside
 * parentheses) and, as Claude Code's do, the arguments after it that read as rules; `--resume` takes the next
 * argument when it is a session id. Throws a UsageError saying what is wrong.
 */
export function parseCodeArguments(args: readonly string[], env: CliIo["env"], cwd: string): CodeOptions {
  const positional: string[] = [];
  const values = new Map<string, string>();
  const rules = { "--allowedTools": [] as string[], "--disallowedTools": [] as string[] };
  const addDirs: string[] = [];
  const mcpConfigs: string[] = [];
  const switches = new Set<string>();
  let resume: string | true | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === "--") {
      positional.push(...args.slice(index + 1));
      break;
    }
    const equals = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const written = equals === -1 ? arg : arg.slice(0, equals);
    const inline = equals === -1 ? undefined : arg.slice(equals + 1);
    const flag = aliases[written] ?? written;
    if (
      [
        "--print",
        "--continue",
        "--fork-session",
        "--verbose",
        "--dangerously-skip-permissions",
        "--strict-mcp-config",
        "--sandbox",
        "--no-sandbox",
      ].includes(flag)
    ) {
      if (inline !== undefined) throw new UsageError(`${flag} takes no value`);
      switches.add(flag);
    } else if (flag === "--resume") {
      const next = args[index + 1];
      const takesNext = inline === undefined && next !== undefined && sessionIdShape.test(next);
      if (takesNext) index++;
      resume = inline ?? (takesNext ? next : true);
    } else if (valueFlags.has(flag) || ruleFlags.has(flag)) {
      const value = inline ?? args[++index];
      if (value === undefined || (inline === undefined && value.startsWith("-") && value.length > 1))
        throw new UsageError(`${flag} needs a value`);
      if (flag === "--add-dir") addDirs.push(value);
      else if (flag === "--mcp-config") mcpConfigs.push(value);
      else if (ruleFlags.has(flag)) {
        const list = rules[flag as keyof typeof rules];
        list.push(...splitRules(value));
        while (inline === undefined && ruleShape.test(args[index + 1] ?? "")) list.push(...splitRules(args[++index] as string));
      } else if (values.has(flag)) throw new UsageError(`${flag} given twice`);
      else values.set(flag, value);
    } else if (arg.startsWith("-") && arg.length > 1) throw new UsageError(`unknown option ${arg}`);
    else positional.push(arg);
  }
  // Without one, the settings files' `model` decides, once they are read (sessionModel).
  const model = values.get("--model") ?? (env.MINAGENT_MODEL || undefined);
  const outputFormat = (values.get("--output-format") ?? "text") as CodeOutputFormat;
  if (!outputFormats.includes(outputFormat))
    throw new UsageError(`--output-format must be one of ${outputFormats.join(", ")}, got "${outputFormat}"`);
  if (values.has("--output-format") && !switches.has("--print")) throw new UsageError("--output-format applies to -p runs only; add -p");
  const permissionMode = switches.has("--dangerously-skip-permissions") ? "bypassPermissions" : values.get("--permission-mode");
  if (permissionMode !== undefined && !isPermissionMode(permissionMode))
    throw new UsageError(`--permission-mode must be one of ${permissionModes.join(", ")}, got "${permissionMode}"`);
  if (switches.has("--continue") && resume !== undefined)
    throw new UsageError("--continue and --resume cannot be used together; choose one");
  if (switches.has("--fork-session") && !switches.has("--continue") && resume === undefined)
    throw new UsageError("--fork-session copies the session that --continue or --resume names; add one of them");
  if (switches.has("--strict-mcp-config") && mcpConfigs.length === 0)
    throw new UsageError("--strict-mcp-config uses only the servers of --mcp-config files; add --mcp-config <file>");
  if (switches.has("--sandbox") && switches.has("--no-sandbox"))
    throw new UsageError("--sandbox and --no-sandbox cannot be used together; choose one");
  const budget = values.get("--max-budget-usd");
  const maxBudgetUsd = budget === undefined ? undefined : Number(budget);
  if (maxBudgetUsd !== undefined && !(maxBudgetUsd > 0 && Number.isFinite(maxBudgetUsd)))
    throw new UsageError(`--max-budget-usd must be an amount of dollars > 0, got "${budget}"`);
  const prompt = positional.join(" ").trim();
  const rewind = values.get("--rewind");
  if (rewind !== undefined && !switches.has("--continue") && resume === undefined)
    throw new UsageError("--rewind goes back in a saved session; name it with --continue or --resume <id>");
  if (rewind !== undefined && !switches.has("--print"))
    throw new UsageError("--rewind applies to -p runs; in the interactive session use /rewind (or Esc Esc)");
  const rewindScope = values.get("--rewind-scope") ?? "both";
  if (!["both", "code", "conversation"].includes(rewindScope))
    throw new UsageError(`--rewind-scope must be both, code or conversation, got "${rewindScope}"`);
  const rewindConflicts = values.get("--rewind-conflicts") ?? "refuse";
  if (!["refuse", "keep", "overwrite"].includes(rewindConflicts))
    throw new UsageError(`--rewind-conflicts must be refuse, keep or overwrite, got "${rewindConflicts}"`);
  if (rewind === undefined && (values.has("--rewind-scope") || values.has("--rewind-conflicts")))
    throw new UsageError("--rewind-scope and --rewind-conflicts go with --rewind <n>");
  const jsonSchema = values.get("--json-schema");
  if (jsonSchema !== undefined && !switches.has("--print")) throw new UsageError("--json-schema applies to -p runs only; add -p");
  return {
    prompt: prompt === "" ? undefined : prompt,
    print: switches.has("--print"),
    outputFormat,
    model,
    permissionMode,
    allowedTools: rules["--allowedTools"],
    disallowedTools: rules["--disallowedTools"],
    maxTurns: parseWholeNumber(values.get("--max-turns"), "--max-turns"),
    maxBudgetUsd,
    cwd: resolve(cwd, values.get("--cwd") ?? "."),
    additionalDirectories: addDirs.map((dir) => resolve(cwd, dir.startsWith("~/") ? join(homedir(), dir.slice(2)) : dir)),
    timeoutMs: parseSeconds(values.get("--timeout"), "--timeout"),
    continue: switches.has("--continue"),
    resume,
    forkSession: switches.has("--fork-session"),
    verbose: switches.has("--verbose"),
    mcpConfigFiles: mcpConfigs.map((file) => resolve(cwd, file)),
    strictMcpConfig: switches.has("--strict-mcp-config"),
    sandbox: switches.has("--no-sandbox") ? false : switches.has("--sandbox") ? true : undefined,
    ...(rewind !== undefined && {
      rewind: { target: rewind, scope: rewindScope as RewindScope, onConflict: rewindConflicts as RewindConflictPolicy },
    }),
    ...(jsonSchema !== undefined && { jsonSchema: readJsonSchema(jsonSchema, cwd) }),
  };
}

/** Rules separated by commas or whitespace outside parentheses: `Bash(npm run test, lint) Edit` is two rules. */
export const splitRules = splitRuleList;
