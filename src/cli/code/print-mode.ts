import type { Checkpoint } from "../../code/checkpoints/index.js";
import type { ApprovalRequest, CodingAgent, CodingRunResult } from "../../code/coding-agent.js";
import { classifySlashPrompt, describeCommandNames, parseSlashInput } from "../../code/commands/index.js";
import { expandMcpPrompt, isMcpPromptCommand } from "../../code/mcp-prompt-commands.js";
import type { AgentEvent } from "../../core/events.js";
import { AbortError, OutputValidationError, UsageError } from "../../errors.js";
import { ProviderError } from "../../models/provider-error.js";
import { toOneLine } from "../../text.js";
import { formatUsage } from "../commands/run.js";
import { describeMcpLog, describeProgress, toolCallLine } from "../describe-progress.js";
import { describePrintMcpServers, mcpServerLine } from "./mcp-server-report.js";
import { formatPrintResult, type PermissionDenial, type PrintOutcome } from "./print-result.js";
import { rewindForPrint } from "./print-rewind.js";
import { interruptedExitCode } from "./process-input.js";
import { sandboxStatusLine } from "./sandbox-status.js";
import type { CodeSessionContext } from "./session-context.js";
import type { SpendingTracker } from "./spending.js";
import { toStreamJsonLine } from "./stream-json.js";

/** What `-p` needs: the command's context, without a terminal. */
export type PrintModeContext = Omit<CodeSessionContext, "terminal" | "spending"> & { spending: SpendingTracker; prompt: string };

/**
 * The observation a call that needs approval gets in `-p` mode, where nobody can approve it (Claude Code denies such
 * calls in print mode too). The model learns it did not run and why, and that retrying will not help.
 */
export function printModeDenial(request: Pick<ApprovalRequest, "toolCall" | "reason">): string {
  const why = request.reason ? ` (${request.reason.replace(/\.$/, "")})` : "";
  return `Not approved: this ${request.toolCall.name} call needs a person's approval${why}, and minagent is running non-interactively (-p), so nobody could approve it. It did not run. Do not retry it; finish what you can without it, and say in your answer what was not done and which permission it needs (--allowedTools or --permission-mode).`;
}

/**
 * `minagent code -p`: runs the prompt to the end (calls that need approval are denied with {@link printModeDenial}),
 * writes the conversation to the session as it goes, prints the outcome in the chosen format and resolves to the exit
 * code: 0 completed, 1 failed (a provider error, the turn or budget limit), 2 misuse (bad rules or settings), 130
 * interrupted (the context's signal: SIGINT; 143 for SIGTERM).
 */
/**
 * What `-p` answers a server's form with when a rule allows it (`McpElicitation(<server>)`): the schema's defaults,
 * provided every required field has one; otherwise undefined (the form is declined).
 */
async function acceptedDefaults(
  agent: CodingAgent | undefined,
  server: string,
  schema: { properties?: Record<string, unknown>; required?: readonly string[] } | undefined,
): Promise<Record<string, string | number | boolean | string[]> | undefined> {
  if (!agent) return undefined;
  const { decision } = await agent.permissions.explain({ name: "McpElicitation", arguments: { server } });
  if (decision.behavior !== "allow") return undefined;
  const defaults: Record<string, string | number | boolean | string[]> = {};
  for (const [name, field] of Object.entries(schema?.properties ?? {})) {
    const value = (field as { default?: unknown }).default;
    if (value !== undefined) defaults[name] = value as string | number | boolean | string[];
  }
  return (schema?.required ?? []).every((name) => name in defaults) ? defaults : undefined;
}

