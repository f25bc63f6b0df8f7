import { abortable, throwIfAborted } from "../errors.js";
import type { ToolResult } from "./events.js";
import type { LoopOptions, LoopOutcome } from "./loop-types.js";
import { mapConcurrent } from "./map-concurrent.js";
import type { Message, ModelCallOptions, ModelStreamEvent, ToolCall } from "./types.js";
import { addUsage, emptyUsage } from "./usage.js";

/**
 * THE loop: call the model; if it asks for tools, run them and append their results; otherwise return.
 * Everything else (trajectories, traces, patterns, plan mode) listens to its events or is a tool.
 */
export async function runLoop(messages: Message[], options: LoopOptions): Promise<LoopOutcome> {
  const { model, tools, signal, emit } = options;
  const schemas = tools.schemas();
  const usage = emptyUsage();
  for (let turn = 0; turn < options.maxSteps; turn++) {
    throwIfAborted(signal);
    emit({ type: "model-call-start", turn, messages, tools: schemas });
    const response = await abortable(model.complete(messages, schemas, callOptions(options, turn)), signal);
    addUsage(usage, response.usage);
    messages.push(response.message);
    emit({ type: "model-call-end", turn, response });
    const calls = response.message.toolCalls ?? [];
    if (calls.length === 0) {
      // pause_turn: the provider stopped a long server-side turn early; send it back to continue.
      if (response.stopReason === "pause_turn") continue;
      return { messages, usage, final: response.message.content, converged: true, turns: turn + 1 };
    }
    const toolMessages = await mapConcurrent(calls, options.toolConcurrency, async (toolCall) => {
      emit({ type: "tool-call-start", turn, toolCall });
      const result = await tools.execute(toolCall, signal ? { signal } : noOptions);
      emit({ type: "tool-call-end", turn, toolCall, result });
      return toToolMessage(toolCall, result);
    });
    messages.push(...toolMessages);
  }
  return { messages, usage, final: "", converged: false, turns: options.maxSteps };
}

const noOptions: ModelCallOptions = Object.freeze({});

function callOptions({ signal, stream, emit }: LoopOptions, turn: number): ModelCallOptions {
  if (!signal && !stream) return noOptions;
  const onEvent = stream ? (event: ModelStreamEvent) => emit({ ...event, turn }) : undefined;
  return { ...(signal && { signal }), ...(onEvent && { onEvent }) };
}

function toToolMessage(call: ToolCall, result: ToolResult): Message {
  return { role: "tool", content: result.content, toolCallId: call.id, ...(result.isError && { isError: true }) };
}
