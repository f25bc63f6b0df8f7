import { readdir, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { pruneCheckpointStore, type RewindConflictPolicy, readCheckpointSettings } from "../../code/checkpoints/index.js";
import { CodingAgent } from "../../code/coding-agent.js";
import { describeProjectCommandRules } from "../../code/commands/index.js";
import { eventCanBlock } from "../../code/hooks/index.js";
import { isPermissionMode, permissionModes } from "../../code/permissions/modes.js";
import { splitRuleList } from "../../code/permissions/parse-rule.js";
import { defaultDataDirectory } from "../../code/sessions/json-lines-session-store.js";
import { pruneSessions } from "../../code/sessions/prune-sessions.js";
import { createSessionScrubber, environmentSecrets } from "../../code/sessions/scrub-message.js";
import { type LoadedSettings, loadSettings, settingsLocations } from "../../code/settings/load-settings.js";
import { settingsEnvironment, settingsValue } from "../../code/settings/session-settings.js";
import { settingsWarnings } from "../../code/settings/settings-warnings.js";
import { describeProjectAgentHooks } from "../../code/subagents/index.js";
import { modelAliases } from "../../code/subagents/model-aliases.js";
import type { AgentEvent } from "../../core/events.js";
import type { Model } from "../../core/types.js";
import { UsageError } from "../../errors.js";
import {
  describeApiKeyVariables,
  findApiKey,
  type ModelSpec,
  modelSpecSyntax,
  parseModelSpec,
  resolveModel,
} from "../../models/resolve-model.js";
import { estimateCost } from "../../trace/model-prices.js";
import { chooseSession } from "../code/choose-session.js";
import { createCodeSessionStore } from "../code/code-session-store.js";
import { describeConfigurationFiles } from "../code/configuration-files.js";
import { runPrintMode } from "../code/print-mode.js";
import { type CodeIo, interruptSignal, readInput, stdinIsTerminal, terminalOf } from "../code/process-input.js";
import { describeProjectSettings, isProjectTrusted, trustProject, withoutProjectSettings } from "../code/project-trust.js";
import { readJsonSchema } from "../code/read-json-schema.js";
import type { CodeOptions, CodeOutputFormat, CodeSessionContext, CodingAgentOverrides, RewindScope } from "../code/session-context.js";
import { createSpendingTracker, type SpendingTracker } from "../code/spending.js";
import {
  approveProjectServers,
  type CodeMcpSetup,
  describeProjectServers,
  describeUnapproved,
  startCodeMcpServers,
} from "../code/start-mcp-servers.js";
import type { CliIo } from "../io.js";
import { parseSeconds, parseWholeNumber } from "../number-flags.js";

const usage = `Usage: minagent code [options] ["<prompt>"]
       minagent code -p "<prompt>" [options]

A coding agent in this folder: Claude Code's tools (Read, Write, Edit, Glob, Grep, Bash, TodoWrite), permissions and
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
  -r, --resume [id]                go on with the session <id>
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
  mcp: CodeMcpSetup["mcp"];
  closeAgent: () => Promise<void>;
  /** Stops listening for SIGINT and SIGTERM. */
  disposeInterrupt: () => void;
};

/**
 * From the flags to the parts of a session, each step once and in order: the options, the model, the settings
 * (read once, after the person has said whether the folder's own may count), the session to write to, the MCP
 * servers, spending, and how agents are made. Throws a UsageError for misuse (exit 2).
 */
async function setUpSession(args: readonly string[], io: CliIo): Promise<SessionParts> {
  const options = await readOptions(args, io);
  const home = defaultDataDirectory(io.env);
  const { settings, projectTrusted } = await readSessionSettings(io, home, options);
  // The settings' `env` counts for the model's connection too (ANTHROPIC_BASE_URL…), as in Claude Code.
  const env = { ...io.env, ...settingsEnvironment(settings).env };
  const model = await openModel({ ...options, model: sessionModel(options, settings) }, env, settings);
  let latestAgent: CodingAgent | undefined;
  const sessions = createCodeSessionStore({
    cwd: options.cwd,
    directory: home,
    env: io.env,
    permissionMode: () => latestAgent?.permissions.mode,
  });
  const session = await chooseSession(sessions, options);
  const pruneWarning = await pruneOldSessions(home, settings);
  if (pruneWarning) io.stderr(`minagent code: ${pruneWarning}\n`);
  const pruneNote = await pruneCheckpoints(home, settings, session.id);
  if (pruneNote) io.stderr(`minagent code: ${pruneNote}\n`);
  const scrubber = createSessionScrubber(environmentSecrets(io.env, createSessionScrubber([])));
  const { mcp, projectMcpServers } = await startMcpServers(io, options, home, settings);
  const spending = createSpendingTracker({ modelId: model.id, free: model.free, budgetUsd: options.maxBudgetUsd });
  const warned = new Set<string>();
  const createAgent = async (overrides: CodingAgentOverrides = {}) => {
    const { onEvent, onCheckpointNote, ...rest } = overrides;
    // A new conversation's agent replaces the last one: its sandbox (network namespace, temporary folder) goes.
    await latestAgent?.close();
    const agent = await CodingAgent.create(model.instance, {
      workspace: options.cwd,
      additionalDirectories: options.additionalDirectories,
      mode: options.permissionMode,
      rules: { allow: options.allowedTools, deny: options.disallowedTools },
      settingsFiles: settings,
      userDirectory: home,
      // The home directory of the environment given (`~/` in rules and memory imports), as the process would have it.
      ...(io.env.HOME ? { home: io.env.HOME } : {}),
      claudeDirectory: claudeDirectory(io.env),
      maxSteps: options.maxTurns,
      ...(options.jsonSchema && { output: options.jsonSchema }),
      prepareTurn: spending.prepareTurn,
      mcp,
      sandbox: options.sandbox,
      // No person answers a -p run: leaving the sandbox is refused there unless the settings allow it.
      unattended: options.print,
      sessionId: session.id,
      checkpoints: {
        directory: join(home, "checkpoints"),
        forkedFrom: session.forkedFrom,
        onNote: onCheckpointNote ?? ((note) => io.stderr(`minagent code: ${note}\n`)),
        scrub: scrubber.text,
      },
      // An agent file's model (`sonnet`, `anthropic:claude-haiku-4-5`) is made as the session's is: this environment's keys and base URLs.
      subagents: {
        resolveModel: (spec) => resolveModel(spec, { env, timeoutMs: options.timeoutMs }),
        // A folder the person did not trust runs no commands through its agent files either.
        projectHooks: projectTrusted,
      },
      // …nor pre-approves anything through its custom commands' allowed-tools.
      commands: { projectAllowedTools: projectTrusted },
      // A hook that failed open (any event but PreToolUse, by default) is said once, so that nothing fails unseen.
      onHookRun: (report) => {
        // What such a hook exits 2 with is for the person, as in Claude Code (it cannot stop anything).
        if (report.outcome === "blocked" && report.message && userNoticeEvents.has(report.event))
          io.stderr(`minagent code: ${report.event} hook: ${report.message}\n`);
        const key = `${report.event}\0${report.hook}`;
        if (report.outcome !== "failed" || !report.failOpen || warned.has(key)) return;
        warned.add(key);
        const program = report.hook.trim().split(/\s+/)[0] ?? report.hook;
        const advice = eventCanBlock(report.event) ? ', or give it "failClosed": true to make its failure block' : "";
        io.stderr(
          `minagent code: a ${report.event} hook (${program}…) failed and was skipped; the session goes on: ${report.message ?? "it failed"}. Fix or install what it runs${advice}.\n`,
        );
      },
      onEvent: (event: AgentEvent) => {
        spending.listen(event);
        onEvent?.(event);
      },
      ...rest,
    });
    // What the agent left out to start (an agent file it cannot use…), said once per process.
    for (const warning of agent.warnings) if (!warned.has(warning)) io.stderr(`minagent code: ${warning}\n`);
    for (const warning of agent.warnings) warned.add(warning);
    if (options.verbose && latestAgent === undefined)
      for (const line of describeConfigurationFiles(agent)) io.stderr(`minagent code: ${line}\n`);
    spending.toolTokens = Math.ceil(JSON.stringify(agent.registry.schemas()).length / 4);
    latestAgent = agent;
    return agent;
  };
  // Made last: once the process listens for Ctrl-C, nothing may fail before runSession stops listening.
  const interrupt = interruptSignal(io);
  const context: CodeSessionContext = {
    io,
    terminal: terminalOf(io),
    model: { spec: model.spec, id: model.id, instance: model.instance },
    options,
    createAgent,
    session,
    sessions,
    spending,
    signal: interrupt.signal,
    projectMcpServers,
  };
  return { context, spending, mcp, closeAgent: async () => latestAgent?.close(), disposeInterrupt: interrupt.dispose };
}

/** Runs the session to its end (-p's prompt, or the interactive UI) and closes what it started. */
async function runSession({ context, spending, mcp, closeAgent, disposeInterrupt }: SessionParts): Promise<number> {
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
    await mcp?.close();
    await closeAgent();
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

/**
 * The model string of the session: `--model` (or MINAGENT_MODEL), else the settings files' `model` — Claude Code's
 * aliases (`opus`, `sonnet`, `haiku`) and Claude ids (`claude-sonnet-4-5`) meaning Anthropic's model
 * (`anthropic:claude-sonnet-4-6`), a `provider:model` string as it is. Throws a UsageError when neither names one.
 */
export function sessionModel(options: Pick<CodeOptions, "model">, settings: LoadedSettings): string {
  if (options.model !== undefined) return options.model;
  const setting = settingsValue(settings, "model");
  if (typeof setting?.value === "string" && setting.value.trim() !== "") {
    // Claude Code's `opusplan` plans on Opus and works on Sonnet: minagent has one model a session, Opus; `default` is Sonnet.
    const given = setting.value.trim().replace(/\[1m\]$/, "");
    const written = given === "opusplan" ? "opus" : given === "default" ? "sonnet" : given;
    if (written.includes(":")) return written;
    const family = (["opus", "sonnet", "haiku"] as const).find((name) => written === name || written.split("-").includes(name));
    if (written.startsWith("claude-")) return `anthropic:${written}`;
    if (family !== undefined) return `anthropic:${modelAliases.anthropic?.[family]}`;
    throw new UsageError(
      `"model" in ${setting.path} is "${written}": minagent reads opus, sonnet, haiku, a Claude model id or <provider>:<model>.\n${modelSpecSyntax}`,
    );
  }
  throw new UsageError(
    `choose a model with --model <model> (or set MINAGENT_MODEL, or "model" in a settings file), e.g. --model anthropic:claude-sonnet-4-6:\n${modelSpecSyntax}`,
  );
}

/**
 * The model, with what spending needs of it: its id for prices, and whether it is free (a local one). The settings'
 * `alwaysThinkingEnabled` turns on an Anthropic model's extended thinking (MAX_THINKING_TOKENS, default 10,000).
 */
async function openModel(
  options: CodeOptions & { model: string },
  env: CliIo["env"],
  settings: LoadedSettings,
): Promise<{ instance: Model; id: string; free: boolean; spec: string }> {
  const spec: ModelSpec = parseModelSpec(options.model);
  if (spec.apiKeyRequired && !findApiKey(spec, env))
    throw new UsageError(
      `${options.model} needs an API key. Set the ${describeApiKeyVariables(spec)} environment variable, e.g.\n  export ${spec.apiKeyVariable}=…`,
    );
  const thinking =
    spec.provider === "anthropic" && settingsValue(settings, "alwaysThinkingEnabled")?.value === true
      ? { budgetTokens: Math.min(maxThinkingTokens, Math.max(1024, Number(env.MAX_THINKING_TOKENS) || defaultThinkingTokens)) }
      : undefined;
  const instance = await resolveModel(options.model, { env, timeoutMs: options.timeoutMs, ...(thinking && { thinking }) });
  const id = instance.modelId ?? spec.model;
  const free = spec.provider === "ollama";
  if (options.maxBudgetUsd !== undefined && !free && estimateCost(id, { inputTokens: 0, outputTokens: 0 }) === undefined)
    throw new UsageError(`--max-budget-usd: no price is known for ${id}, so a budget cannot be kept (prices: src/trace/model-prices.ts).`);
  return { instance, id, free, spec: options.model };
}

/**
 * The person's settings' `cleanupPeriodDays` (a project's is not read), as in Claude Code: session files last written longer ago are deleted as a
 * session starts (the one just chosen, and any another process holds, are kept). Without it, nothing is deleted; a
 * value that is not a number of days is the warning returned, and nothing is deleted either.
 */
async function pruneOldSessions(home: string, settings: LoadedSettings): Promise<string | undefined> {
  // The person's own settings only: a repository must not delete the person's sessions of every project.
  const days = settingsValue({ ...settings, files: settings.files.filter((file) => file.level === "user") }, "cleanupPeriodDays");
  if (days === undefined) return undefined;
  if (typeof days.value !== "number" || !(days.value >= 0))
    return `${days.path}: "cleanupPeriodDays" must be a number of days (0 or more), not ${JSON.stringify(days.value)}; no session was deleted`;
  await pruneSessions(home, days.value);
  return undefined;
}

/**
 * Frees the checkpoint store as a session starts: the checkpoints of sessions whose file is gone (deleted, or pruned
 * by cleanupPeriodDays), and, over the settings' `checkpoints.maxStoreBytes`, the oldest sessions' (said).
 */
async function pruneCheckpoints(home: string, settings: LoadedSettings, current: string): Promise<string | undefined> {
  const existing = new Set<string>();
  const projects = join(home, "projects");
  for (const folder of await readdir(projects).catch(() => [] as string[]))
    for (const name of await readdir(join(projects, folder)).catch(() => [] as string[]))
      if (name.endsWith(".jsonl")) existing.add(name.slice(0, -".jsonl".length));
  const pruned = await pruneCheckpointStore(join(home, "checkpoints"), {
    sessionExists: (id) => existing.has(id),
    maxStoreBytes: readCheckpointSettings(settings).settings.maxStoreBytes,
    keep: [current],
  });
  if (pruned.prunedForCap.length === 0) return undefined;
  return `the checkpoints of ${pruned.prunedForCap.length} older session${pruned.prunedForCap.length === 1 ? "" : "s"} were pruned: the store was over checkpoints.maxStoreBytes (their conversations are kept; their rewinds are gone).`;
}

/** The thinking budget `alwaysThinkingEnabled` gives without MAX_THINKING_TOKENS. */
const defaultThinkingTokens = 10_000;
/** The most MAX_THINKING_TOKENS may ask for: with 4,096 tokens of answer on top it stays within every current Claude model's output limit (32,000). */
const maxThinkingTokens = 27_904;

/**
 * The session's settings files, read once: Claude Code's and minagent's at each level (the user's: CLAUDE_CONFIG_DIR
 * or ~/.claude, then MINAGENT_HOME or ~/.minagent; the project's .claude/ and .minagent/ files, shared then local).
 * A -p run is started by someone who chose the folder (a script, CI): its settings are used as written, as Claude
 * Code does. A person opening a folder is asked first when its own settings would run commands or let the agent do
 * more: yes and remember (in the user's settings.json), this session only, or no (the session starts without them).
 */
async function readSessionSettings(
  io: CliIo,
  home: string,
  options: CodeOptions,
): Promise<{ settings: LoadedSettings; projectTrusted: boolean }> {
  const root = options.cwd;
  const settings = await loadSettings(settingsLocations({ root, userDirectory: home, claudeDirectory: claudeDirectory(io.env) }));
  for (const warning of settingsWarnings(settings)) io.stderr(`minagent code: ${warning}\n`);
  const trusted = { settings, projectTrusted: true };
  // A trusted folder is not read twice: its agent and command files are parsed once, by the agent.
  if (options.print || isProjectTrusted(settings, root)) return trusted;
  // The agent files' hooks are the folder's commands as much as its settings files' are.
  const wanted = [
    ...describeProjectSettings(settings, root),
    ...(await describeProjectAgentHooks(root)),
    ...(await describeProjectCommandRules({ root, claudeDirectory: claudeDirectory(io.env) })),
  ];
  if (wanted.length === 0) return trusted;
  io.stderr(
    `This folder's own settings would run commands or let the agent do more without asking:\n${wanted.map((line) => `  ${line}`).join("\n")}\n` +
      "Trust this folder? y: yes, and remember · s: this session only · n: no, start without them › ",
  );
  const answer = (await io.readLine())?.trim().toLowerCase();
  if (answer === "y" || answer === "yes") {
    await trustProject(home, root);
    io.stderr(`Trusted ${root} (recorded in ${join(home, "settings.json")}).\n`);
    return trusted;
  }
  if (answer === "s") return trusted;
  io.stderr(
    "Starting without the folder's own settings (only their deny and ask rules count), its agent files that have hooks, and what its commands' allowed-tools allow.\n",
  );
  return { settings: withoutProjectSettings(settings), projectTrusted: false };
}

