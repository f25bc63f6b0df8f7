import { isAbsolute, resolve } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import type { Todo } from "../../code/tools/todo-write.js";
import type { AgentEvent, ToolResult } from "../../core/events.js";
import type { StopReason, ToolCall } from "../../core/types.js";
import { commandOutput, textContent, toolKind, toolLocations, toolTitle } from "./describe-tool-call.js";

// One prompt turn's events as the editor sees them: text and thinking as chunks, each tool call announced, moved
// forward (pending → in_progress → completed or failed, never back) and ended with its output or its diff, and the
// todo list as a plan. Events of subagents' runs stay inside their Agent call, but for the calls the editor was
// asked about: those are ended too.

type Status = NonNullable<acp.ToolCall["status"]>;
const order: readonly Status[] = ["pending", "in_progress", "completed", "failed"];
type Call = Pick<ToolCall, "id" | "name" | "arguments">;

/** What the reporter needs of the session around it. */
export type TurnUpdateHost = {
  /**
   * Queues one update for the editor, after every update queued before it. A promise holds its place in the queue
   * until it settles (an Edit's diff, read back from the file); `undefined` sends nothing.
   */
  send(update: acp.SessionUpdate | Promise<acp.SessionUpdate | undefined>): void;
  /** The workspace root, for titles and relative paths. */
  root: string;
  /** The file's text now (the editor's buffer when it has one), or undefined when it cannot be read. */
  readText(absolute: string): Promise<string | undefined>;
  /** The todo list after a TodoWrite. */
  todos(): readonly Todo[];
};

/**
 * The turn's events turned into session updates, synchronously and in the order they happen (a call is announced
 * before the engine runs it, so `running` always finds it); `lastStop` says how the model last stopped.
 */
export class TurnUpdates {
  readonly #host: TurnUpdateHost;
  /** The turn's own run: events of other runs (subagents') are not the agent's words. */
  #runId: string | undefined;
  readonly #status = new Map<string, Status>();
  readonly #calls = new Map<string, Call>();
  /** An Edit's or Write's text before it ran, for the diff its end shows. */
  readonly #before = new Map<string, Promise<string | undefined>>();
  #streamedText = false;
  #streamedThought = false;
  /** How the turn's last model call stopped. */
  lastStop: StopReason | undefined;

  constructor(host: TurnUpdateHost) {
    this.#host = host;
  }

