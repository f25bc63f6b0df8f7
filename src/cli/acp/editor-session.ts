import { readFile } from "node:fs/promises";
import * as acp from "@agentclientprotocol/sdk";
import type { Checkpoint } from "../../code/checkpoints/index.js";
import type { CodingAgent, CodingRunResult } from "../../code/coding-agent.js";
import { classifySlashPrompt, parseSlashInput } from "../../code/commands/index.js";
import { expandMcpPrompt, isMcpPromptCommand, listMcpPrompts } from "../../code/mcp-prompt-commands.js";
import { isPermissionMode, type PermissionMode, permissionModes } from "../../code/permissions/modes.js";
import type { AgentEvent } from "../../core/events.js";
import type { Message } from "../../core/types.js";
import { AbortError, conversationOf } from "../../engine.js";
import type { OpenedCodeSession } from "../code/open-code-session.js";
import { editorFilesOf } from "./editor-files.js";
import { createEditorPermissions, type EditorPermissions } from "./editor-permissions.js";
import { editorPrompt } from "./prompt-text.js";
import { replayConversation } from "./replay-conversation.js";
import { TurnUpdates } from "./turn-updates.js";

// One session the editor opened: a saved minagent session (new, or loaded), its agent, and its prompt turns.

/** What an editor session needs of the connection: sending updates and asking the editor. */
export type EditorConnection = {
  /** The client's side: `session/update`, `session/request_permission`, `fs/*`. */
  client: acp.AgentContext;
  /** What the editor said it can do at `initialize`. */
  capabilities: acp.ClientCapabilities;
  /** The user's minagent folder (MINAGENT_HOME, else ~/.minagent): rules saved by "always" are recorded there as the person's. */
  userDirectory: string;
};

/** The names the editor shows for minagent's permission modes. */
const modeNames: Readonly<Record<PermissionMode, { name: string; description: string }>> = {
  default: { name: "Default", description: "Read-only work runs; edits and commands are asked" },
  acceptEdits: { name: "Accept edits", description: "File edits in the workspace run without asking; commands are asked" },
  plan: { name: "Plan", description: "Read-only: the agent plans, and asks before it leaves plan mode" },
  dontAsk: { name: "Don't ask", description: "Only what allow rules allow runs; everything else is refused" },
  bypassPermissions: { name: "Bypass permissions", description: "Everything runs but what deny rules forbid" },
};

/** The note a cancelled turn leaves in the conversation, so that the model knows its last turn was cut short. */
const interruptionNote = "[Request interrupted by user]";

/**
 * An editor's session: the agent runs each prompt with the conversation so far, reports it as session updates, and
 * writes it to the session file as it goes (the same file `minagent code --resume` reads).
 */
export class EditorSession {
  readonly #opened: OpenedCodeSession;
  readonly #agent: CodingAgent;
  readonly #connection: EditorConnection;
  readonly #permissions: EditorPermissions;
  #history: Message[];
  #turn: { controller: AbortController; updates: TurnUpdates } | undefined;
  #queue: Promise<void> = Promise.resolve();
  #mode: PermissionMode;
  /** How many cancels came: a queued prompt from before the last one does not run. */
  #cancels = 0;
  /** The commands last announced (as JSON), so that an unchanged list is not sent again. */
  #announced: string | undefined;
  /** Notes said before the first prompt (a folder not trusted), sent once the editor knows the session. */
  readonly #notes: string[];

  private constructor(
    opened: OpenedCodeSession,
    agent: CodingAgent,
    connection: EditorConnection,
    permissions: EditorPermissions,
    notes: string[],
  ) {
    this.#opened = opened;
    this.#agent = agent;
    this.#connection = connection;
    this.#permissions = permissions;
    this.#history = [...opened.session.history];
    this.#mode = agent.permissions.mode;
    this.#notes = notes;
  }

  /** Makes the session's agent (with the editor's permission prompts, files and notes) around an opened session. */
  static async start(opened: OpenedCodeSession, connection: EditorConnection, notes: string[]): Promise<EditorSession> {
    let session: EditorSession | undefined;
    const permissions = createEditorPermissions({
      connection,
      sessionId: opened.session.id,
      agent: () => {
        if (!session) throw new Error("the session's agent is not made yet");
        return session.#agent;
      },
      turn: () => session?.currentTurn,
      send: (update) => session?.send(update) ?? Promise.resolve(),
      flush: () => session?.send(Promise.resolve(undefined)) ?? Promise.resolve(),
    });
    const agent = await opened.createAgent({
      // Read, Edit and Write go through the editor's buffers when it offers them.
      ...(connection.capabilities.fs?.readTextFile && connection.capabilities.fs.writeTextFile
        ? { editorFiles: editorFilesOf(connection.client, opened.session.id) }
        : {}),
      askPerson: permissions.askPerson,
      askNetwork: permissions.askNetwork,
      // A form in the editor is for a later ACP version: declined, and said.
      elicit: async (request) => {
        session?.note(`MCP server "${request.server}" asked for input; minagent acp cannot show its form yet, so it was declined.`);
        return { action: "decline" };
      },
      onToolRun: (call) => session?.currentTurn?.running(call.id),
      onCheckpointNote: (line) => session?.note(line),
    });
    session = new EditorSession(opened, agent, connection, permissions, notes);
    return session;
  }

