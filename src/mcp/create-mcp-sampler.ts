import { Agent, type AgentEventListener, type Message, type Model, type PrepareTurn, type StopReason, ToolRegistry } from "../engine.js";
import { UsageError } from "../errors.js";
import type {
  McpSamplingContent,
  McpSamplingHandler,
  McpSamplingMessage,
  McpSamplingRequest,
  McpSamplingResult,
} from "./client-features.js";

/** Settings of {@link createMcpSampler}. Every field may be left out or `undefined`. */
export type McpSamplerOptions = {
  /**
   * Asked before each request is run: resolve to refuse it with that message (a person said no, no rule allows it),
   * or to `undefined` to run it. Default: every request runs.
   */
  approve?: ((request: McpSamplingRequest) => Promise<string | undefined>) | undefined;
  /** Receives the run's events: its `model-call-end` carries the usage, for a session's spending. */
  onEvent?: AgentEventListener | undefined;
  /** Called before the model call, as an agent's `prepareTurn`: a budget guard may throw to stop it. */
  prepareTurn?: PrepareTurn | undefined;
};

/**
 * A sampling handler that answers servers with `model`: the server's messages become a conversation (text as it
 * is; images and audio described in words, since minagent's messages are text), its `systemPrompt` the system
 * message, and the answer goes back as MCP's result (role `assistant`, the model's id, the stop reason). It is one
 * model call through the engine's Agent with no tools, so its events (and usage) are those of any run. The
 * request's `maxTokens`, `temperature`, `stopSequences` and `modelPreferences` are not passed on: a minagent Model
 * takes no per-call settings.
 * @example
 * const mcp = await connectMcpServers(config, { sample: createMcpSampler(model) });
 */
export function createMcpSampler(model: Model, options: McpSamplerOptions = {}): McpSamplingHandler {
  return async (request) => {
    const refusal = await options.approve?.(request);
    if (refusal !== undefined) throw new Error(refusal);
    const { history, input } = convertMcpSamplingMessages(request.messages, request.systemPrompt);
    let stopReason: StopReason | undefined;
    const agent = new Agent(model, new ToolRegistry(), {
      maxSteps: 1,
      ...(options.prepareTurn && { prepareTurn: options.prepareTurn }),
      onEvent: (event) => {
        if (event.type === "model-call-end") stopReason = event.response.stopReason;
        options.onEvent?.(event);
      },
    });
    const result = await agent.run(input, { history, signal: request.signal, name: `mcp-sampling:${request.server}` });
    return {
      role: "assistant",
      content: { type: "text", text: result.final },
      model: model.modelId ?? model.provider ?? "unknown",
      ...(stopReason && { stopReason: mapStopReasonToMcp(stopReason) }),
    } satisfies McpSamplingResult;
  };
}

/**
 * A sampling request's messages as the engine's: the history before the last message, and the last one (the
 * user's) as the run's input. Throws a UsageError when there is no message, or the last is not the user's.
 */
export function convertMcpSamplingMessages(
  messages: readonly McpSamplingMessage[],
  systemPrompt?: string | undefined,
): { history: Message[]; input: string } {
  const last = messages.at(-1);
  if (last?.role !== "user")
    throw new UsageError("A sampling request must end with a user message: there is nothing for the model to answer.");
  const history: Message[] = systemPrompt ? [{ role: "system", content: systemPrompt }] : [];
  for (const message of messages.slice(0, -1)) history.push({ role: message.role, content: describeContent(message.content) });
  // The system message is in the history: the engine adds its own system prompt only to a conversation without one.
  return { history, input: describeContent(last.content) };
}

/** MCP's stop reasons are camelCase (`endTurn`); a reason MCP has no name for goes as the model gave it. */
export function mapStopReasonToMcp(stopReason: StopReason): string {
  switch (stopReason) {
    case "end_turn":
      return "endTurn";
    case "max_tokens":
      return "maxTokens";
    case "stop_sequence":
      return "stopSequence";
    default:
      return stopReason;
  }
}

function describeContent(content: McpSamplingContent | readonly McpSamplingContent[]): string {
  const blocks = Array.isArray(content) ? content : [content as McpSamplingContent];
  return blocks.map(describeBlock).join("\n");
}

function describeBlock(block: McpSamplingContent): string {
  if (block.type === "text" && typeof block.text === "string") return block.text;
  if ((block.type === "image" || block.type === "audio") && typeof block.data === "string")
    return `[${block.type}: ${String(block.mimeType)}, ${Math.floor((block.data.length * 3) / 4)} bytes, not shown: this model reads text only]`;
  return `[${block.type} content, not shown]`;
}