  /** Announces a call the editor has not seen: one starting, or one it is asked about (a subagent's, a network request). */
  announce(call: Call): void {
    if (this.#status.has(call.id)) return;
    this.#status.set(call.id, "pending");
    this.#calls.set(call.id, call);
    this.#host.send({
      sessionUpdate: "tool_call",
      toolCallId: call.id,
      title: toolTitle(call, this.#host.root),
      kind: toolKind(call),
      status: "pending",
      locations: toolLocations(call, this.#host.root),
      rawInput: call.arguments,
    });
  }

  /**
   * The call was allowed and its tool is about to run: the promise returned (an edited file read as it is now, for
   * the diff its end shows) settles before the tool may change the file.
   */
  running(toolCallId: string): Promise<unknown> | undefined {
    const call = this.#calls.get(toolCallId);
    if (call === undefined) return undefined; // a subagent's call the editor was not asked about
    const path = editedPath(call, this.#host.root);
    const before = path === undefined ? undefined : this.#host.readText(path);
    if (before !== undefined) this.#before.set(toolCallId, before);
    this.#move(toolCallId, "in_progress");
    return before?.catch(() => undefined);
  }

  /** Takes one of the run's events, at once. */
  event(event: AgentEvent): void {
    if (event.type === "run-start" && this.#runId === undefined && event.parentRunId === undefined) this.#runId = event.runId;
    // A subagent's call that was asked about ends here too.
    if (event.runId !== this.#runId && !(event.type === "tool-call-end" && this.#status.has(event.toolCall.id))) return;
    switch (event.type) {
      case "text-delta":
        this.#streamedText = true;
        this.#host.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.text } });
        return;
      case "reasoning-delta":
        this.#streamedThought = true;
        this.#host.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.text } });
        return;
      case "model-call-retry":
        // What was streamed of the failed attempt cannot be taken back: say that it starts again.
        if (event.streamed)
          this.#host.send({
            sessionUpdate: "agent_thought_chunk",
            content: { type: "text", text: "\n\n(The model's answer was cut off; it is asked again.)\n\n" },
          });
        return;
      case "model-call-end":
        this.#modelCallEnded(event.response);
        return;
      case "tool-call-start":
        this.announce(event.toolCall);
        return;
      case "tool-call-pending":
        this.#move(event.toolCall.id, "failed", [textContent(event.reason ?? "Waiting for a decision that cannot be made here.")]);
        return;
      case "tool-call-end":
        this.#toolCallEnded(event.toolCall, event.result);
        return;
      default:
        return;
    }
  }

  #modelCallEnded(response: { message: { content: string; reasoning?: { text: string }[] }; stopReason: StopReason }): void {
    this.lastStop = response.stopReason;
    // A model that does not stream said it all at once.
    const thought = (response.message.reasoning ?? []).map((part) => part.text).join("");
    if (!this.#streamedThought && thought !== "")
      this.#host.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: thought } });
    if (!this.#streamedText && response.message.content !== "")
      this.#host.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: response.message.content } });
    this.#streamedText = false;
    this.#streamedThought = false;
  }

  #toolCallEnded(call: ToolCall, result: ToolResult): void {
    this.announce(call);
    const before = this.#before.get(call.id);
    this.#before.delete(call.id);
    if (result.isError) {
      this.#move(call.id, "failed", [textContent(result.content)], result.content);
      return;
    }
    if (call.name === "TodoWrite")
      this.#host.send({
        sessionUpdate: "plan",
        entries: this.#host.todos().map((todo) => ({ content: todo.content, status: todo.status, priority: "medium" })),
      });
    const path = editedPath(call, this.#host.root);
    if (path === undefined) {
      this.#move(
        call.id,
        "completed",
        [call.name === "Bash" ? commandOutput(result.content) : textContent(result.content)],
        result.content,
      );
      return;
    }
    // The file as the tool left it, read back (the editor's buffer when it wrote through it): its place in the
    // queue is kept while it is read.
    this.#move(
      call.id,
      "completed",
      async () => {
        const oldText = before === undefined ? undefined : await before;
        const newText = await this.#host.readText(path);
        return newText === undefined ? [textContent(result.content)] : [{ type: "diff", path, oldText: oldText ?? null, newText }];
      },
      result.content,
    );
  }

  /** Moves a call forward, never back: a call already completed or failed stays so. */
  #move(
    toolCallId: string,
    status: Status,
    content?: acp.ToolCallContent[] | (() => Promise<acp.ToolCallContent[]>),
    rawOutput?: string,
  ): void {
    const now = this.#status.get(toolCallId);
    if (now === undefined || now === "completed" || now === "failed" || order.indexOf(status) <= order.indexOf(now)) return;
    this.#status.set(toolCallId, status);
    const update = (resolved?: acp.ToolCallContent[]): acp.SessionUpdate => ({
      sessionUpdate: "tool_call_update",
      toolCallId,
      status,
      ...(resolved && { content: resolved }),
      ...(rawOutput !== undefined && { rawOutput: { output: rawOutput } }),
    });
    this.#host.send(typeof content === "function" ? content().then(update, () => update()) : update(content));
  }

  /** Ends a call announced for a question that is no tool's (a network request), once answered. */
  settle(toolCallId: string, allowed: boolean, text: string): void {
    this.#move(toolCallId, allowed ? "completed" : "failed", [textContent(text)]);
  }

  /** Ends every call still open (the turn was cancelled or ended while they ran): failed, so that none spins forever. */
  endOpenCalls(why: string): void {
    for (const [toolCallId, status] of this.#status)
      if (status === "pending" || status === "in_progress") this.#move(toolCallId, "failed", [textContent(why)]);
  }
}

/** The file an Edit or a Write changes, absolute. */
function editedPath(call: Call, root: string): string | undefined {
  const path = call.arguments.file_path;
  if ((call.name !== "Edit" && call.name !== "Write") || typeof path !== "string") return undefined;
  return isAbsolute(path) ? resolve(path) : resolve(root, path);
}