export async function runPrintMode(context: PrintModeContext): Promise<number> {
  const { io, options, session, spending } = context;
  const started = Date.now();
  const denials: PermissionDenial[] = [];
  const progress = createProgress(context);
  let agent: CodingAgent | undefined;
  try {
    agent = await context.createAgent({
      askPerson: (request) => {
        denials.push({ tool_name: request.toolCall.name, tool_use_id: request.toolCall.id, tool_input: request.toolCall.arguments });
        if (options.outputFormat === "text" && !options.verbose)
          io.stderr(`✗ ${request.toolCall.name} not approved (-p): ${toOneLine(request.reason ?? "it needs approval", 160)}\n`);
        return { behavior: "deny", message: printModeDenial(request) };
      },
      // Nobody can fill in a server's form or open its link: declined, and said, so that a script's author knows why;
      // unless a rule McpElicitation(<server>) lets the run accept a form as it comes, its defaults for answers.
      elicit: async (request) => {
        const what = request.mode === "url" ? `to open ${request.url}` : `for input (${toOneLine(request.message, 120)})`;
        const answer = request.mode === "form" ? await acceptedDefaults(agent, request.server, request.requestedSchema) : undefined;
        if (answer) {
          io.stderr(
            `minagent code: MCP server "${request.server}" asked ${what}; accepted with the form's defaults (McpElicitation(${request.server})).\n`,
          );
          return { action: "accept", content: answer };
        }
        io.stderr(
          `minagent code: MCP server "${request.server}" asked ${what}; declined: -p has no person to answer it${request.mode === "form" ? ` (a rule McpElicitation(${request.server}) accepts a form whose required fields have defaults)` : ""}.\n`,
        );
        return { action: "decline" };
      },
    });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`minagent code: ${error.message}\n`);
    return 2;
  }
  // A sandbox that was asked for but cannot run (or runs short of something) is said once, before any command runs.
  if (agent.sandbox.status.requested && (!agent.sandbox.status.enabled || agent.sandbox.status.problem))
    io.stderr(`minagent code: ${sandboxStatusLine(agent.sandbox.status)}\n`);
  const reportMcpServers = createMcpServerReport(context, agent);
  reportMcpServers();
  // `-p "/review src/a.ts"` runs the custom command; a `/name` no command has is refused, as Claude Code's -p does.
  const slash = await classifySlashPrompt(context.prompt, agent.commands);
  // `/mcp__<server>__<prompt> args`: the server's prompt is the turn's text.
  let prompt = context.prompt;
  if (slash.kind === "unknown" && isMcpPromptCommand(slash.name)) {
    try {
      const expanded = await expandMcpPrompt(agent.mcp, slash.name, parseSlashInput(context.prompt)?.args ?? "", {
        signal: context.signal,
      });
      if (expanded === undefined) {
        io.stderr(`minagent code: unknown command /${slash.name}: no ready MCP server has this prompt.\n`);
        return 2;
      }
      prompt = expanded;
    } catch (error) {
      io.stderr(`minagent code: /${slash.name}: ${(error as Error).message}\n`);
      return 2;
    }
  } else if (slash.kind === "unknown") {
    io.stderr(
      `minagent code: unknown command /${slash.name}: ${describeCommandNames(agent.commands)}; the interactive session's own commands (/help, /clear…) do not run with -p. To send a prompt that starts with "/", put a word before it.\n`,
    );
    return 2;
  }
  const rewound = await rewindForPrint(context, agent);
  if ("exitCode" in rewound) {
    await agent.end("other");
    await session.flush();
    return rewound.exitCode;
  }
  progress.start(agent);
  // What servers log (at info and above) is for the person who asked to see more.
  const stopLogs =
    options.verbose && options.outputFormat === "text"
      ? agent.mcp?.onLog((message) => io.stderr(`${describeMcpLog(message)}\n`))
      : undefined;
  let outcome: PrintOutcome;
  try {
    // Streamed: deltas for stream-json, and a silent response is retried (the adapters' idle timeout).
    const runOptions = {
      history: rewound.history,
      signal: context.signal,
      // Where the prompt starts is marked in the session: a rewind to before it finds the conversation there.
      onCheckpoint: (checkpoint: Checkpoint) => session.markCheckpoint(checkpoint.id),
      onEvent: progress.event,
      stream: true,
      // A mention that could not be attached is said, as a command's file that could not be included is.
      onResourcesAttached: ({ notes }: { notes: readonly string[] }) => noteExpansion(context, notes),
      onFilesAttached: ({ notes }: { notes: readonly string[] }) => noteExpansion(context, notes),
    };
    const result =
      slash.kind === "command"
        ? await agent.runCommand(slash.command, slash.args, {
            ...runOptions,
            onExpanded: (expansion) => noteExpansion(context, expansion.notes),
          })
        : await agent.run(prompt, runOptions);
    outcome = outcomeOf(result);
  } catch (error) {
    outcome = failureOf(error, context);
  } finally {
    stopLogs?.();
    // The session ends with the run: SessionEnd hooks (reason "other", as Claude Code's -p), before the session is saved.
    await agent.end("other");
    await session.flush().catch((error: unknown) => {
      io.stderr(`minagent code: could not save the session to ${session.file}: ${(error as Error).message}\n`);
    });
  }
  // A server that failed or stopped during the run (one still starting when it began, say) is said too.
  reportMcpServers();
  const result = formatPrintResult(outcome, {
    sessionId: session.id,
    usage: spending.usage,
    costUsd: spending.costUsd,
    turns: spending.modelCalls,
    durationMs: Date.now() - started,
    denials,
    sandbox: agent.sandbox.status,
    mcpServers: describePrintMcpServers(agent.mcp?.status() ?? []),
  });
  progress.finish(outcome, result);
  return outcome.status === "completed" ? 0 : outcome.status === "interrupted" ? interruptedExitCode(context.signal) : 1;
}

/**
 * Says on stderr, once each, what is wrong with the MCP servers: a line for each server that is not ready (failed,
 * unavailable, stopped, still starting) with its problem, and with --verbose one for each ready server. Called as
 * the run starts and as it ends; a line already said is not said again.
 */
