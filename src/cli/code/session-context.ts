import type { RewindConflictPolicy } from "../../code/checkpoints/index.js";
import type { CodingAgent, CodingAgentOptions } from "../../code/coding-agent.js";
import type { PermissionMode } from "../../code/permissions/index.js";
import type { EditorFiles } from "../../code/workspace.js";
import type { AgentEventListener } from "../../core/events.js";
import type { JsonSchema, Message, Model, Usage } from "../../core/types.js";
import type { CliIo } from "../io.js";

// The contract between `minagent code` (src/cli/commands/code.ts, which parses the flags, resolves the model and
// opens the session) and the interactive terminal UI (src/cli/code/interactive/index.ts, which exports
// `runInteractiveSession`). Types only: either side may change its implementation without touching the other.

/** What a rewind restores: the files and the conversation, or one of them. */
export type RewindScope = "both" | "code" | "conversation";

/** How `-p` prints its outcome. */
export type CodeOutputFormat = "text" | "json" | "stream-json";

/** The flags of `minagent code`, parsed and checked. */
export type CodeOptions = {
  /** The prompt from the command line (positional words joined), or undefined when none was given. */
  prompt: string | undefined;
  /** `-p` / `--print`: run the prompt to the end, print the outcome, exit. */
  print: boolean;
  /** `--output-format` (for `-p`; default `text`). */
  outputFormat: CodeOutputFormat;
  /** The model string (`--model`, else `MINAGENT_MODEL`); absent: the settings files' `model` decides. */
  model: string | undefined;
  /** `--permission-mode` (default: the settings files', else `default`). */
  permissionMode: PermissionMode | undefined;
  /** `--allowedTools` rules (`Bash(npm test)`, `Edit`…), added after the settings files' allow rules. */
  allowedTools: readonly string[];
  /** `--disallowedTools` rules, added after the settings files' deny rules. */
  disallowedTools: readonly string[];
  /** `--max-turns`: model calls allowed per prompt (default: CodingAgent's 50). */
  maxTurns: number | undefined;
  /** `--max-budget-usd`: no model call is made that would take the process's spending past this. */
  maxBudgetUsd: number | undefined;
  /** `--cwd`, resolved to an absolute path (default: the process's working directory): the workspace root. */
  cwd: string;
  /** `--add-dir`, resolved to absolute paths: more folders the tools may use. */
  additionalDirectories: readonly string[];
  /** `--timeout` in milliseconds: one attempt at a model call gives up after this long and is retried. */
  timeoutMs: number | undefined;
  /** `--continue`: go on with this folder's newest session. */
  continue: boolean;
  /** `--resume [id]`: go on with that session; `true` when no id was given (the UI offers a list). */
  resume: string | true | undefined;
  /** `--fork-session`: with --continue / --resume, write to a new session that starts as a copy of the old one. */
  forkSession: boolean;
  /** `--verbose`: show tool calls, results and usage as they happen. */
  verbose: boolean;
  /** `--sandbox` (true) or `--no-sandbox` (false): over the settings' `sandbox.enabled`; undefined: theirs. */
  sandbox?: boolean | undefined;
  /** `--mcp-config` files, resolved to absolute paths: MCP servers to start, on top of (or with --strict-mcp-config, instead of) `~/.minagent/mcp.json` and the project's `.mcp.json`. */
  mcpConfigFiles: readonly string[];
  /** `--strict-mcp-config`: start only the servers of the `--mcp-config` files. */
  strictMcpConfig: boolean;
  /** `--rewind <n|id|list>` (for `-p`, in a session named by --continue / --resume), with its scope and conflict policy. */
  rewind?: { target: string; scope: RewindScope; onConflict: RewindConflictPolicy } | undefined;
  /** `--json-schema` (for `-p`): what the answer must be; the json result carries it as `structured_output`. */
  jsonSchema?: JsonSchema | undefined;
};

/**
 * One conversation saved on disk. `history` is where it stands; pass `record` as a run's `onEvent` and the file grows
 * with the run as it happens (the user's prompt, each model response, the tool results in call order), so that an
 * interrupted or failed run still leaves a conversation that can be continued.
 */
