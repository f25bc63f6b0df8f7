import type { Message, Model, ModelResponse, ModelStreamEvent, ToolCall, ToolSchema } from "./types.js";

/** The outcome of one tool call, as the model will read it. */
export type ToolResult = {
  /** The observation text (already serialised and truncated). */
  content: string;
  /** True when the call failed: unknown tool, invalid arguments, a throw, a timeout, a refusal. */
  isError: boolean;
};

/**
 * What the loop reports as it runs, synchronously and in order. Recorders (steps, traces,
 * the CLI's live output) are listeners of these events; none of them lives in the loop.
 */
export type LoopEvent =
  | { type: "model-call-start"; turn: number; messages: readonly Message[]; tools: readonly ToolSchema[] }
  | { type: "model-call-end"; turn: number; response: ModelResponse }
  | { type: "tool-call-start"; turn: number; toolCall: ToolCall }
  | { type: "tool-call-end"; turn: number; toolCall: ToolCall; result: ToolResult }
  | (ModelStreamEvent & { turn: number });

/** Events an Agent reports: the loop's, plus the run's start and end. */
export type AgentEvent =
  | LoopEvent
  | { type: "run-start"; input: string; messages: readonly Message[]; model: Pick<Model, "provider" | "modelId"> }
  | { type: "run-end"; final: string; converged: boolean; turns: number }
  | { type: "run-error"; error: unknown };

/** A listener of agent events. */
export type AgentEventListener = (event: AgentEvent) => void;
