import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import type { Model, Usage } from "../../core/types.js";
import { UsageError } from "../../errors.js";
import { ProviderError } from "../../models/provider-error.js";
import { describeApiKeyVariables, findApiKey, modelSpecSyntax, parseModelSpec, resolveModel } from "../../models/resolve-model.js";
import { formatNumber } from "../../text.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import { estimateCost } from "../../trace/model-prices.js";
import { describeProgress, toolCallLine } from "../describe-progress.js";
import type { CliIo } from "../io.js";
import { parseSeconds, parseWholeNumber } from "../number-flags.js";
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
  --timeout <seconds>   give up on one attempt at a model call after this long, streaming
                        included, and retry it (default: no limit; a response that goes
                        silent for minutes is retried anyway)
  --system <text>       replace the system prompt

No key at hand? "minagent demo react" runs offline on a scripted model.
`;

type RunArguments = {
  task: string;
  model: string | undefined;
  maxSteps: number;
  maxRetries: number;
  timeoutMs: number | undefined;
  system: string;
};

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
    if (spec.apiKeyRequired && !findApiKey(spec, io.env)) {
      io.stderr(
        `minagent run: ${options.model} needs an API key. Set the ${describeApiKeyVariables(spec)} environment variable, e.g.\n  export ${spec.apiKeyVariable}=…\nor run "minagent demo react" offline.\n`,
      );
      return 2;
    }
    // Retries are reported by the printer, from the run's model-call-retry events.
    model = await resolveModel(options.model, { env: io.env, maxRetries: options.maxRetries, timeoutMs: options.timeoutMs });
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
    if (!["--model", "--max-steps", "--max-retries", "--timeout", "--system"].includes(name)) {
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
    throw new UsageError('say what the agent should do, e.g. minagent run "What is 17 * 23?" --model anthropic:claude-sonnet-4-6');
  return {
    task,
    model: values.get("--model") ?? (env.MINAGENT_MODEL || undefined),
    maxSteps: parseWholeNumber(values.get("--max-steps"), "--max-steps") ?? 8,
    maxRetries: parseWholeNumber(values.get("--max-retries"), "--max-retries", 0) ?? 2,
    timeoutMs: parseSeconds(values.get("--timeout"), "--timeout"),
    system: values.get("--system") ?? system,
  };
}

/**
 * Prints a run as it happens: the answer on stdout; one compact line per tool call, result and retry on
 * stderr. On a terminal the text streams as it is written. When a streamed call fails part-way and is
 * retried, what it showed cannot be taken back: a line on stderr says it is discarded, and the retried
 * answer starts on a fresh line. Into a pipe or a file, each call's text is written once the call has
 * answered, so stdout holds exactly the final attempts' text, never a discarded beginning.
 */
function createPrinter(io: CliIo): ((event: AgentEvent) => void) & { endLine: () => void } {
  const live = io.isTerminal === true;
  let midLine = false;
  let streamedThisCall = false;
  const endLine = () => {
    if (midLine) io.stdout("\n");
    midLine = false;
  };
  const write = (text: string) => {
    io.stdout(text);
    midLine = !text.endsWith("\n");
  };
  const print = (event: AgentEvent) => {
    switch (event.type) {
      case "model-call-start":
        streamedThisCall = false;
        break;
      case "text-delta":
        if (!live) break;
        write(event.text);
        streamedThisCall = true;
        break;
      case "model-call-retry": {
        endLine();
        const discarded = streamedThisCall ? " (the answer above was cut off; it starts again)" : "";
        io.stderr(`${describeProgress(event)}${discarded}\n`);
        streamedThisCall = false;
        break;
      }
      case "model-call-end": {
        const { message, stopReason } = event.response;
        // Into a pipe, and from a model that does not stream, the text is printed whole.
        if (!streamedThisCall && message.content !== "") write(message.content);
        endLine();
        if (stopReason === "max_tokens" || stopReason === "refusal") io.stderr(`(stopped: ${stopReason})\n`);
        break;
      }
      default: {
        const toolLine = toolCallLine(event);
        if (toolLine !== undefined) io.stderr(`${toolLine}\n`);
        break;
      }
    }
  };
  return Object.assign(print, { endLine });
}

/** `tokens: 1,234 in (1,000 cached) · 56 out · ≈ $0.0042` */
export function formatUsage(modelId: string, spec: string, usage: Usage): string {
  const number = (value: number) => formatNumber(value);
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
