import { readdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { pruneCheckpointStore, readCheckpointSettings } from "../../code/checkpoints/index.js";
import { CodingAgent } from "../../code/coding-agent.js";
import { describeProjectCommandRules } from "../../code/commands/index.js";
import { eventCanBlock } from "../../code/hooks/index.js";
import { defaultDataDirectory } from "../../code/sessions/json-lines-session-store.js";
import { pruneSessions } from "../../code/sessions/prune-sessions.js";
import { createSessionScrubber, environmentSecrets } from "../../code/sessions/scrub-message.js";
import { type LoadedSettings, loadSettings, settingsLocations } from "../../code/settings/load-settings.js";
import { settingsEnvironment, settingsValue } from "../../code/settings/session-settings.js";
import { settingsWarnings } from "../../code/settings/settings-warnings.js";
import { describeProjectAgentHooks } from "../../code/subagents/index.js";
import { modelAliases, subagentModelSpec } from "../../code/subagents/model-aliases.js";
import { Workspace } from "../../code/workspace.js";
import type { AgentEvent } from "../../core/events.js";
import type { Model } from "../../core/types.js";
import { UsageError } from "../../errors.js";
import type { ResolvedMcpServer } from "../../mcp/config.js";
import {
  describeApiKeyVariables,
  findApiKey,
  type ModelSpec,
  modelSpecSyntax,
  parseModelSpec,
  resolveModel,
} from "../../models/resolve-model.js";
import { estimateCost } from "../../trace/model-prices.js";
import type { CliIo } from "../io.js";
import { chooseSession } from "./choose-session.js";
import { createCodeSessionStore } from "./code-session-store.js";
import { describeConfigurationFiles } from "./configuration-files.js";
import { describeProjectSettings, isProjectTrusted, trustProject, withoutProjectSettings } from "./project-trust.js";
import type { CodeOptions, CodeSession, CodeSessionContext, CodeSessionStore, CodingAgentOverrides } from "./session-context.js";
import { createSpendingTracker, type SpendingTracker } from "./spending.js";
import {
  approveProjectServers,
  type CodeMcpSetup,
  describeProjectServers,
  describeUnapproved,
  startCodeMcpServers,
} from "./start-mcp-servers.js";

// From the flags to a session's parts, shared by `minagent code` (one session, on a terminal or -p) and `minagent acp`
// (an editor's sessions, several in one process): the settings read once, the model, the session file, the MCP
// servers, spending and how agents are made.

/**
 * Whose word counts for a folder's own settings that would run commands or let the agent do more: used as written
 * (a -p run: whoever started it chose the folder), asked on the terminal (a person opening it), or only once it was
 * trusted before (an editor's session, which has no terminal to ask on: left out otherwise, and said).
 */
export type FolderTrust = "as-written" | "ask" | "remembered";

/** How {@link openCodeSession} opens a session, beyond the flags. */
export type OpenCodeSessionChoices = {
  /** The session to write to, from the folder's saved ones. Default: the flags' (--continue, --resume, a new one). */
  choose?: ((sessions: CodeSessionStore) => Promise<CodeSession>) | undefined;
  /** Default: `as-written` for -p, else `ask`. */
  trust?: FolderTrust | undefined;
  /** MCP servers beside the configured ones (an editor's): started as approved, and replacing a server of the same name. */
  extraMcpServers?: readonly ResolvedMcpServer[] | undefined;
  /** Where what the person should know goes, a line at a time. Default: stderr, as `minagent code: <line>`. */
  note?: ((line: string) => void) | undefined;
};

/** A session's parts, ready to run: what a UI needs to make agents and write the conversation. */
export type OpenedCodeSession = Pick<
  CodeSessionContext,
  "options" | "model" | "createAgent" | "session" | "sessions" | "projectMcpServers"
> & {
  /** Switches the session to another model: see CodeSessionContext's `switchModel`. */
  switchModel(spec: string): Promise<void>;
  /** The whole tracker (-p reports model calls and tool tokens from it). */
  spending: SpendingTracker;
  mcp: CodeMcpSetup["mcp"];
  /** Closes the latest agent (its sandbox) and the MCP servers. */
  close(): Promise<void>;
};

/**
 * From the flags to the parts of a session, each step once and in order: the settings (read once, after the person
 * has said whether the folder's own may count), the model, the session to write to, the MCP servers, spending, and
 * how agents are made. Throws a UsageError for misuse (exit 2).
 */
export async function openCodeSession(options: CodeOptions, io: CliIo, how: OpenCodeSessionChoices = {}): Promise<OpenedCodeSession> {
  const note = how.note ?? ((line: string) => io.stderr(`minagent code: ${line}\n`));
  const trust = how.trust ?? (options.print ? "as-written" : "ask");
  const home = defaultDataDirectory(io.env);
  const { settings, projectTrusted } = await readSessionSettings(io, home, options, trust, note);
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
  const session = await (how.choose ?? ((store) => chooseSession(store, options)))(sessions);
  const pruneWarning = await pruneOldSessions(home, settings);
  if (pruneWarning) note(pruneWarning);
  const pruneNote = await pruneCheckpoints(home, settings, session.id);
  if (pruneNote) note(pruneNote);
  const scrubber = createSessionScrubber(environmentSecrets(io.env, createSessionScrubber([])));
  const { mcp, projectMcpServers } = await startMcpServers(io, options, home, settings, how.extraMcpServers ?? [], trust, note);
  const spending = createSpendingTracker({ modelId: model.id, free: model.free, budgetUsd: options.maxBudgetUsd });
  const warned = new Set<string>();
  // The session's model, changed in place by switchModel: the UI's context holds this very object.
  const current = { spec: model.spec, id: model.id, instance: model.instance };
  const webFetchModel = smallModel(
    () => current,
    spending,
    (spec) => resolveModel(spec, { env, timeoutMs: options.timeoutMs }),
  );
  const switchModel = async (written: string) => {
    const spec = modelSpecOf(written, current.instance);
    const next = await openModel({ ...options, model: spec }, env, settings);
    Object.assign(current, { spec: next.spec, id: next.id, instance: next.instance });
    spending.setSessionModel({ modelId: next.id, free: next.free });
    latestAgent?.setModel(next.instance);
  };
  const createAgent = async (overrides: CodingAgentOverrides = {}) => {
    const { onEvent, onCheckpointNote, editorFiles, ...rest } = overrides;
    // A new conversation's agent replaces the last one: its sandbox (network namespace, temporary folder) goes.
    await latestAgent?.close();
    const agent = await CodingAgent.create(current.instance, {
      workspace: editorFiles
        ? new Workspace({ root: options.cwd, additionalDirectories: options.additionalDirectories, editor: editorFiles })
        : options.cwd,
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
        onNote: onCheckpointNote ?? note,
        scrub: scrubber.text,
      },
      // An agent file's model (`sonnet`, `anthropic:claude-haiku-4-5`) is made as the session's is: this environment's keys and base URLs.
      subagents: {
        resolveModel: (spec) => resolveModel(spec, { env, timeoutMs: options.timeoutMs }),
        // A folder the person did not trust runs no commands through its agent files either.
        projectHooks: projectTrusted,
      },
      // …nor pre-approves anything through its custom commands' allowed-tools…
      commands: { projectAllowedTools: projectTrusted },
      // …nor runs a language server in it: typescript-language-server runs the project's own TypeScript (its
      // node_modules/typescript), which a cloned repository could ship.
      diagnostics: projectTrusted ? { searchPath: io.env.PATH ?? "" } : false,
      // WebFetch answers its prompt on the provider's small model (Claude Code uses Haiku), counted in spending.
      webFetch: { model: webFetchModel },
      // A hook that failed open (any event but PreToolUse, by default) is said once, so that nothing fails unseen.
      onHookRun: (report) => {
        // What such a hook exits 2 with is for the person, as in Claude Code (it cannot stop anything).
        if (report.outcome === "blocked" && report.message && userNoticeEvents.has(report.event))
          note(`${report.event} hook: ${report.message}`);
        const key = `${report.event}\0${report.hook}`;
        if (report.outcome !== "failed" || !report.failOpen || warned.has(key)) return;
        warned.add(key);
        const program = report.hook.trim().split(/\s+/)[0] ?? report.hook;
        const advice = eventCanBlock(report.event) ? ', or give it "failClosed": true to make its failure block' : "";
        note(
          `a ${report.event} hook (${program}…) failed and was skipped; the session goes on: ${report.message ?? "it failed"}. Fix or install what it runs${advice}.`,
        );
      },
      onEvent: (event: AgentEvent) => {
        spending.listen(event);
        onEvent?.(event);
      },
      ...rest,
    });
    // What the agent left out to start (an agent file it cannot use…), said once per process.
    for (const warning of agent.warnings) if (!warned.has(warning)) note(warning);
    for (const warning of agent.warnings) warned.add(warning);
    if (options.verbose && latestAgent === undefined) for (const line of describeConfigurationFiles(agent)) note(line);
    spending.toolTokens = Math.ceil(JSON.stringify(agent.registry.schemas()).length / 4);
    latestAgent = agent;
    return agent;
  };
  return {
    options,
    model: current,
    switchModel,
    createAgent,
    session,
    sessions,
    spending,
    projectMcpServers,
    mcp,
    close: async () => {
      await mcp?.close();
      await latestAgent?.close();
    },
  };
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
  trust: FolderTrust,
  note: (line: string) => void,
): Promise<{ settings: LoadedSettings; projectTrusted: boolean }> {
  const root = options.cwd;
  const settings = await loadSettings(settingsLocations({ root, userDirectory: home, claudeDirectory: claudeDirectory(io.env) }));
  for (const warning of settingsWarnings(settings)) note(warning);
  const trusted = { settings, projectTrusted: true };
  // A trusted folder is not read twice: its agent and command files are parsed once, by the agent.
  if (trust === "as-written" || isProjectTrusted(settings, root)) return trusted;
  // The agent files' hooks are the folder's commands as much as its settings files' are.
  const wanted = [
    ...describeProjectSettings(settings, root),
    ...(await describeProjectAgentHooks(root)),
    ...(await describeProjectCommandRules({ root, claudeDirectory: claudeDirectory(io.env) })),
  ];
  if (wanted.length === 0) return trusted;
  if (trust === "remembered") {
    note(
      `${root} is not trusted yet, so its own settings that would run commands or let the agent do more are left out (${wanted.join("; ")}). To trust it, run minagent code there once and answer y.`,
    );
    return { settings: withoutProjectSettings(settings), projectTrusted: false };
  }
  io.stderr(
    `This folder's own settings would run commands or let the agent do more without asking:\n${wanted.map((line) => `  ${line}`).join("\n")}\n` +
      "Trust this folder? y: yes, and remember · s: this session only · n: no, start without them › ",
  );
  // One key on a terminal, as every other prompt; a line from a pipe.
  const answer = (await (io.readKey ? io.readKey(["y", "s", "n"]) : io.readLine()))?.trim().toLowerCase();
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
  extraServers: readonly ResolvedMcpServer[],
  trust: FolderTrust,
  note: (line: string) => void,
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
    extraServers,
  });
  for (const line of setup.notes) note(line);
  const { unapproved, mcp } = setup;
  // Without a terminal to ask on (-p, an editor), the person is told how to approve them.
  const asks = trust === "ask";
  if (unapproved.length > 0 && !asks) note(describeUnapproved(unapproved));
  if (unapproved.length === 0 || !asks || !mcp) return { mcp, projectMcpServers: undefined };
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

