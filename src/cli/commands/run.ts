import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import type { Model, Usage } from "../../core/types.js";
import { UsageError } from "../../errors.js";
import { ProviderError } from "../../models/provider-error.js";
import { modelSpecSyntax, parseModelSpec, resolveModel } from "../../models/resolve-model.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import type { CliIo } from "../io.js";
import { estimateCost } from "../model-prices.js";
import { calculatorTool } from "../tools/calculator.js";
import { currentTimeTool } from "../tools/current-time.js";

const system =
  "You are a helpful assistant. Use the tools for arithmetic and for the current date or time instead of guessing. Answer concisely.";

const usage = `Usage: minagent run "<task>" --model <model> [options]

Runs an agent on a real model with two tools (calculator, current_time), streaming its answer.
The answer goes to stdout; tool calls, results and the token count to stderr.

Models (--model, or the MINAGENT_MODEL environment variable):
${modelSpecSyntax}

Options:
  --model, -m <model>   the model to run (see above)
  --max-steps <n>       model calls allowed (default 8)
  --max-retries <n>     retries of a failed model call (default 2)
  --system <text>       replace the system prompt

No key at hand? "minagent demo react" runs offline on a scripted model.
`;

type RunArguments = { task: string; model: string | undefined; maxSteps: number; maxRetries: number; system: string };

/** `minagent run "<task>" --model <model>`: one agent run on a real model, streamed to the terminal. */
export async function runCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(usage);
    return 0;
  }
  let options: RunArguments;
  try {
    options = parseArguments(args, io.env);
  } catch (error) {
    io.stderr(`minagent run: ${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if (options.model === undefined) {
    io.stderr(
      `minagent run: choose a model with --model (or set MINAGENT_MODEL):\n${modelSpecSyntax}\n\nNo key at hand? "minagent demo react" runs offline on a scripted model.\n`,
    );
    return 2;
  }
  let model: Model;
  try {
    const spec = parseModelSpec(options.model);
    if (spec.apiKeyRequired && !io.env[spec.apiKeyVariable]) {
      io.stderr(
        `minagent run: ${options.model} needs an API key. Set the ${spec.apiKeyVariable} environment variable, e.g.\n  export ${spec.apiKeyVariable}=…\nor run "minagent demo react" offline.\n`,
      );
      return 2;
    }
    model = await resolveModel(options.model, {
      env: io.env,
      maxRetries: options.maxRetries,
      retry: {
        onRetry: ({ delayMs, error }) =>
          io.stderr(`… ${error.status ?? error.errorType} ${error.providerMessage}; retrying in ${(delayMs / 1000).toFixed(1)} s\n`),
      },
    });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`minagent run: ${error.message}\n`);
    return 2;
  }
  const registry = new ToolRegistry().add(calculatorTool).add(currentTimeTool);
  const agent = new Agent(model, registry, { system: options.system, maxSteps: options.maxSteps });
  const printer = createPrinter(io);
  try {
    const result = await agent.run(options.task, { onEvent: printer, stream: true });
    if (result.status === "max_steps") io.stderr(`(no final answer within ${options.maxSteps} model calls)\n`);
    io.stderr(`${formatUsage(model.modelId ?? options.model, options.model, result.usage)}\n`);
    return result.status === "completed" ? 0 : 1;
  } catch (error) {
    printer.endLine();
    if (error instanceof ProviderError) {
      io.stderr(`minagent run: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

function parseArguments(args: readonly string[], env: CliIo["env"]): RunArguments {
  const positional: string[] = [];
  const values = new Map<string, string>();
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const name = flag === "-m" ? "--model" : flag;
    if (!["--model", "--max-steps", "--max-retries", "--system"].includes(name)) {
      if (arg.startsWith("-") && arg.length > 1) throw new UsageError(`unknown option ${arg}`);
      positional.push(arg);
      continue;
    }
    const value = inline ?? args[++index];
    if (value === undefined) throw new UsageError(`${name} needs a value`);
    values.set(name, value);
  }
  const task = positional.join(" ").trim();
  if (task === "")
    throw new UsageError('say what the agent should do, e.g. minagent run "What is 17 * 23?" --model anthropic:claude-sonnet-4-5');
  return {
    task,
    model: values.get("--model") ?? (env.MINAGENT_MODEL || undefined),
    maxSteps: count(values.get("--max-steps"), "--max-steps", 8, 1),
    maxRetries: count(values.get("--max-retries"), "--max-retries", 2, 0),
    system: values.get("--system") ?? system,
  };
}

function count(value: string | undefined, flag: string, fallback: number, minimum: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < minimum) throw new UsageError(`${flag} must be a whole number ≥ ${minimum}, got "${value}"`);
  return parsed;
}

/** Prints a run as it happens: streamed text on stdout; one compact line per tool call and result on stderr. */
function createPrinter(io: CliIo): ((event: AgentEvent) => void) & { endLine: () => void } {
  let midLine = false;
  let streamedThisTurn = false;
  const endLine = () => {
    if (midLine) io.stdout("\n");
    midLine = false;
  };
  const print = (event: AgentEvent) => {
    switch (event.type) {
      case "model-call-start":
        streamedThisTurn = false;
        break;
      case "text-delta":
        io.stdout(event.text);
        streamedThisTurn = true;
        midLine = !event.text.endsWith("\n");
        break;
      case "model-call-end": {
        const { message, stopReason } = event.response;
        // A model that does not stream still gets its text printed.
        if (!streamedThisTurn && message.content !== "") {
          io.stdout(message.content);
          midLine = !message.content.endsWith("\n");
        }
        endLine();
        if (stopReason === "max_tokens" || stopReason === "refusal") io.stderr(`(stopped: ${stopReason})\n`);
        break;
      }
      case "tool-call-start":
        io.stderr(`→ ${event.toolCall.name}(${oneLine(JSON.stringify(event.toolCall.arguments), 100)})\n`);
        break;
      case "tool-call-end":
        io.stderr(`${event.result.isError ? "✗" : "←"} ${event.toolCall.name}: ${oneLine(event.result.content, 120)}\n`);
        break;
      default:
        break;
    }
  };
  return Object.assign(print, { endLine });
}

function oneLine(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

/** `tokens: 1,234 in (1,000 cached) · 56 out · ≈ $0.0042` */
export function formatUsage(modelId: string, spec: string, usage: Usage): string {
  const number = (value: number) => value.toLocaleString("en-US");
  const cached = usage.cacheReadTokens ? ` (${number(usage.cacheReadTokens)} cached)` : "";
  const reasoning = usage.reasoningTokens ? ` (${number(usage.reasoningTokens)} reasoning)` : "";
  const parts = [`tokens: ${number(usage.inputTokens)} in${cached}`, `${number(usage.outputTokens)} out${reasoning}`];
  const provider = spec.slice(0, spec.indexOf(":"));
  if (provider === "ollama") parts.push("local model, no API cost");
  else {
    const cost = estimateCost(modelId, usage);
    parts.push(cost === undefined ? `cost: no price known for ${modelId}` : `≈ $${cost.toFixed(cost < 0.01 ? 5 : 4)} at list prices`);
  }
  return parts.join(" · ");
}
