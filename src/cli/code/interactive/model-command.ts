import { formatNumber } from "../../../text.js";
import { estimateCost } from "../../../trace/model-prices.js";
import type { SlashHost } from "./slash-commands.js";

/**
 * `/model`: the model in use, its context window and list price, and how to switch; `/model <model>` switches the
 * session to another (any string `--model` takes, a Claude id, or `opus` / `sonnet` / `haiku`) for the next prompt.
 * A model that cannot be made is said, and the session keeps the one it had.
 */
export async function runModelCommand(host: SlashHost, args: string): Promise<void> {
  const { style } = host;
  const wanted = args.trim();
  if (wanted === "") {
    host.print(describeModel(host));
    return;
  }
  const before = host.context.model.spec;
  if (wanted === before) {
    host.print(style.dim(`The session is on ${before} already.`));
    return;
  }
  try {
    await host.switchModel(wanted);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    host.print(`${style.red(`Could not switch to ${wanted}: ${message}`)}\n${style.dim(`The session stays on ${before}.`)}`);
    return;
  }
  const { spec } = host.context.model;
  host.print(`Switched to ${style.bold(spec)}: the next prompt goes to it.\n${describeModel(host, false)}`);
}

/** The model, its context window and price (and, with `hint`, how to switch). */
function describeModel(host: SlashHost, hint = true): string {
  const { spec, id, instance } = host.context.model;
  const lines = [
    `Model: ${spec}${spec.endsWith(id) ? "" : ` (${id})`}`,
    `Context window: ${host.contextWindow ? `${formatNumber(host.contextWindow)} tokens` : "not known"}`,
    `List price: ${instance.provider === "ollama" ? "none (a local model: its calls count as free)" : describePrice(id)}`,
  ];
  if (hint)
    lines.push(
      host.style.dim(
        "Switch with /model <provider>:<model>, e.g. /model anthropic:claude-sonnet-4-6, /model openai:gpt-5, /model ollama:qwen3 (or opus, sonnet, haiku: this provider's model of that tier).",
      ),
    );
  return lines.join("\n");
}

/** `$3 in / $15 out per million tokens`, or `not known`. */
export function describePrice(modelId: string): string {
  const input = estimateCost(modelId, { inputTokens: 1_000_000, outputTokens: 0 });
  const output = estimateCost(modelId, { inputTokens: 0, outputTokens: 1_000_000 });
  if (input === undefined || output === undefined) return "not known";
  const dollars = (amount: number) => `$${Number(amount.toFixed(4))}`;
  return `${dollars(input)} in / ${dollars(output)} out per million tokens`;
}