/**
 * The session's small model — its provider's `haiku` (Claude Haiku, GPT-5 mini), else the session's own — made on
 * its first call, so that a session that never fetches a page pays nothing; its calls count in spending. It follows
 * the session's model (`/model`): the choice is made again for each call, each small model made once.
 */
function smallModel(
  session: () => { id: string; instance: Model },
  spending: SpendingTracker,
  resolve: (spec: string) => Promise<Model>,
): Model {
  const made = new Map<string, Promise<Model>>();
  const choose = () => {
    const { id, instance } = session();
    const choice = subagentModelSpec("haiku", { provider: instance.provider, modelId: id });
    return { id, instance, choice };
  };
  return {
    get provider() {
      return choose().instance.provider as string;
    },
    get modelId() {
      const { id, choice } = choose();
      return choice.kind === "resolve" ? choice.spec.slice(choice.spec.indexOf(":") + 1) : id;
    },
    complete: async (messages, tools, options) => {
      const { instance, choice } = choose();
      let model: Promise<Model> = Promise.resolve(instance);
      if (choice.kind === "resolve") {
        model = made.get(choice.spec) ?? resolve(choice.spec);
        made.set(choice.spec, model);
      }
      const response = await (await model).complete(messages, tools, options);
      spending.listen({ type: "model-call-end", runId: "web-fetch", turn: 0, response });
      return response;
    },
  };
}

/**
 * A `/model` argument as a model string: `provider:model` as written, a Claude id as Anthropic's, and `opus`,
 * `sonnet`, `haiku` as the current provider's model of that tier (Anthropic's where the provider has none).
 */
export function modelSpecOf(written: string, current: Pick<Model, "provider">): string {
  const name = written.trim();
  if (name.includes(":")) return name;
  if (name.startsWith("claude-")) return `anthropic:${name}`;
  if (name === "opus" || name === "sonnet" || name === "haiku") {
    const provider = current.provider !== undefined && modelAliases[current.provider] ? current.provider : "anthropic";
    return `${provider}:${modelAliases[provider]?.[name]}`;
  }
  throw new UsageError(
    `"${name}" is not a model string: name the provider and the model, e.g. /model anthropic:claude-sonnet-4-6\n${modelSpecSyntax}`,
  );
}