export type CodeSession = {
  /** The session's id (a UUID): `minagent code --resume <id>`. */
  readonly id: string;
  /** The file it is saved in, for messages. */
  readonly file: string;
  /** The session it was forked from (`--fork-session`), whose checkpoints it starts with. */
  readonly forkedFrom?: string | undefined;
  /** The model the conversation's last run talked to, as the file records it (a `/model` switch included); undefined for a new session. */
  readonly model?: { provider?: string | undefined; modelId?: string | undefined } | undefined;
  /** The conversation so far: empty for a new session. Pass it as `history` to the first run; after that, the last result's messages. */
  readonly history: readonly Message[];
  /** Records a run's events into the session (pass it as the run's `onEvent`). */
  readonly record: AgentEventListener;
  /** Resolves once everything recorded so far is written (call it before the process exits). */
  flush(): Promise<void>;
  /**
   * Marks a checkpoint in the session: where the conversation stands before the prompt about to run. Call it just
   * before the run, so that the marker is written before the prompt; a failed write is reported by `flush`.
   */
  markCheckpoint(checkpointId: string): void;
  /**
   * The conversation as it stood at a checkpoint: before the prompt `markCheckpoint(checkpointId)` was called for
   * (a checkpoint from before a fork is found in the session it was forked from), or just before the rewind
   * `rewindConversation(…, checkpointId)` made (its undo). Undefined when the session has no such checkpoint.
   */
  conversationBefore(checkpointId: string): Promise<readonly Message[] | undefined>;
  /**
   * Makes the saved conversation `messages` (a rewind, between runs), recorded under the rewind's own
   * `checkpointId` so that `conversationBefore(checkpointId)` gives back what it replaced. Pass `messages` as the
   * next run's history: nothing is written twice. A failed write is reported by `flush`.
   */
  rewindConversation(messages: readonly Message[], checkpointId: string): void;
  /**
   * Saves `messages` at the end of the conversation now, between runs: what the person adds without the model (a
   * `!` command and its output), kept even if no prompt follows. Pass them at the end of the next run's history:
   * nothing is written twice. A failed write is reported by `flush`.
   */
  addMessages(messages: readonly Message[]): void;
  /** The name the person gave it (`/rename`), if any. */
  readonly name: string | undefined;
  /**
   * Names it (`/rename <name>`): written at once as a `name` line (in a session without lines yet, with its first
   * prompt), so that lists title it by the name from then on. A failed write is reported by `flush`.
   */
  rename(name: string): void;
};

/** A saved session, as a list of them shows it. */
export type CodeSessionSummary = {
  id: string;
  file: string;
  /** When it was last written (ISO 8601). */
  updatedAt: string;
  /** User messages recorded (prompts, and Stop hooks' continuations). */
  prompts: number;
  /** Model calls recorded. */
  turns: number;
  /** The first prompt, for a person to recognise it. */
  firstPrompt: string | undefined;
  /** The name given with `/rename`, if any. */
  name: string | undefined;
  /** What a list calls it (`sessionTitle`): the name, else the first prompt; on one line, not cut. */
  title: string | undefined;
};

/** The saved sessions of one project folder. */
export interface CodeSessionStore {
  /** Starts a new session; with `history`, one that starts as a copy of that conversation (a fork). */
  create(options?: { history?: readonly Message[] | undefined; forkedFrom?: string | undefined }): Promise<CodeSession>;
  /** Opens a saved session to go on with it. Throws a UsageError when this folder has none with that id. */
  open(id: string): Promise<CodeSession>;
  /** The folder's saved sessions, newest first. */
  list(): Promise<CodeSessionSummary[]>;
  /** Whether the folder has a saved session with this id (as `list` would show it), without reading every session. */
  has?(id: string): Promise<boolean>;
  /** Deletes a saved session's file; false when there was none. Refused while another process writes it. */
  remove(id: string): Promise<boolean>;
}

/** What a UI may set on the agent it builds; everything else comes from the flags. */
export type CodingAgentOverrides = Pick<
  CodingAgentOptions,
  "askPerson" | "askNetwork" | "elicit" | "onEvent" | "onHookRun" | "onToolRun" | "todos" | "instructions"