function createMcpServerReport(context: PrintModeContext, agent: CodingAgent): () => void {
  const said = new Map<string, string>();
  return () => {
    for (const server of agent.mcp?.status() ?? []) {
      if (server.state === "ready" && !context.options.verbose) continue;
      const line = mcpServerLine(server);
      if (said.get(server.name) === line) continue;
      // A server still starting when the run began and ready at its end needs no second line.
      if (said.has(server.name) && server.state === "ready") continue;
      said.set(server.name, line);
      context.io.stderr(`minagent code: ${line}\n`);
    }
  };
}

/** What a command's prompt left out (a file not included, a shell line refused), on stderr unless the output is JSON lines. */
function noteExpansion(context: PrintModeContext, notes: readonly string[]): void {
  if (context.options.outputFormat === "stream-json") return;
  for (const note of notes) context.io.stderr(`minagent code: ${toOneLine(note, 300)}\n`);
}

function outcomeOf(result: CodingRunResult): PrintOutcome {
  if (result.blocked !== undefined)
    return {
      status: "blocked",
      final: "",
      error: result.blockedBy === "PostToolBatch" ? result.blocked : `a UserPromptSubmit hook blocked the prompt: ${result.blocked}`,
    };
  if (result.status === "completed")
    return { status: "completed", final: result.final, ...("output" in result && { structuredOutput: result.output }) };
  if (result.status === "max_steps") return { status: "max_turns", final: "", error: `no final answer within ${result.turns} model calls` };
  // Every call that needs approval is denied in -p, so a run cannot wait for one; say so if it ever does.
  const waiting = result.pending.map((pending) => pending.toolCall.name).join(", ");
  return { status: "error", final: "", error: `the run stopped waiting for an approval (${waiting})` };
}

function failureOf(error: unknown, context: PrintModeContext): PrintOutcome {
  if (context.spending.isBudgetExceeded(error)) return { status: "budget_exceeded", final: "", error: (error as Error).message };
  if (context.signal.aborted || error instanceof AbortError) return { status: "interrupted", final: "", error: "interrupted" };
  if (error instanceof ProviderError || error instanceof UsageError || error instanceof OutputValidationError)
    return { status: "error", final: "", error: error.message };
  throw error;
}

type Progress = { start(agent: CodingAgent): void; event(event: AgentEvent): void; finish(outcome: PrintOutcome, result: object): void };

/** What the chosen format shows while the run goes and when it ends. */
function createProgress(context: PrintModeContext): Progress {
  const { io, options, session } = context;
  const verbose = options.verbose;
  const record = (event: AgentEvent) => session.record(event);
  if (options.outputFormat === "stream-json") {
    const line = (value: object) => io.stdout(`${JSON.stringify(value)}\n`);
    return {
      start: (agent) =>
        line({
          type: "session-start",
          session_id: session.id,
          model: context.model.spec,
          cwd: options.cwd,
          permission_mode: agent.permissions.mode,
          tools: agent.registry.schemas().map((schema) => schema.name),
          // Claude Code's init event lists them so too: a script sees a server that did not start.
          mcp_servers: describePrintMcpServers(agent.mcp?.status() ?? []),
        }),
      event: (event) => {
        record(event);
        line(toStreamJsonLine(event, session.id));
      },
      finish: (_, result) => line(result),
    };
  }
  return {
    start: () => {},
    event: (event) => {
      record(event);
      if (verbose) printVerbose(io, event);
      else if (event.type === "model-call-retry") io.stderr(`${describeProgress(event)}\n`);
    },
    finish: (outcome, result) => {
      if (verbose) {
        io.stderr(`${formatUsage(context.model.id, context.model.spec, context.spending.usage)}\n`);
        io.stderr(`session: ${session.id}\n`);
      }
      if (options.outputFormat === "json") io.stdout(`${JSON.stringify(result)}\n`);
      else if (outcome.status === "completed") io.stdout(outcome.final.endsWith("\n") ? outcome.final : `${outcome.final}\n`);
      else io.stderr(`minagent code: ${failureMessage(outcome, context)}\n`);
    },
  };
}

function failureMessage(outcome: PrintOutcome, context: PrintModeContext): string {
  const resume = `the conversation is saved: minagent code --resume ${context.session.id}`;
  switch (outcome.status) {
    case "budget_exceeded":
      return `stopped: ${outcome.error} (--max-budget-usd); ${resume}`;
    case "max_turns":
      return `stopped: ${outcome.error} (--max-turns ${context.options.maxTurns ?? 50}); ${resume}`;
    case "interrupted":
      return `interrupted; ${resume}`;
    default:
      return `${outcome.error ?? outcome.status}`;
  }
}

/** --verbose in text and json: the run on stderr as it happens, as `minagent run` shows it. */
function printVerbose(io: PrintModeContext["io"], event: AgentEvent): void {
  const toolLine = toolCallLine(event);
  if (toolLine !== undefined) io.stderr(`${toolLine}\n`);
  else if (event.type === "model-call-retry") io.stderr(`${describeProgress(event)}\n`);
  else if (event.type === "model-call-end") {
    const { message } = event.response;
    if (message.content !== "" && message.toolCalls?.length) io.stderr(`${message.content.trimEnd()}\n`);
  }
}