  /** The running prompt turn's updates, if a prompt runs. */
  get currentTurn(): TurnUpdates | undefined {
    return this.#turn?.updates;
  }

  /** The session's id (the saved session's: `minagent code --resume <id>` goes on with it). */
  get id(): string {
    return this.#opened.session.id;
  }

  /** The modes the editor offers, and the one in force. */
  get modes(): acp.SessionModeState {
    return {
      currentModeId: this.#agent.permissions.mode,
      availableModes: permissionModes.map((id) => ({ id, ...modeNames[id] })),
    };
  }

  /** Sends the saved conversation as updates (session/load), before the load is answered. */
  async replay(): Promise<void> {
    for (const update of replayConversation(this.#history, this.#agent.workspace.root)) await this.send(update);
  }

  /** Says something the person should know, in the editor (a quoted line of the agent's text) and on stderr for its log. */
  note(line: string): void {
    process.stderr.write(`minagent acp: ${line}\n`);
    this.#tell(line);
  }

  /** A note in the editor only (one said on stderr already, as the session opened). */
  #tell(line: string): void {
    void this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n> minagent: ${line}\n\n` } }).catch(() => {});
  }

  /** session/set_mode: one of minagent's permission modes. */
  setMode(modeId: string): void {
    if (!isPermissionMode(modeId)) throw new Error(`unknown mode "${modeId}": the modes are ${permissionModes.join(", ")}`);
    this.#agent.permissions.mode = modeId;
    this.#mode = modeId;
  }

  /** session/prompt: runs the prompt to its end and says why it stopped. One prompt at a time: a second waits. */
  prompt(blocks: readonly acp.ContentBlock[]): Promise<acp.PromptResponse> {
    const generation = this.#cancels;
    // A prompt still waiting when a cancel came is cancelled too: the person stopped what they had asked for.
    const turn = this.#queue.then(() => (generation === this.#cancels ? this.#run(blocks) : { stopReason: "cancelled" as const }));
    this.#queue = turn.then(
      () => {},
      () => {},
    );
    return turn;
  }

  /** session/cancel: stops the running turn (its command's process tree is killed); the prompt answers `cancelled`. */
  cancel(): void {
    this.#cancels++;
    this.#turn?.controller.abort(new AbortError("cancelled by the editor"));
    this.#permissions.cancelAll();
  }

  /** Stops what runs and closes the agent, its sandbox and MCP servers. */
  async close(): Promise<void> {
    this.cancel();
    // The turn unwinds first, so that nothing it records comes after the session is closed.
    await this.#queue;
    await this.#agent.end("other").catch(() => {});
    await this.#opened.session.flush().catch(() => {});
    await this.#opened.close();
  }

  /** Tells the editor the custom commands (`/review`…) and MCP prompts (`/mcp__server__prompt`) a prompt may start with. */
  async announceCommands(): Promise<void> {
    const commands: acp.AvailableCommand[] = this.#agent.commands.list.map((command) => ({
      name: command.name,
      description: command.description,
      ...(command.argumentHint && { input: { hint: command.argumentHint } }),
    }));
    for (const prompt of await listMcpPrompts(this.#agent.mcp))
      commands.push({
        name: prompt.command,
        description: prompt.description ?? `the ${prompt.name} prompt of MCP server ${prompt.server}`,
        ...(prompt.arguments.length > 0 && { input: { hint: prompt.arguments.map((argument) => argument.name).join(" ") } }),
      });
    const listed = JSON.stringify(commands);
    if (listed === this.#announced || (commands.length === 0 && this.#announced === undefined)) return;
    this.#announced = listed;
    await this.send({ sessionUpdate: "available_commands_update", availableCommands: commands });
  }

  async #run(blocks: readonly acp.ContentBlock[]): Promise<acp.PromptResponse> {
    for (const line of this.#notes.splice(0)) this.#tell(line);
    const controller = new AbortController();
    const updates = new TurnUpdates({
      send: (update) => void this.send(update).catch(() => {}),
      root: this.#agent.workspace.root,
      readText: (absolute) => this.#readText(absolute),
      todos: () => this.#agent.todos.todos,
    });
    this.#turn = { controller, updates };
    const { session } = this.#opened;
    try {
      const { text, parts } = editorPrompt(blocks, this.#agent.workspace.root);
      const slash = await classifySlashPrompt(text, this.#agent.commands);
      let prompt = text;
      if (slash.kind === "unknown" && isMcpPromptCommand(slash.name)) {
        const expanded = await expandMcpPrompt(this.#agent.mcp, slash.name, parseSlashInput(text)?.args ?? "", {
          signal: controller.signal,
        });
        if (expanded === undefined)
          throw acp.RequestError.invalidParams(undefined, `unknown command /${slash.name}: no ready MCP server has this prompt`);
        prompt = expanded;
      }
      const runOptions = {
        history: this.#history,
        parts,
        signal: controller.signal,
        stream: true,
        onCheckpoint: (checkpoint: Checkpoint) => session.markCheckpoint(checkpoint.id),
        onEvent: (event: AgentEvent) => {
          session.record(event);
          updates.event(event);
          if (event.type === "tool-call-end") {
            const mode = this.#permissions.takeFollowUp(event.toolCall.id);
            if (mode && this.#agent.permissions.mode !== "plan") this.#agent.permissions.mode = mode;
            this.#followMode();
          }
        },
      };
      // `/review src/a.ts` runs the custom command; any other text (a `/path` too) is the prompt.
      const result =
        slash.kind === "command"
          ? await this.#agent.runCommand(slash.command, slash.args, runOptions)
          : await this.#agent.run(prompt, runOptions);
      this.#history = result.messages;
      updates.endOpenCalls("The turn ended before this call did.");
      if (result.status === "blocked" && result.blocked)
        await this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: blockedMessage(result) } });
      return { stopReason: stopReasonOf(result, updates) };
    } catch (error) {
      const conversation = conversationOf(error) ?? this.#history;
      if (controller.signal.aborted) {
        this.#history = [...conversation, { role: "user", content: interruptionNote }];
        updates.endOpenCalls("Cancelled.");
        return { stopReason: "cancelled" };
      }
      this.#history = conversation;
      updates.endOpenCalls("The turn failed.");
      // The editor shows the message: the provider's error, the budget reached (the conversation so far is kept).
      if (error instanceof acp.RequestError) throw error;
      throw acp.RequestError.internalError(undefined, error instanceof Error ? error.message : String(error));
    } finally {
      this.#turn = undefined;
      this.#followMode();
      // A server that became ready during the turn brings its prompts.
      await this.announceCommands().catch(() => {});
      await session
        .flush()
        .catch((error: unknown) => this.note(`could not save the session to ${session.file}: ${(error as Error).message}`));
      await this.#sent;
    }
  }

  /** The agent changed its own mode (plan mode left): the editor is told. */
  #followMode(): void {
    const mode = this.#agent.permissions.mode;
    if (mode === this.#mode) return;
    this.#mode = mode;
    void this.send({ sessionUpdate: "current_mode_update", currentModeId: mode }).catch(() => {});
  }

  async #readText(absolute: string): Promise<string | undefined> {
    const editor = this.#agent.workspace.editor;
    // The editor's buffer when it can give it, else the file on disk.
    const fromEditor = editor ? await editor.readText(absolute).catch(() => undefined) : undefined;
    return fromEditor ?? readFile(absolute, "utf8").catch(() => undefined);
  }

  #sent: Promise<unknown> = Promise.resolve();

  /**
   * Sends updates one after the other, in the order they were queued; an update still being made (a promise) holds
   * its place. Resolves once this one is sent: awaiting it means every update queued before has gone too.
   */
  send(update: acp.SessionUpdate | Promise<acp.SessionUpdate | undefined>): Promise<unknown> {
    const sent = this.#sent.then(async () => {
      const ready = await update;
      if (ready) await this.#connection.client.notify("session/update", { sessionId: this.id, update: ready });
    });
    this.#sent = sent.catch(() => {});
    return sent;
  }
}

function blockedMessage(result: CodingRunResult): string {
  return result.blockedBy === "PostToolBatch" ? `${result.blocked}` : `A UserPromptSubmit hook blocked the prompt: ${result.blocked}`;
}

/** The prompt's stop reason from the run's outcome and how the model last stopped. */
function stopReasonOf(result: CodingRunResult, updates: TurnUpdates): acp.StopReason {
  if (result.status === "blocked") return "refusal";
  if (result.status === "max_steps") return "max_turn_requests";
  if (updates.lastStop === "max_tokens") return "max_tokens";
  if (updates.lastStop === "refusal") return "refusal";
  return "end_turn";
}