> & {
  /** An editor's buffers, which Read, Edit and Write go through (`minagent acp`); default: the files on disk. */
  editorFiles?: EditorFiles | undefined;
  /** Where the checkpoints' notes go (old checkpoints pruned, a workspace too large to scan); default: stderr. */
  onCheckpointNote?: ((note: string) => void) | undefined;
};

/**
 * Spending and limits of this process, across every run (the budget of `--max-budget-usd` is per process, like
 * Claude Code's). The agents `createAgent` builds stop before a model call that would pass the budget: the run
 * rejects with an error for which `isBudgetExceeded(error)` is true.
 */
export type CodeSpending = {
  /** Tokens used by every model call made so far in this process. */
  readonly usage: Readonly<Usage>;
  /** Their estimated cost in US dollars at list prices; undefined when the model's price is unknown. */
  readonly costUsd: number | undefined;
  /** True for the error a run rejects with when the next model call would pass `--max-budget-usd`. */
  isBudgetExceeded(error: unknown): boolean;
  /** The same, model by model (a session that switched with `/model`, custom commands', subagents' models). */
  readonly byModel?: readonly ModelSpending[] | undefined;
};

/** What the calls to one model have used, and their estimated cost (undefined when the model's price is unknown). */
export type ModelSpending = { modelId: string; usage: Usage; costUsd: number | undefined; modelCalls: number };

/** What `minagent code` hands the interactive terminal UI. */
export type CodeSessionContext = {
  /** The process's io (stdout, stderr, env…). */
  io: CliIo;
  /** The terminal to draw on and read keys from (process.stdin / process.stdout in the bin). */
  terminal: {
    input: NodeJS.ReadableStream & { isTTY?: boolean | undefined; setRawMode?: ((mode: boolean) => unknown) | undefined };
    output: NodeJS.WritableStream & { isTTY?: boolean | undefined; columns?: number | undefined; rows?: number | undefined };
  };
  /**
   * The model: the string given, its id (for prices: `estimateCost(model.id, usage)` in src/trace/model-prices.ts) and
   * the Model. After a {@link switchModel} it says the new one (the object is changed in place).
   */
  readonly model: { spec: string; id: string; instance: Model };
  /**
   * Switches the session to another model (`/model <model>`): a `provider:model` string as `--model` takes it, a
   * Claude id, or `opus` / `sonnet` / `haiku` (the current provider's model of that tier). It is made with this
   * environment's keys and base URLs; the agent `createAgent` made last answers with it from its next run (its
   * compaction and `inherit` subagents too), and spending prices the calls it makes. Rejects with a UsageError, the
   * session keeping its model, when the model cannot be made (an unknown provider, a missing API key) or has no price
   * while `--max-budget-usd` is set. Absent: the UI says switching is not possible here.
   */
  switchModel?: ((spec: string) => Promise<void>) | undefined;
  /** The flags. */
  options: CodeOptions;
  /**
   * Builds the coding agent with the flags applied (workspace and added folders, permission mode and rules, max
   * turns, the budget guard, the session id for hooks); the UI adds its own `askPerson`, listeners and todos.
   */
  createAgent(overrides?: CodingAgentOverrides): Promise<CodingAgent>;
  /** The session to write to: new, or the one `--continue` / `--resume <id>` named (or its fork). */
  session: CodeSession;
  /** This folder's saved sessions (for a /resume list, or when `--resume` came without an id). */
  sessions: CodeSessionStore;
  /** Spending so far, for a status line, and how to recognise the budget's stop. */
  spending: CodeSpending;
  /** Aborted when the process is told to stop (SIGTERM, or SIGINT when stdin is not in raw mode). */
  signal: AbortSignal;
  /**
   * The project's `.mcp.json` servers waiting for a person's approval, not started: the interactive session asks
   * about them as it opens (`approve(true)` also remembers the answer in `.minagent/settings.local.json`).
   */
  projectMcpServers?: { descriptions: readonly string[]; approve(remember: boolean): Promise<void> } | undefined;
};

/**
 * The interactive UI's entry point, exported as `runInteractiveSession` from src/cli/code/interactive/index.ts:
 * it runs until the person leaves and resolves to the exit code (0 when they quit normally, 130 on Ctrl-C twice).
 */
export type RunInteractiveSession = (context: CodeSessionContext) => Promise<number>;
