import type { SandboxStatus } from "../../code/sandbox/create-sandbox.js";
import type { Usage } from "../../core/types.js";
import type { PrintMcpServer } from "./mcp-server-report.js";

/**
 * How a `-p` run ended: `completed` (exit 0); `max_turns`, `budget_exceeded`, `blocked` (a UserPromptSubmit hook
 * refused the prompt) and `error` (a provider error, a hook that stopped the session) exit 1; `interrupted` (SIGINT)
 * exits 130.
 */
export type PrintStatus = "completed" | "max_turns" | "budget_exceeded" | "blocked" | "error" | "interrupted";

/** The outcome before it is printed. */
export type PrintOutcome = {
  status: PrintStatus;
  final: string;
  /** With `--json-schema`: the validated answer. */
  structuredOutput?: unknown;
  error?: string | undefined;
};

/** A call that needed approval and was denied because nobody could give it (Claude Code's `permission_denials`). */
export type PermissionDenial = { tool_name: string; tool_use_id: string; tool_input: Record<string, unknown> };

/**
 * The result object of `--output-format json` (the whole output) and the last line of `stream-json`. Its field names
 * are Claude Code's (`claude -p --output-format json`), so that scripts written for it read ours; `status` is
 * minagent's own word for how the run ended, `subtype` Claude Code's.
 */
export type PrintResult = {
  type: "result";
  subtype: "success" | "error_max_turns" | "error_max_budget_usd" | "error_during_execution";
  status: PrintStatus;
  is_error: boolean;
  /** The final answer ("" unless completed); with `--json-schema`, the answer's JSON text. */
  result: string;
  /** With `--json-schema`, on success: the answer, validated against the schema (Claude Code's field). */
  structured_output?: unknown;
  session_id: string;
  /** Model calls made by this invocation. */
  num_turns: number;
  duration_ms: number;
  /** Estimated at list prices; null when the model's price is unknown (0 for local models). */
  total_cost_usd: number | null;
  /** Tokens of this invocation; `input_tokens` includes cached ones (minagent's convention). */
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_tokens?: number;
    cache_write_tokens?: number;
    reasoning_tokens?: number;
  };
  permission_denials: PermissionDenial[];
  /**
   * Whether Bash commands really ran confined (`enabled`), in what, and why not when the sandbox was asked for but is
   * missing (`problem`). minagent's own field: Claude Code's result has none.
   */
  sandbox: {
    enabled: boolean;
    requested: boolean;
    mechanism: string | null;
    problem: string | null;
    writable: string[];
    allowed_domains: string[];
  };
  /** Each MCP server as the run ended: Claude Code's `{ name, status }` (as its stream-json init event has them), minagent's `state` and the `problem`. */
  mcp_servers: PrintMcpServer[];
  /** Why it did not complete. */
  error?: string;
};

const subtypes: Record<PrintStatus, PrintResult["subtype"]> = {
  completed: "success",
  max_turns: "error_max_turns",
  budget_exceeded: "error_max_budget_usd",
  blocked: "error_during_execution",
  error: "error_during_execution",
  interrupted: "error_during_execution",
};

/** The result object for an outcome. */
export function formatPrintResult(
  outcome: PrintOutcome,
  run: {
    sessionId: string;
    usage: Usage;
    costUsd: number | undefined;
    turns: number;
    durationMs: number;
    denials: PermissionDenial[];
    sandbox: SandboxStatus;
    mcpServers: PrintMcpServer[];
  },
): PrintResult {
  const { usage } = run;
  return {
    type: "result",
    subtype: subtypes[outcome.status],
    status: outcome.status,
    is_error: outcome.status !== "completed",
    result: outcome.final,
    ...("structuredOutput" in outcome && { structured_output: outcome.structuredOutput }),
    session_id: run.sessionId,
    num_turns: run.turns,
    duration_ms: run.durationMs,
    total_cost_usd: run.costUsd === undefined ? null : Number(run.costUsd.toFixed(6)),
    usage: {
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      ...(usage.cacheReadTokens !== undefined && { cache_read_tokens: usage.cacheReadTokens }),
      ...(usage.cacheWriteTokens !== undefined && { cache_write_tokens: usage.cacheWriteTokens }),
      ...(usage.reasoningTokens !== undefined && { reasoning_tokens: usage.reasoningTokens }),
    },
    permission_denials: run.denials,
    sandbox: {
      enabled: run.sandbox.enabled,
      requested: run.sandbox.requested,
      mechanism: run.sandbox.mechanism ?? null,
      problem: run.sandbox.problem ?? null,
      writable: run.sandbox.writable,
      allowed_domains: run.sandbox.allowedDomains,
    },
    mcp_servers: run.mcpServers,
    ...(outcome.error !== undefined && { error: outcome.error }),
  };
}