/** Starts the MCP servers (in the background), and says what it did not start and why. */
async function startMcpServers(
  io: CliIo,
  options: CodeOptions,
  home: string,
  settings: LoadedSettings,
): Promise<{ mcp: CodeMcpSetup["mcp"]; projectMcpServers: CodeSessionContext["projectMcpServers"] }> {
  const setup = await startCodeMcpServers({
    cwd: options.cwd,
    home,
    env: io.env,
    configFiles: options.mcpConfigFiles,
    strict: options.strictMcpConfig,
    settings,
    // A server that asks for the sandbox gets the one Bash commands get: the same flags, folders and rules.
    sandbox: options.sandbox,
    additionalDirectories: options.additionalDirectories,
    rules: { allow: options.allowedTools, deny: options.disallowedTools },
  });
  for (const note of setup.notes) io.stderr(`minagent code: ${note}\n`);
  const { unapproved, mcp } = setup;
  if (unapproved.length > 0 && options.print) io.stderr(`minagent code: ${describeUnapproved(unapproved)}\n`);
  if (unapproved.length === 0 || options.print || !mcp) return { mcp, projectMcpServers: undefined };
  return {
    mcp,
    projectMcpServers: {
      descriptions: describeProjectServers(unapproved),
      approve: (remember) => approveProjectServers(mcp, unapproved, options.cwd, remember, home),
    },
  };
}

/** Claude Code's folder in the user's home, as Claude Code finds it: CLAUDE_CONFIG_DIR, else ~/.claude. */
function claudeDirectory(env: CliIo["env"]): string {
  return env.CLAUDE_CONFIG_DIR ? resolve(env.CLAUDE_CONFIG_DIR) : join(homedir(), ".claude");
}

/** Events whose hooks' exit-2 stderr Claude Code shows the person: they cannot block, and say something. */
const userNoticeEvents: ReadonlySet<string> = new Set(["SubagentStart", "PostCompact", "SessionEnd"]);

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
