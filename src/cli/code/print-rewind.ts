import type { CodingAgent } from "../../code/coding-agent.js";
import type { Message } from "../../core/types.js";
import { UsageError } from "../../errors.js";
import { describeCheckpoint, describeFileCounts, displayPath, listCheckpoints } from "./describe-checkpoints.js";
import type { PrintModeContext } from "./print-mode.js";

/**
 * `-p --rewind <n|id|list>`: lists the session's checkpoints, or goes back to before one (the files, the
 * conversation, or both, as --rewind-scope says; a conversation rewind is written to the session at once). Resolves
 * to the exit code when the run ends here (a list, a rewind without a prompt, a refusal), else to the conversation
 * the prompt goes on with.
 */
export async function rewindForPrint(
  context: PrintModeContext,
  agent: CodingAgent,
): Promise<{ exitCode: number } | { history: readonly Message[] }> {
  const { io, options, session } = context;
  const rewind = options.rewind;
  if (!rewind) return { history: session.history };
  const json = options.outputFormat !== "text";
  const checkpoints = agent.checkpoints;
  if (!checkpoints) {
    io.stderr('minagent code: --rewind: this session keeps no checkpoints ("checkpoints": {"enabled": false} in a settings file).\n');
    return { exitCode: 2 };
  }
  const root = agent.workspace.root;
  if (rewind.target === "list") {
    const listings = await listCheckpoints(checkpoints);
    if (json)
      io.stdout(
        `${JSON.stringify({
          type: "checkpoints",
          session_id: session.id,
          checkpoints: listings.map(({ checkpoint, files, added, removed }) => ({
            number: checkpoint.number,
            id: checkpoint.id,
            kind: checkpoint.kind,
            at: checkpoint.at,
            description: describeCheckpoint(checkpoint, checkpoints.checkpoints),
            files: files.map((file) => ({ path: displayPath(file.path, root), kind: file.kind, added: file.added, removed: file.removed })),
            added,
            removed,
          })),
        })}\n`,
      );
    else
      for (const listing of listings)
        io.stdout(
          `#${listing.checkpoint.number}  ${describeFileCounts(listing)}  ${describeCheckpoint(listing.checkpoint, checkpoints.checkpoints)}\n`,
        );
    return { exitCode: 0 };
  }
  const code = rewind.scope !== "conversation";
  const conversation = rewind.scope !== "code";
  let outcome: Awaited<ReturnType<CodingAgent["rewind"]>>;
  try {
    outcome = await agent.rewind(rewind.target, {
      code,
      conversation: conversation ? session.history : undefined,
      onConflict: rewind.onConflict,
      conversationBefore: (id) => session.conversationBefore(id),
    });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`minagent code: --rewind: ${error.message.replaceAll(`${root}/`, "")}\n`);
    return { exitCode: error.name === "RewindConflictError" ? 1 : 2 };
  }
  const history = outcome.history ?? session.history;
  if (conversation) session.rewindConversation(history, outcome.checkpoint.id);
  const restored = outcome.restored.map((file) => displayPath(file.path, root));
  const left = outcome.conflicts.map((conflict) => displayPath(conflict.path, root));
  const summary = {
    type: "rewind",
    session_id: session.id,
    to: outcome.target.number,
    checkpoint: outcome.checkpoint.number,
    restored,
    conflicts: left,
    ...(conversation && { conversation_messages: history.length }),
  };
  if (json && context.prompt.trim() === "") io.stdout(`${JSON.stringify(summary)}\n`);
  else {
    const files = code
      ? `${restored.length} file${restored.length === 1 ? "" : "s"} restored${restored.length ? ` (${restored.join(", ")})` : ""}`
      : "";
    const talk = conversation ? `the conversation back to ${history.length} message${history.length === 1 ? "" : "s"}` : "";
    io.stderr(
      `minagent code: rewound to before #${outcome.target.number}: ${[files, talk].filter(Boolean).join("; ")}. Undo: --rewind ${outcome.checkpoint.number}.\n`,
    );
    if (left.length > 0) io.stderr(`minagent code: left as they are: ${left.join(", ")}\n`);
  }
  return context.prompt.trim() === "" ? { exitCode: 0 } : { history };
}
