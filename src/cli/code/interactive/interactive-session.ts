import { existsSync } from "node:fs";
import type { CodingAgent } from "../../../code/coding-agent.js";
import type { FileMentions } from "../../../code/commands/index.js";
import { type CustomCommand, parseSlashInput } from "../../../code/commands/index.js";
import type { SessionEndReason } from "../../../code/hooks/index.js";
import { expandMcpPrompt, isMcpPromptCommand, listMcpPrompts } from "../../../code/mcp-prompt-commands.js";
import { nextPermissionMode, type PermissionMode } from "../../../code/permissions/index.js";
import { defaultDataDirectory } from "../../../code/sessions/json-lines-session-store.js";
import { AbortError, type AgentEvent, conversationOf, type Message } from "../../../engine.js";
import type { AttachedResources, McpPrompt } from "../../../mcp/index.js";
import { formatNumber } from "../../../text.js";
import { describeMcpLog, describeMcpProgress } from "../../describe-progress.js";
import { findSessionId } from "../choose-session.js";
import { ProcessSignalError } from "../process-input.js";
import { sandboxStatusLine } from "../sandbox-status.js";
import type { CodeSession, CodeSessionContext } from "../session-context.js";
import { networkRequestName, SessionRules } from "../session-rules.js";
import { createApprovals } from "./approvals.js";
import { chooseOne } from "./choice-list.js";
import { contextWindowOf } from "./context-windows.js";
import { type EditorMode, readEditorMode, saveEditorMode } from "./editor-mode.js";
import { formatAge } from "./format-age.js";
import { ImageAttachments } from "./image-attachments.js";
import { readLine } from "./line-editor.js";
import { MentionCompleter } from "./mention-completion.js";
import { PromptHistory, promptHistoryFile } from "./prompt-history.js";
import { rewindInteractively } from "./rewind-command.js";
import { RunSteps } from "./run-steps.js";
import { RunView } from "./run-view.js";
import { passthroughMessage, runAsPerson, type ShellPassthroughResult } from "./shell-passthrough.js";
import { findSlashCommand, matchSlashCommands, type SlashHost, shadowedCommandWarnings } from "./slash-commands.js";
import { formatStatus, type StatusFacts } from "./status-line.js";
import { type Style, Terminal } from "./terminal.js";
import { flattenText, printable, truncateToWidth, wrapToWidth } from "./text-width.js";
import { transcriptLines } from "./transcript-lines.js";
import { TranscriptView } from "./transcript-view.js";
import { TypeAhead } from "./type-ahead.js";

type PromptOutcome = { kind: "exit"; code: number } | { kind: "rewind" };

/** How long the prompt waits after an answer, untouched, before Notification hooks hear `idle_prompt` (Claude Code's 60 s). */
const idleNotificationMs = 60_000;

/** Said to the model after a turn the person stopped, as Claude Code does. */
const interruptionNote = "[Request interrupted by user]";

/** Lines of a `!` command's output shown under it (the conversation gets all of it). */
const shellLinesShown = 30;

/** The longest name `/rename` gives a session (lists show less of it). */
const maxNameLength = 100;

