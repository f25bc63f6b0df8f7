import {
  Agent,
  type CanUseTool,
  type Model,
  type PermissionDecision,
  type PrepareTurn,
  type Tool,
  type ToolContext,
  ToolRegistry,
  type ToolRegistryOptions,
} from "../../engine.js";
import { ToolError } from "../../errors.js";
import type { HookRunner } from "../hooks/index.js";
import { asReadOnlyTool, readOnlyBashCheck } from "./read-only-bash.js";
import { createSpendingGuard, type SubagentBudget, SubagentLimitError } from "./subagent-budget.js";
import type { SubagentDefinition } from "./subagent-definition.js";
import type { SubagentLimits } from "./subagent-limits.js";
import { subagentCanUseTool } from "./subagent-permissions.js";

/** Everything one subagent run needs, prepared by the Agent tool. */
export type SubagentRun = {
  definition: SubagentDefinition;
  /** This run's id for hooks (`agent_id`). */
  agentId: string;
  model: Model;
  /** Its tools, built for this run (the nested Agent tool included when it may have one). */
  tools: readonly Tool[];
  system: string;
  canUseTool: CanUseTool | undefined;
  /** Decides as the session's rules would without asking anyone (for `permissionMode: dontAsk`). */
  judgeCall: CanUseTool | undefined;
  /** Its agent file's hooks: PreToolUse in its permission check, SubagentStop before it answers (PostToolUse wraps its tools already). */
  hooks: HookRunner | undefined;
  /** The session's hooks: SubagentStart before its first model call, SubagentStop before it answers. */
  sessionHooks: HookRunner | undefined;
  limits: SubagentLimits;
  budget: SubagentBudget | undefined;
  registry: ToolRegistryOptions;
  prepareTurn: PrepareTurn | undefined;
};

const allow: PermissionDecision = Object.freeze({ behavior: "allow" });

/**
 * Runs one subagent as a child run of the tool call (its events nest under the call, its usage is added to the
 * parent's, aborting the parent aborts it) and returns its final answer. The session's SubagentStart hooks run
 * first (their context goes before the prompt); its file's Stop hooks and the session's SubagentStop hooks may send
 * it back to work before it answers, as a session's Stop hooks do. Every way it can end short — a limit, its step budget, a
 * failing model — is thrown as a ToolError the parent model reads; an abort is thrown as it is.
 */
export async function runSubagent(run: SubagentRun, input: { description: string; prompt: string }, context: ToolContext): Promise<string> {
  const { definition, limits } = run;
  const registry = new ToolRegistry(run.registry);
  for (const tool of run.tools) registry.add(definition.readOnly && tool.name === "Bash" ? asReadOnlyTool(tool) : tool);
  if (definition.readOnly) registry.addCheck(readOnlyBashCheck(definition.name));
  const guard = createSpendingGuard({ budget: run.budget, share: limits.budgetShare, maxTokens: limits.maxTokens });
  const prepareTurn: PrepareTurn = async (turn) => {
    await guard.prepareTurn(turn);
    return run.prepareTurn?.(turn);
  };
  const canUseTool = withoutWaiting(
    subagentCanUseTool({
      subagent: definition.name,
      permissionMode: definition.permissionMode,
      canUseTool: run.canUseTool,
      judge: run.judgeCall,
      hooks: run.hooks,
    }),
    definition.name,
  );
  const maxSteps = Math.min(definition.maxTurns ?? limits.maxSteps, limits.maxSteps);
  // One Agent per run, so that a run a Stop hook asks for gets only the model calls left.
  const agentWith = (steps: number) => new Agent(run.model, registry, { system: run.system, maxSteps: steps, canUseTool, prepareTurn });
  const who = `The ${definition.name} subagent ("${input.description}")`;
  const lastWords = () => (guard.lastText === undefined ? "" : `\n\nWhat it had written last:\n${guard.lastText}`);
  const runOptions = { parent: context, signal: context.signal, name: `${definition.name}: ${input.description}`, onEvent: guard.listen };
  const identity = { agentId: run.agentId, agentType: definition.name };
  let result: Awaited<ReturnType<Agent["run"]>>;
  try {
    const start = await run.sessionHooks?.runSubagentStartHooks({ ...identity, signal: context.signal });
    result = await agentWith(maxSteps).run(start?.context ? `${start.context}\n\n${input.prompt}` : input.prompt, runOptions);
    let turns = result.turns;
    for (let continuations = 0; result.status === "completed" && turns < maxSteps; continuations++) {
      // The file's Stop hooks and the session's SubagentStop hooks are all asked; any of them may send it back.
      const next: string[] = [];
      for (const hooks of [run.hooks, run.sessionHooks]) {
        const verdict = await hooks?.runSubagentStopHooks(result, { ...identity, continuations, signal: context.signal });
        if (verdict) next.push(verdict.continue);
      }
      if (next.length === 0) break;
      result = await agentWith(maxSteps - turns).run(next.join("\n\n"), { ...runOptions, history: result.messages });
      turns += result.turns;
    }
  } catch (error) {
    if (context.signal.aborted) throw error;
    if (error instanceof SubagentLimitError)
      throw new ToolError(
        `${who} was stopped before it finished: ${error.message}.${lastWords()}\n\nUse what it found, or go on without it.`,
      );
    throw new ToolError(`${who} failed: ${error instanceof Error ? error.message : String(error)}${lastWords()}`);
  }
  if (result.status === "completed") return result.final.trim() === "" ? `${who} finished without a final message.` : result.final;
  if (result.status === "max_steps")
    throw new ToolError(`${who} was stopped before it finished: it reached its limit of ${maxSteps} model calls.${lastWords()}`);
  // Asks are turned into denials below, so only a tool's own pending state could get here.
  throw new ToolError(`${who} stopped: a call waits for a decision a subagent cannot wait for.${lastWords()}`);
}

/**
 * The session's permission check, for a subagent: the same decisions (rules, mode, hooks, and a person asked
 * through the parent's `askPerson`), except that an "ask" nobody answered in process becomes a denial the subagent
 * reads, since a subagent cannot stop and be resumed later.
 */
function withoutWaiting(canUseTool: CanUseTool | undefined, subagent: string): CanUseTool {
  return async (call, context) => {
    const decision = canUseTool ? await canUseTool(call, context) : context.needsApproval ? { behavior: "ask" as const } : allow;
    if (decision.behavior !== "ask") return decision;
    return {
      behavior: "deny",
      message: `Permission needed${decision.reason ? `: ${decision.reason}` : ""}. The ${subagent} subagent cannot wait for the user's approval: do without this call, or end with a report saying it needs approval, so that the agent that started you can ask.`,
    };
  };
}
