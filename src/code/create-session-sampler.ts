import type { AgentEventListener, ApprovalDecision, Model, PrepareTurn } from "../engine.js";
import { createMcpSampler, type McpSamplingHandler, type McpSamplingRequest } from "../mcp/index.js";
import type { ApprovalRequest } from "./coding-agent-options.js";
import type { CodePermissions } from "./permissions/index.js";

/** The name a server's sampling request is judged and asked under (it is no tool): rules `McpSampling`, `McpSampling(<server>)`. */
export const mcpSamplingName = "McpSampling";

/** How much of the server's last message a prompt shows. */
const previewLength = 300;

/** What {@link createSessionSampler} runs a server's request with. */
export type SessionSamplerOptions = {
  model: Model;
  permissions: Pick<CodePermissions, "explain">;
  /** The session's person (the CLI's prompt, or -p's denial); without one, a request no rule allows is refused. */
  askPerson: ((request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>) | undefined;
  /** The session's listener: the model call's usage counts in the session's spending. */
  onEvent: AgentEventListener | undefined;
  /** The session's `prepareTurn` (the CLI's budget guard) runs before the model call. */
  prepareTurn: PrepareTurn | undefined;
};

/**
 * A coding session's answer to MCP servers' `sampling/createMessage`: each request is judged like a tool call named
 * `McpSampling` with the server as its argument (an allow rule `McpSampling(github)` lets it run unasked, a deny rule
 * refuses it, else the person is asked with a preview of what the server sends), then runs on the session's model,
 * its usage counted with the session's. A request that is refused rejects: the server reads why.
 */
export function createSessionSampler(options: SessionSamplerOptions): McpSamplingHandler {
  const approve = async (request: McpSamplingRequest): Promise<string | undefined> => {
    const call = { name: mcpSamplingName, arguments: { server: request.server } };
    const rule = `${mcpSamplingName}(${request.server})`;
    const { decision } = await options.permissions.explain(call);
    if (decision.behavior === "allow") return undefined;
    if (decision.behavior === "deny") return `MCP server "${request.server}" may not use the client's model: ${decision.message}`;
    const reason = `MCP server "${request.server}" asks to use the model${options.model.modelId ? ` (${options.model.modelId})` : ""}; allow it for good with the rule ${rule}`;
    if (!options.askPerson)
      return `MCP server "${request.server}" may not use the client's model: no person can be asked here, and no rule allows it (${rule}).`;
    const answer = await options.askPerson({
      toolCall: {
        id: `mcp-sampling-${globalThis.crypto.randomUUID()}`,
        name: mcpSamplingName,
        arguments: { server: request.server, ...previewOf(request) },
      },
      reason,
      signal: request.signal,
    });
    if (answer.behavior === "allow") return undefined;
    return `MCP server "${request.server}" may not use the client's model: ${answer.message}`;
  };
  return createMcpSampler(options.model, { approve, onEvent: options.onEvent, prepareTurn: options.prepareTurn });
}

/** What a person is shown of a request: the system prompt, the last message (cut), and how many came before. */
function previewOf(request: McpSamplingRequest): Record<string, unknown> {
  const last = request.messages.at(-1);
  const blocks = last ? (Array.isArray(last.content) ? last.content : [last.content]) : [];
  const text = blocks.map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : `[${block.type}]`)).join(" ");
  return {
    message: text.length > previewLength ? `${text.slice(0, previewLength)}…` : text,
    ...(request.systemPrompt && { systemPrompt: request.systemPrompt.slice(0, previewLength) }),
    messages: request.messages.length,
  };
}
