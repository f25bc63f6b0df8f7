import type { LoopEvent, ToolResult } from "./events.js";
import type { Message, Model, ToolCall, ToolSchema, Usage } from "./types.js";

/** What the loop needs of a tool registry: the schemas to send, and a way to run one call. */
export interface ToolExecutor {
  schemas(): ToolSchema[];
  execute(toolCall: ToolCall, options: { signal?: AbortSignal }): Promise<ToolResult>;
}

/** Settings of one loop run. */
export type LoopOptions = {
  model: Model;
  tools: ToolExecutor;
  /** Model calls allowed before the run stops unconverged. */
  maxSteps: number;
  /** Tool calls of one turn that may run at once. */
  toolConcurrency: number;
  signal?: AbortSignal | undefined;
  /** Ask the model to stream, and forward its deltas as events. */
  stream?: boolean;
  /** Receives every loop event, synchronously. */
  emit: (event: LoopEvent) => void;
};

/** How a loop run ended. `messages` is the array passed in, appended to. */
export type LoopOutcome = { messages: Message[]; usage: Usage; final: string; converged: boolean; turns: number };
