import type { ContentPart, Message, Model, ModelResponse, ModelStreamEvent, RunStatus, ToolCall, ToolSchema, Usage } from "./types.js";

/** The outcome of one tool call, as the model will read it. */
export type ToolResult = {
  /** The observation text (already serialised and truncated). */
  content: string;
  /** Images and documents the tool returned beside its text (`toolOutput`): the model sees them with the text. */
  parts?: ContentPart[];
  /** True when the call failed: unknown tool, invalid arguments, a throw, a timeout, a refusal. */
  isError: boolean;
};

/** A tool call that was neither run nor refused: the permission decision was "ask", or an earlier call's was. */
export type PendingDecision = {
  pending: true;
  /** Why it needs a decision, when the permission check said. */
  reason?: string;
  /** Not started, because an earlier call of the turn waits for a decision (effects run in order): it needs none itself. */
  deferred?: true;
  /** The tools its turn offered, when `prepareTurn` restricted them: a deferred call is held to them on resume. */
  offeredTools?: string[];
};

/** What executing a tool call gives: an observation, or a call that waits for a decision. */
export type ToolOutcome = ToolResult | PendingDecision;

/**
 * What the loop reports as it runs, synchronously and in order. Recorders (steps, traces,
 * the CLI's live output) are listeners of these events; none of them lives in the loop.
 * Every event carries the `runId` of the run it belongs to: a parent run's listeners also hear its child runs.
 */
export type LoopEvent =
  | { type: "model-call-start"; runId: string; turn: number; messages: readonly Message[]; tools: readonly ToolSchema[] }
  | { type: "model-call-end"; runId: string; turn: number; response: ModelResponse }
  | { type: "tool-call-start"; runId: string; turn: number; toolCall: ToolCall }
  | { type: "tool-call-end"; runId: string; turn: number; toolCall: ToolCall; result: ToolResult }
  | {
      type: "tool-call-pending";
      runId: string;
      turn: number;
      toolCall: ToolCall;
      reason?: string;
      deferred?: true;
      offeredTools?: string[];
    }
  | (ModelStreamEvent & { runId: string; turn: number });

/** Events an Agent reports: the loop's, plus the run's start and end. */
export type AgentEvent =
  | LoopEvent
  | {
      type: "run-start";
      runId: string;
      /** The run whose tool (or pattern) started this one. */
      parentRunId?: string;
      /** The tool call of the parent run that started this one. */
      parentToolCallId?: string;
      /** What the run is, when its starter said (`RunOptions.name`): traces show it, e.g. `invoke_agent trial 2`. */
      name?: string;
      /** What the run's starter wants on its trace (`RunOptions.attributes`), e.g. `{ "dbos.workflow_id": "…" }`. */
      attributes?: Readonly<Record<string, string>>;
      input: string;
      messages: readonly Message[];
      model: Pick<Model, "provider" | "modelId">;
    }
  | {
      type: "run-end";
      runId: string;
      status: RunStatus;
      final: string;
      /** The validated answer, for a completed run of an agent with an output schema. */
      output?: unknown;
      turns: number;
      usage: Usage;
    }
  | {
      type: "compaction";
      runId: string;
      turn: number;
      /** What was done: old tool results replaced by placeholders, or the older conversation summarised. */
      stage: "tool-results" | "summary";
      /** Estimated context tokens before and after. */
      tokensBefore: number;
      tokensAfter: number;
      /** Set when the compaction failed (the run goes on uncompacted) or freed nothing. */
      error?: string;
    }
  | { type: "run-error"; runId: string; error: unknown };

/** A listener of agent events. */
export type AgentEventListener = (event: AgentEvent) => void;
