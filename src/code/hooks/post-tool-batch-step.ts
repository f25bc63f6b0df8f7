import { type Message, MinagentError, type PrepareTurn } from "../../engine.js";
import type { HookRunner } from "./hook-runner.js";

/**
 * Thrown from a `prepareTurn` when a PostToolBatch hook stops the run before the next model call; CodingAgent turns
 * it into a run that ends `blocked` (`result.blocked` is `message`). The conversation so far is on the error, as on
 * any a run rejects with (`conversationOf`).
 */
export class PostToolBatchStop extends MinagentError {}

/**
 * A `prepareTurn` that runs the PostToolBatch hooks once a turn's calls have all ended, before the next model call
 * (a resumed turn's too): each call with its arguments and the result the model reads. Their context is appended
 * to the turn's last result, once (so the model reads it with the results); a block throws {@link PostToolBatchStop}.
 * Put it before a compactor, so that what it adds is measured.
 * @example chainPrepareTurns(postToolBatchStep(hooks), compactor)
 */
export function postToolBatchStep(hooks: HookRunner): PrepareTurn {
  const done = new WeakSet<Message>();
  return async ({ messages, run }) => {
    if (!hooks.hasHooks("PostToolBatch")) return undefined;
    let index = messages.length - 1;
    while (index >= 0 && messages[index]?.role === "tool") index--;
    const turn = messages[index];
    if (index === messages.length - 1 || turn?.role !== "assistant" || !turn.toolCalls?.length || done.has(turn)) return undefined;
    done.add(turn);
    const results = new Map(messages.slice(index + 1).map((message) => [message.toolCallId, message.content]));
    const calls = turn.toolCalls.map((call) => ({
      toolName: call.name,
      toolInput: call.arguments,
      toolUseId: call.id,
      toolResponse: results.get(call.id) ?? "",
    }));
    const outcome = await hooks.runPostToolBatchHooks(calls, run.signal);
    if (outcome.blocked !== undefined) throw new PostToolBatchStop(`A PostToolBatch hook stopped the run: ${outcome.blocked}`);
    if (outcome.context === undefined) return undefined;
    const last = messages[messages.length - 1] as Message;
    return { messages: [...messages.slice(0, -1), { ...last, content: `${last.content}\n\n${outcome.context}` }] };
  };
}