/** A name as a word of a shell command: as it is when that is safe, else in single quotes. */
function shellWord(text: string): string {
  return /^[\w.,:@%+=-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Two Escapes on an empty prompt line this close together open /rewind (as in Claude Code). */
const doubleEscapeMs = 800;

/** The interactive session of `minagent code`: a prompt, runs drawn as they happen, dialogs, slash commands. */
export class InteractiveSession implements SlashHost {
  readonly context: CodeSessionContext;
  readonly terminal: Terminal;
  readonly startedAt = Date.now();
  readonly #view: RunView;
  /** The folder's earlier prompts (Up, Down, Ctrl-R), and the editor mode (/vim): read as the session starts. */
  #promptHistory = new PromptHistory();
  #editorMode: EditorMode = "normal";
  readonly #preferences: Promise<void>;
  #agent: CodingAgent | undefined;
  #rules: SessionRules | undefined;
  #approvals: ReturnType<typeof createApprovals> | undefined;
  #session: CodeSession;
  #history: Message[];
  /** The images pasted or named with the prompts. */
  readonly #images: ImageAttachments;
  #activity: StatusFacts["activity"] = "idle";
  #turn: AbortController | undefined;
  #exitArmed = false;
  #ticker: NodeJS.Timeout | undefined;
  /** Text typed while a turn ran: the next prompt starts with it (or sends it, after Enter). */
  readonly #typeAhead = new TypeAhead();
  /** What /rewind puts back in the prompt. */
  #prefill = "";
  /** The ready servers' prompts as last listed: the prompt's hint and Tab offer them. */
  #mcpPrompts: readonly McpPrompt[] = [];
  /** True once a turn ended, until the prompt after it is read: that prompt's wait may notify `idle_prompt`. */
  #answered = false;
  /** When Escape was last pressed on an empty prompt line (0: not since another key). */
  #lastEscapeAt = 0;
  /** Subagents' steps and the running turn's, from the events: what the transcript adds to the conversation. */
  readonly #steps = new RunSteps();
  /** Ctrl-O: the whole conversation, every output in full. */
  readonly #transcript: TranscriptView;
  /** `@path` completion over the workspace's files; made at the first prompt, the tree walked at the first `@`. */
  #mentions: MentionCompleter | undefined;
  /** Draws the prompt being read again (its `@` hint's files came in). */
  #redrawPrompt: (() => void) | undefined;

  constructor(context: CodeSessionContext) {
    this.context = context;
    this.terminal = new Terminal(context.terminal, context.io.env);
    this.#view = new RunView(this.terminal, context.options.cwd);
    this.#session = context.session;
    this.#history = [...context.session.history];
    this.#images = new ImageAttachments(context.options.cwd);
    this.#transcript = new TranscriptView(this.terminal, (columns) =>
      transcriptLines((this.#turn && this.#steps.currentTurn) || this.#history, {
        style: this.style,
        columns,
        root: context.options.cwd,
        childOf: (toolCallId) => this.#steps.childOf(toolCallId),
      }),
    );
    this.#preferences = this.#readPreferences();
  }

  get editorMode(): EditorMode {
    return this.#editorMode;
  }

  async setEditorMode(mode: EditorMode): Promise<void> {
    this.#editorMode = mode;
    await saveEditorMode(defaultDataDirectory(this.context.io.env), mode);
  }

  /** Small files, read while the session starts: the history only on a terminal (a script's prompts are not a person's). */
  async #readPreferences(): Promise<void> {
    const directory = defaultDataDirectory(this.context.io.env);
    const [history, mode] = await Promise.all([
      this.terminal.live ? PromptHistory.load(promptHistoryFile(directory, this.context.options.cwd)) : undefined,
      readEditorMode(directory),
    ]);
    if (history) this.#promptHistory = history;
    this.#editorMode = mode;
  }

  get agent(): CodingAgent {
    return this.#agent as CodingAgent;
  }

  get rules(): SessionRules {
    return this.#rules as SessionRules;
  }

  get style(): Style {
    return this.terminal.style;
  }

  get columns(): number {
    return this.terminal.columns;
  }

  get contextWindow(): number | undefined {
    return contextWindowOf(this.context.model.id);
  }

  get contextTokens(): number | undefined {
    return this.#view.lastInputTokens;
  }

  /** Runs until the person leaves; resolves to the exit code. */
  async run(): Promise<number> {
    const approvals = createApprovals({
      terminal: this.terminal,
      userDirectory: defaultDataDirectory(this.context.io.env),
      agent: () => this.agent,
      rules: () => this.rules,
      interrupt: () => this.#turn?.abort(new AbortError("Interrupted by the user.")),
      onOpen: () => {
        // A question is not asked behind the transcript.
        this.#transcript.close();
        this.#view.endLine();
        this.terminal.hold();
        this.#setActivity("asking");
      },
      onClose: () => {
        this.terminal.release();
        this.#setActivity(this.#turn ? "running" : "idle");
      },
      keep: (text) => {
        this.#view.forgetLastLine();
        this.terminal.write(`${text}\n`);
      },
      note: (text) => this.#view.printNote(text),
    });
    this.#approvals = approvals;
    this.#agent = await this.context.createAgent({
      // A note between lines of the screen, not over it.
      onCheckpointNote: (note) => this.#view.printNote(this.style.dim(note)),
      askPerson: approvals.askPerson,
      elicit: approvals.elicit,
      // A host no setting allows is put to the person once a session, as a call would be.
      askNetwork: async ({ host, port }) => {
        const decision = await approvals.askPerson({
          toolCall: { id: `network-${host}-${port}`, name: networkRequestName, arguments: { host: `${host}:${port}` } },
          reason: `a sandboxed command wants to reach ${host}:${port}; yes opens ${host} for the rest of this session, sandbox.network.allowedDomains in .minagent/settings.json for good`,
          // The turn's: once the person stops the turn (say, at another prompt queued before this one), it is not asked.
          signal: this.#turn?.signal ?? this.context.signal,
        });
        return decision.behavior === "allow";
      },
    });
    this.#rules = new SessionRules(this.#agent);
    // What servers log (at info and above) is for the person who asked to see more (--verbose).
    const stopLogs = this.context.options.verbose
      ? this.#agent.mcp?.onLog((message) => this.#view.printNote(this.style.dim(describeMcpLog(message))))
      : undefined;
    this.terminal.start();
    const stopResizing = this.terminal.onResize(() => this.#updateStatus());
    // Why the session ends, for SessionEnd hooks: the person leaving at the prompt, or anything else (SIGTERM, a crash).
    let endReason: SessionEndReason = "other";
    try {
      this.#printBanner();
      for (const warning of shadowedCommandWarnings(this.agent.commands.list)) this.print(this.style.yellow(warning));
      await this.#askAboutProjectMcpServers();
      if (this.context.options.resume === true) await this.resume(undefined);
      if (this.context.options.prompt?.trim()) await this.#runTurn(this.context.options.prompt.trim());
      await this.#preferences;
      const code = await this.#promptLoop();
      if (!this.context.signal.aborted) endReason = "prompt_input_exit";
      return code;
    } finally {
      await this.#agent?.end(endReason);
      stopLogs?.();
      stopResizing();
      clearInterval(this.#ticker);
      this.terminal.close();
      await this.#promptHistory.flush();
      await this.#session.flush();
    }
  }

  async #promptLoop(): Promise<number> {
    for (;;) {
      this.#setActivity("idle");
      // A transcript opened while the turn ran stays until it is closed; the prompt comes after.
      await this.#transcript.closed;
      const outcome = await this.#readPrompt();
      if (outcome.kind === "aborted") return this.#stoppedExitCode();
      if (outcome.kind === "exit") return outcome.code;
      if (outcome.kind === "rewind") {
        await this.#runSlashCommand("/rewind");
        continue;
      }
      const text = outcome.text.trim();
      if (text === "") continue;
      if (text.startsWith("!")) {
        await this.#runShellLine(text.slice(1).trim());
        continue;
      }
      // `/usr/bin/env is missing` is a prompt, not a command (a second `/` in the first word).
      if (text === "/" || parseSlashInput(text)) {
        if ((await this.#runSlashCommand(text)) === "exit") return 0;
        continue;
      }
      await this.#runTurn(text);
      if (this.context.signal.aborted) return this.#stoppedExitCode();
    }
  }

  /** The exit code when the process was told to stop: 129 when its terminal hung up, else 143 (SIGTERM). */
  #stoppedExitCode(): number {
    const reason = this.context.signal.reason;
    return reason instanceof ProcessSignalError && reason.signal === "SIGHUP" ? 129 : 143;
  }

  #readPrompt() {
    const style = this.style;
    // The servers' prompts, for the hint and Tab: asked for again at each prompt, since servers come and go.
    void listMcpPrompts(this.agent.mcp).then((prompts) => {
      this.#mcpPrompts = prompts;
    });
    // A prompt queued with Enter during the turn is sent now; what was typed after it waits for the next prompt.
    const queued = this.#typeAhead.takeQueued();
    const draft = queued === undefined ? this.#typeAhead.takeDraft() : undefined;
    const prefill = this.#prefill;
    this.#prefill = "";
    const idle = this.#answered
      ? setTimeout(() => {
          this.agent.hooks
            .runNotificationHooks({ notificationType: "idle_prompt", message: "minagent is waiting for your input", title: "minagent" })
            .catch(() => {});
        }, idleNotificationMs)
      : undefined;
    this.#answered = false;
    const mentions = this.#mentionCompleter();
    const line = readLine<PromptOutcome>(this.terminal, {
      prompt: `${style.bold(">")} `,
      initial: queued ?? (prefill || draft?.text),
      initialCursor: prefill ? undefined : draft?.cursor,
      submitAtOnce: queued !== undefined,
      history: this.#promptHistory,
      vim: this.#editorMode === "vim",
      signal: this.context.signal,
      // A dragged or pasted image file becomes a chip, sent with the prompt.
      paste: (text) => this.#images.paste(text),
      onKey: (key) => {
        clearTimeout(idle);
        if (key.name !== "ctrl-c") this.#exitArmed = false;
        if (key.name !== "escape") this.#lastEscapeAt = 0;
      },
      hint: (state) => {
        if (this.#exitArmed) return style.dim("Press Ctrl-C again to exit");
        if (state.text.startsWith("!")) return style.dim("! shell: runs in the workspace as you; its output goes into the conversation");
        const matches = matchSlashCommands(state.text, this.agent.commands.list, this.#mcpPrompts);
        if (matches.length > 0) return style.dim(matches.map((command) => `/${command.name}  ${command.summary}`).join("  ·  "));
        const files = mentions.hint(state);
        return files === undefined ? undefined : style.dim(files);
      },
      redraws: (redraw) => {
        this.#redrawPrompt = redraw;
        return () => {
          this.#redrawPrompt = undefined;
        };
      },
      complete: (state) => {
        const matches = matchSlashCommands(state.text, this.agent.commands.list, this.#mcpPrompts);
        if (matches.length !== 1) return mentions.complete(state);
        const completed = `/${matches[0]?.name} `;
        return { text: completed, cursor: completed.length };
      },
      keys: {
        "shift-tab": () => {
          this.setMode(nextPermissionMode(this.agent.permissions.mode));
          return true;
        },
        "ctrl-c": (state) => {
          if (state.text !== "") {
            state.text = "";
            state.cursor = 0;
            return true;
          }
          if (this.#exitArmed) return { kind: "exit", code: 130 };
          this.#exitArmed = true;
          return true;
        },
        "ctrl-d": (state) => (state.text === "" ? { kind: "exit", code: 0 } : undefined),
        "ctrl-o": () => {
          this.#transcript.open();
          return true;
        },
        // Esc Esc on an empty line opens /rewind; a lone Esc at the prompt does nothing (it stops a running turn).
        escape: (state) => {
          if (state.text !== "") return true;
          const now = Date.now();
          if (now - this.#lastEscapeAt <= doubleEscapeMs) {
            this.#lastEscapeAt = 0;
            return { kind: "rewind" };
          }
          this.#lastEscapeAt = now;
          return true;
        },
      },
    });
    return line.finally(() => clearTimeout(idle));
  }

  /** The prompt's `@path` completer, told that a new prompt is read (the files may have changed since the last). */
  #mentionCompleter(): MentionCompleter {
    this.#mentions ??= new MentionCompleter({
      root: this.agent.workspace.root,
      isHidden: (path) => this.agent.permissions.isReadDenied(path),
      onIndexed: () => this.#redrawPrompt?.(),
      listResources: async () => (await this.agent.mcp?.listResources()) ?? [],
    });
    this.#mentions.refresh();
    return this.#mentions;
  }

  async cancellable<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const releaseKeys = this.terminal.pushKeys((key) => {
      if (key.name === "escape" || key.name === "ctrl-c") controller.abort(new AbortError("Given up by the user."));
      return true;
    });
    try {
      return await run(AbortSignal.any([controller.signal, this.context.signal]));
    } finally {
      releaseKeys();
    }
  }

  async #runSlashCommand(text: string): Promise<"exit" | undefined> {
    const [name = "", ...rest] = text.slice(1).split(/\s+/);
    const command = findSlashCommand(name);
    const custom = command ? undefined : this.agent.commands.find(name);
    if (custom) {
      await this.#runTurn(text, { command: custom, args: parseSlashInput(text)?.args ?? "" });
      return undefined;
    }
    if (!command && isMcpPromptCommand(name)) return this.#runMcpPrompt(name, rest.join(" "));
    if (!command) {
      this.print(this.style.yellow(`Unknown command /${name}. /help lists the commands.`));
      return undefined;
    }
    try {
      return await command.run(this, rest.join(" ").trim());
    } catch (error) {
      this.print(this.style.red(`/${command.name}: ${(error as Error).message}`));
      return undefined;
    }
  }

  /**
   * `!command`: runs in the workspace as the person (Esc stops it), its output shown under it and added to the
   * conversation, so that the model sees it with the next prompt.
   */
  async #runShellLine(command: string): Promise<void> {
    const { style } = this;
    if (command === "") {
      this.print(
        style.dim(
          "⎿ Type a shell command after the !, e.g. !git status: it runs in the workspace and its output goes into the conversation.",
        ),
      );
      return;
    }
    this.#setActivity("running");
    let result: ShellPassthroughResult | undefined;
    try {
      result = await this.cancellable((signal) => runAsPerson(this.agent, command, signal));
    } catch (error) {
      if (!(error instanceof AbortError)) throw error;
      // The command and all it started are stopped; half an output would mislead the model more than none.
      this.print(style.yellow("⎿ Stopped. Nothing of it was added to the conversation."));
      return;
    } finally {
      this.#setActivity("idle");
    }
    if (!result) {
      this.print(style.yellow("⎿ This session has no Bash tool (the settings or --disallowedTools took it away): ! cannot run commands."));
      return;
    }
    // On the screen a command that succeeded shows its output alone; the model is told its exit code either way.
    const lines = result.observation.replace(/\n*Exit code: 0$/, "").split("\n");
    const shown =
      lines.length > shellLinesShown
        ? [
            ...lines.slice(0, shellLinesShown - 1),
            style.dim(`… ${lines.length - shellLinesShown + 1} more lines (all of it in the conversation; ctrl+o shows it)`),
          ]
        : lines;
    this.print(
      shown.map((line, index) => `${index === 0 ? "⎿ " : "  "}${result.isError ? style.red(printable(line)) : printable(line)}`).join("\n"),
    );
    const note = passthroughMessage(command, result);
    this.#history = [...this.#history, note];
    this.#session.addMessages([note]);
  }

  /** `/mcp__<server>__<prompt> args`: the server's prompt, sent as the person's turn. */
  async #runMcpPrompt(name: string, args: string): Promise<undefined> {
    let prompt: string | undefined;
    try {
      prompt = await expandMcpPrompt(this.agent.mcp, name, args, { signal: this.context.signal });
    } catch (error) {
      this.print(this.style.red(`/${name}: ${(error as Error).message}`));
      return undefined;
    }
    if (prompt === undefined)
      this.print(this.style.yellow(`Unknown command /${name}: no ready MCP server has this prompt. /help lists the commands.`));
    else await this.#runTurn(prompt);
    return undefined;
  }

  /** Runs one prompt: the answer and tool calls drawn as they come; Escape or Ctrl-C stop it. */
  async #runTurn(prompt: string, custom?: { command: CustomCommand; args: string }): Promise<void> {
    const { parts, notes } = await this.#images.take(prompt);
    for (const note of notes) this.print(this.style.yellow(`⎿ ${note}`));
    if (parts.length > 0) this.print(this.style.dim(`⎿ ${parts.length === 1 ? "1 image" : `${parts.length} images`} sent with the prompt`));
    const turn = new AbortController();
    this.#turn = turn;
    const stopOnSignal = () => turn.abort(this.context.signal.reason);
    this.context.signal.addEventListener("abort", stopOnSignal, { once: true });
    if (this.context.signal.aborted) stopOnSignal();
    this.#view.reset();
    this.#setActivity("running");
    this.#ticker = setInterval(() => this.#updateStatus(), 1000);
    const releaseKeys = this.terminal.pushKeys((key) => {
      if (key.name === "escape" || key.name === "ctrl-c") turn.abort(new AbortError("Interrupted by the user."));
      else if (key.name === "shift-tab") this.setMode(nextPermissionMode(this.agent.permissions.mode));
      else if (key.name === "ctrl-o") this.#transcript.open();
      else this.#typeAhead.handle(key, (text) => this.#images.paste(text));
    });
    let ended = false;
    const stopProgress = this.agent.mcp?.onProgress((progress) => {
      if (!ended) this.#view.progress(progress.toolCallId, describeMcpProgress(progress));
    });
    const onEvent = (event: AgentEvent) => {
      this.#session.record(event);
      this.#steps.listener(event);
      // A tool that finishes after the turn was stopped must not draw under the next prompt.
      if (ended) return;
      this.#view.listener(event);
      if (event.type === "tool-call-end") this.#approvals?.takeFollowUp(event.toolCall.id)?.();
      if (event.type === "model-call-end" || event.type === "tool-call-end") this.#updateStatus();
      if (event.type === "model-call-end" || event.type === "tool-call-start" || event.type === "tool-call-end") this.#transcript.refresh();
    };
    try {
      // `stream` is not in CodingAgent.run's option type yet; run() hands its options to Agent.run, which streams with it.
      const onResourcesAttached = ({ attached, notes }: AttachedResources) => {
        for (const { server, uri } of attached) this.print(this.style.dim(`⎿ attached @${server}:${uri}`));
        for (const note of notes) this.print(this.style.yellow(`⎿ ${note}`));
      };
      const onFilesAttached = ({ attached, notes }: FileMentions) => {
        for (const file of attached)
          this.print(
            this.style.dim(
              `⎿ attached @${file.path} (${file.kind === "file" ? plural(file.lines, "line") : plural(file.entries, "entry", "entries")})`,
            ),
          );
        for (const note of notes) this.print(this.style.yellow(`⎿ ${note}`));
      };
      const session = this.#session;
      const options = {
        history: this.#history,
        parts,
        signal: turn.signal,
        onEvent,
        stream: true,
        onResourcesAttached,
        onFilesAttached,
        // Where the conversation stood before this prompt, in the session file: what a conversation rewind goes back to.
        onCheckpoint: (checkpoint: { id: string }) => session.markCheckpoint(checkpoint.id),
      };
      // A custom command's shell lines and files are read first, inside the turn: Esc stops them, approvals ask as for calls.
      const onExpanded = ({ notes }: { notes: readonly string[] }) => {
        for (const note of notes) this.print(this.style.yellow(`⎿ ${note}`));
      };
      const result = custom
        ? await this.agent.runCommand(custom.command, custom.args, { ...options, onExpanded })
        : await this.agent.run(prompt, options);
      this.#history = result.messages;
      this.#view.endLine();
      if (result.blocked !== undefined)
        this.print(
          this.style.yellow(
            result.blockedBy === "PostToolBatch" ? result.blocked : `A UserPromptSubmit hook blocked the prompt: ${result.blocked}`,
          ),
        );
      else if (result.status === "max_steps")
        this.print(this.style.yellow("(the agent stopped: it reached its limit of model calls for one prompt)"));
    } catch (error) {
      this.#transcript.close();
      this.terminal.release();
      this.#view.markInterrupted();
      this.#view.endLine();
      // The engine hands back the conversation as far as the run got (a hook that failed before it: none).
      const conversation = conversationOf(error) ?? this.#history;
      if (turn.signal.aborted) {
        this.#typeAhead.unqueue();
        this.#history = [...conversation, { role: "user", content: interruptionNote }];
        this.print(this.style.yellow("⎿ Interrupted · what should the agent do instead?"));
      } else {
        this.#history = conversation;
        const budget = this.context.spending.isBudgetExceeded(error);
        const message = error instanceof Error ? error.message : String(error);
        this.print(this.style.red(`${budget ? "" : "Error: "}${message}`));
      }
    } finally {
      ended = true;
      stopProgress?.();
      this.#answered = true;
      clearInterval(this.#ticker);
      releaseKeys();
      this.context.signal.removeEventListener("abort", stopOnSignal);
      this.#turn = undefined;
      this.#setActivity("idle");
    }
  }

  prompt(prompt: string): Promise<void> {
    return this.#runTurn(prompt);
  }

  print(text: string): void {
    this.#view.endLine();
    this.#view.print(`${text}\n`);
  }

  async rewind(args: string): Promise<void> {
    // Slash commands are read only between turns; this guards any other way in.
    if (this.#turn) {
      this.print(this.style.yellow("A turn is running: stop it first (Esc), then /rewind."));
      return;
    }
    const result = await rewindInteractively(
      { agent: this.agent, terminal: this.terminal, session: this.#session, history: this.#history, print: (text) => this.print(text) },
      args,
    );
    if (!result) return;
    this.#history = [...result.history];
    this.#view.lastInputTokens = undefined;
    if (result.prefill !== undefined) this.#prefill = result.prefill;
    this.#updateStatus();
  }

  async switchModel(spec: string): Promise<void> {
    if (!this.context.switchModel)
      throw new Error(`switching models is not possible here: leave, then run minagent code --model ${spec} --continue`);
    await this.context.switchModel(spec);
    this.#updateStatus();
  }

  setMode(mode: PermissionMode): void {
    this.agent.permissions.mode = mode;
    this.#updateStatus();
  }

  async clear(): Promise<void> {
    await this.agent.end("clear");
    await this.#session.flush();
    this.#session = await this.context.sessions.create();
    await this.agent.checkpoints?.switchSession(this.#session.id, this.#session.forkedFrom);
    this.#history = [];
    this.#view.lastInputTokens = undefined;
    this.terminal.clearScreen();
    this.#printBanner();
    this.print(this.style.dim("New conversation."));
  }

  async resume(id: string | undefined): Promise<void> {
    let chosen = id;
    if (chosen === undefined) {
      const sessions = (await this.context.sessions.list()).filter((summary) => summary.id !== this.#session.id).slice(0, 9);
      if (sessions.length === 0) {
        this.print(this.style.dim("No other saved conversation in this folder."));
        return;
      }
      const outcome = await chooseOne(this.terminal, {
        title: [this.style.bold("Resume a conversation:")],
        choices: sessions.map((summary) => ({
          label: `${formatAge(summary.updatedAt)} · ${summary.prompts} prompt${summary.prompts === 1 ? "" : "s"}, ${summary.turns} turn${summary.turns === 1 ? "" : "s"} · ${truncateToWidth(flattenText(summary.title ?? "(no prompt)"), Math.max(30, this.terminal.columns - 45))}`,
          value: summary.id,
        })),
        footer: "↑↓ Enter, or the number · Esc: stay here",
      });
      if ("cancelled" in outcome) return;
      chosen = outcome.value;
    } else chosen = await findSessionId(this.context.sessions, chosen, this.context.options.cwd);
    await this.agent.end("resume");
    await this.#session.flush();
    this.#session = await this.context.sessions.open(chosen);
    await this.agent.checkpoints?.switchSession(this.#session.id, this.#session.forkedFrom);
    this.#history = [...this.#session.history];
    this.#printRecap();
  }

  async rename(name: string): Promise<void> {
    const { style } = this;
    const given = flattenText(name);
    const sessions = await this.context.sessions.list();
    if (given === "") {
      // A name given before the first prompt is not in the file yet: the session knows it.
      const title = this.#session.name ?? sessions.find((summary) => summary.id === this.#session.id)?.title;
      const width = this.terminal.columns - 40;
      this.print(
        title === undefined
          ? "No title yet: the first prompt will be this conversation's title in /resume. /rename <name> names it."
          : `Titled "${truncateToWidth(title, width)}"${this.#session.name === undefined ? " (its first prompt)" : ""}. /rename <name> renames it.`,
      );
      return;
    }
    if (given.length > maxNameLength) {
      this.print(style.yellow(`A name has at most ${maxNameLength} characters; this one has ${given.length}.`));
      return;
    }
    this.#session.rename(given);
    await this.#session.flush();
    const saved = existsSync(this.#session.file) ? "" : style.dim(" (saved with the first prompt)");
    this.print(`Named "${given}"${saved}. Go back to it with: minagent code --resume=${shellWord(given)}`);
    const same = sessions.filter((summary) => summary.id !== this.#session.id && summary.name?.toLowerCase() === given.toLowerCase());
    if (same.length > 0) this.print(style.dim("Another session of this folder has that name too: --resume by name will ask for the id."));
  }

  /** The project's .mcp.json servers start only once the person approves what they would run. */
  async #askAboutProjectMcpServers(): Promise<void> {
    const servers = this.context.projectMcpServers;
    if (!servers) return;
    const { style } = this;
    const outcome = await chooseOne(this.terminal, {
      title: [
        style.bold("This project's .mcp.json asks to start MCP servers, programs of the project's choosing:"),
        ...servers.descriptions.map((line) => `  ${truncateToWidth(flattenText(line), this.terminal.columns - 3)}`),
      ],
      choices: [
        { label: "Yes, and start them in this project from now on", key: "y", value: "always" as const },
        { label: "Yes, this session only", key: "s", value: "session" as const },
        { label: "No", key: "n", value: "no" as const },
      ],
      footer: "↑↓ Enter, or the number · Esc: no",
    });
    const answer = "value" in outcome ? outcome.value : "no";
    if (answer === "no") {
      this.print(style.dim("The project's MCP servers were not started (/mcp lists the servers that were)."));
      return;
    }
    try {
      await servers.approve(answer === "always");
      this.print(
        style.dim(
          `Starting the project's MCP servers${answer === "always" ? "; remembered in .minagent/settings.local.json" : ""} (/mcp shows them).`,
        ),
      );
    } catch (error) {
      this.print(style.yellow(error instanceof Error ? error.message : String(error)));
    }
  }

  #printBanner(): void {
    const { style } = this;
    this.print(`${style.bold("minagent code")} ${style.dim(`· ${this.context.model.spec} · ${this.context.options.cwd}`)}`);
    // Wrapped at words here: the terminal would break a long line mid-word.
    const wrapped = (text: string) => wrapToWidth(text, this.terminal.columns - 1, { hangingIndent: "  " }).join("\n");
    this.print(style.dim(wrapped("/help for commands · shift+tab: permission mode · esc: interrupt · ctrl+c twice: leave")));
    const sandbox = this.#agent?.sandbox.status;
    if (sandbox) {
      const line = wrapped(sandboxStatusLine(sandbox));
      this.print((sandbox.enabled && !sandbox.problem) || !sandbox.requested ? style.dim(line) : style.bold(line));
    }
    if (this.#history.length > 0) this.#printRecap();
  }

  /** The last exchange of a conversation taken up again. */
  #printRecap(): void {
    const { style } = this;
    const prompts = this.#history.filter((message) => message.role === "user" && !message.content.startsWith("["));
    const answers = this.#history.filter((message) => message.role === "assistant" && message.content.trim() !== "");
    const name = this.#session.name === undefined ? "" : `"${flattenText(this.#session.name)}" · `;
    this.print(style.dim(`Session ${name}${this.#session.id} · ${this.#history.length} messages`));
    const lastPrompt = prompts[prompts.length - 1];
    const lastAnswer = answers[answers.length - 1];
    const width = this.terminal.columns - 4;
    if (lastPrompt) this.print(style.dim(`> ${truncateToWidth(flattenText(lastPrompt.content), width)}`));
    if (lastAnswer) this.print(style.dim(truncateToWidth(flattenText(lastAnswer.content), width)));
    // The session goes on with the model it was started with; the one the conversation last talked to is one /model away.
    const last = this.#session.model;
    const { instance, id } = this.context.model;
    if (last?.modelId && (last.modelId !== id || last.provider !== instance.provider))
      this.print(
        style.dim(
          `This conversation last talked to ${last.provider ? `${last.provider}:` : ""}${last.modelId}; it goes on with ${this.context.model.spec} (/model ${last.provider ? `${last.provider}:` : ""}${last.modelId} to switch back).`,
        ),
      );
  }

  #setActivity(activity: StatusFacts["activity"]): void {
    this.#activity = activity;
    this.#updateStatus();
  }

  #updateStatus(): void {
    if (!this.#agent) return;
    const { usage, costUsd } = this.context.spending;
    const facts: StatusFacts = {
      mode: this.agent.permissions.mode,
      activity: this.#activity,
      usage,
      costUsd,
      contextTokens: this.#view.lastInputTokens,
      contextWindow: this.contextWindow,
      modelId: this.context.model.id,
    };
    this.terminal.setStatus(formatStatus(facts, this.style, this.terminal.columns));
  }
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${count === 1 ? one : many}`;
}
