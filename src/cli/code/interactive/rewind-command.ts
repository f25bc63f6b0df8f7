import { type Checkpoint, type Checkpoints, RewindConflictError, summarizeChanges, unifiedDiff } from "../../../code/checkpoints/index.js";
import type { CodingAgent } from "../../../code/coding-agent.js";
import type { Message } from "../../../engine.js";
import { UsageError } from "../../../errors.js";
import { describeCheckpoint, describeFileCounts, describeFiles, displayPath, listCheckpoints } from "../describe-checkpoints.js";
import type { CodeSession } from "../session-context.js";
import { chooseOne } from "./choice-list.js";
import { formatAge } from "./format-age.js";
import type { Style, Terminal } from "./terminal.js";
import { flattenText, truncateToWidth } from "./text-width.js";

/** What `/rewind` works on: the agent and its checkpoints, the terminal, the session and its conversation. */
export type RewindContext = {
  agent: CodingAgent;
  terminal: Terminal;
  session: CodeSession;
  /** The conversation now (the next run's history). */
  history: readonly Message[];
  print(text: string): void;
};

/** What a rewind changed for the session: its conversation from now on, and the text to put on the prompt line. */
export type RewindResult = { history: readonly Message[]; prefill: string | undefined };

const disabledNote =
  'Checkpoints are off for this session ("checkpoints": {"enabled": false} in a settings file): there is nothing to rewind.';

type Scope = "both" | "conversation" | "code";

/**
 * `/rewind [n]` and Esc Esc: the session's checkpoints to choose from (newest first), what to restore, a question
 * about files changed after the agent's last change, then the rewind and its summary. Undefined when nothing
 * changed (cancelled, refused, nothing to rewind).
 */
export async function rewindInteractively(context: RewindContext, args: string): Promise<RewindResult | undefined> {
  const { agent, terminal, print } = context;
  const { style } = terminal;
  const checkpoints = agent.checkpoints;
  if (!checkpoints) return void print(style.dim(disabledNote));
  if (checkpoints.checkpoints.length === 0)
    return void print(style.dim("No checkpoints yet: one is made before each prompt, and /rewind goes back to before it."));
  const target = args ? findCheckpoint(checkpoints, args, print, style) : await chooseCheckpoint(checkpoints, terminal);
  if (target === "cancelled") return void print(style.dim("Rewind cancelled."));
  if (!target) return undefined;
  const scope = await chooseOne(terminal, {
    title: [
      style.bold(`Rewind to before #${target.number} (${truncateToWidth(describeCheckpoint(target, checkpoints.checkpoints), 60)}):`),
    ],
    choices: [
      { label: "Code and conversation", value: "both" as const },
      { label: "Conversation only", value: "conversation" as const },
      { label: "Code only", value: "code" as const },
      { label: "Cancel", value: "cancel" as const },
    ],
    footer: "↑↓ Enter, or the number · Esc: cancel",
  });
  if ("cancelled" in scope || scope.value === "cancel") return void print(style.dim("Rewind cancelled."));
  return rewindTo(context, target, scope.value);
}

function findCheckpoint(checkpoints: Checkpoints, args: string, print: (text: string) => void, style: Style): Checkpoint | undefined {
  try {
    return checkpoints.find(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    print(style.yellow(error.message));
    return undefined;
  }
}

async function chooseCheckpoint(checkpoints: Checkpoints, terminal: Terminal): Promise<Checkpoint | "cancelled"> {
  const { style } = terminal;
  const listings = (await listCheckpoints(checkpoints)).reverse();
  // The list must fit on the screen: the older ones are there by number (`/rewind 3`).
  const room = Math.max(3, terminal.rows - 6);
  const shown = listings.slice(0, room);
  const width = Math.max(20, terminal.columns - 8);
  const outcome = await chooseOne(terminal, {
    title: [style.bold("Rewind to before which prompt? (the files and the conversation as they were then)")],
    choices: shown.map((listing) => ({
      label: truncateToWidth(
        `#${listing.checkpoint.number}  ${formatAge(listing.checkpoint.at)}  ${describeFileCounts(listing)}  ${flattenText(describeCheckpoint(listing.checkpoint, checkpoints.checkpoints))}`,
        width,
      ),
      value: listing.checkpoint,
    })),
    footer: `↑↓ Enter${shown.length < listings.length ? `, or /rewind <n> for an older one (${listings.length - shown.length} more)` : ""} · Esc: cancel`,
  });
  return "cancelled" in outcome ? "cancelled" : outcome.value;
}

async function rewindTo(context: RewindContext, target: Checkpoint, scope: Scope): Promise<RewindResult | undefined> {
  const { agent, terminal, session, print } = context;
  const { style } = terminal;
  const checkpoints = agent.checkpoints as Checkpoints;
  const root = agent.workspace.root;
  const code = scope !== "conversation";
  const conversation = scope !== "code";
  let onConflict: "refuse" | "keep" | "overwrite" = "refuse";
  if (code) {
    const plan = await checkpoints.planRewind(target.id);
    const notStored = plan.conflicts.filter((conflict) => conflict.reason === "not-stored");
    for (const conflict of notStored) print(style.dim(`Not restorable: ${conflict.description.replaceAll(`${root}/`, "")}`));
    const changed = plan.conflicts.filter((conflict) => conflict.reason === "changed");
    if (changed.length > 0) {
      const answer = await chooseOne(terminal, {
        title: [
          style.bold(`${changed.length === 1 ? "A file was" : `${changed.length} files were`} changed after the agent's last change:`),
          ...changed.map((conflict) => `  ${truncateToWidth(conflict.description.replaceAll(`${root}/`, ""), terminal.columns - 3)}`),
        ],
        choices: [
          { label: "Keep my versions of these files", value: "keep" as const },
          { label: "Overwrite them", value: "overwrite" as const },
          { label: "Cancel", value: "cancel" as const },
        ],
        footer: "↑↓ Enter, or the number · Esc: cancel",
      });
      if ("cancelled" in answer || answer.value === "cancel") return void print(style.dim("Rewind cancelled: nothing was changed."));
      onConflict = answer.value;
      if (onConflict === "keep")
        print(style.dim(`Kept as they are: ${changed.map((conflict) => displayPath(conflict.path, root)).join(", ")}`));
    }
  }
  let outcome: Awaited<ReturnType<CodingAgent["rewind"]>>;
  try {
    outcome = await agent.rewind(target.id, {
      code,
      conversation: conversation ? context.history : undefined,
      onConflict,
      conversationBefore: (id) => session.conversationBefore(id),
    });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const again = error instanceof RewindConflictError ? " (a file changed meanwhile: /rewind again)" : "";
    print(style.yellow(`${error.message.replaceAll(`${root}/`, "")}${again}`));
    return undefined;
  }
  const history = outcome.history ?? context.history;
  if (conversation) session.rewindConversation(history, outcome.checkpoint.id);
  const what = scope === "both" ? "the code and the conversation" : scope === "code" ? "the code" : "the conversation";
  const lines = [style.bold(`Rewound ${what} to before #${outcome.target.number}.`)];
  if (code) {
    const contentOf = (state: Parameters<Checkpoints["content"]>[0]) => checkpoints.content(state).catch(() => undefined);
    const files = describeFiles(await summarizeChanges([outcome.checkpoint], contentOf), root);
    lines.push(
      files.length === 0
        ? style.dim("  No file needed restoring.")
        : `  ${files.length === 1 ? "1 file" : `${files.length} files`} restored:`,
    );
    lines.push(...files.map((file) => `    ${file}`));
  }
  lines.push(style.dim(`Undo: /rewind and choose #${outcome.checkpoint.number}`));
  print(lines.join("\n"));
  return { history, prefill: conversation ? promptOf(outcome.target, context.history, history.length) : undefined };
}

/**
 * The text of the prompt a checkpoint stands before: the whole message when the conversation still holds it (the
 * checkpoint keeps only its first line), else that line.
 */
function promptOf(target: Checkpoint, before: readonly Message[], index: number): string | undefined {
  if (target.kind !== "prompt" || !target.prompt) return undefined;
  // The first prompt's checkpoint was made before the system prompt joined the conversation.
  const message = before.slice(index).find((candidate) => candidate.role !== "system");
  const firstLine = (message?.content.split("\n").find((line) => line.trim() !== "") ?? "").trim().slice(0, 200);
  return message?.role === "user" && firstLine === target.prompt ? message.content : target.prompt;
}

/**
 * `/diff [n]`: what the session changed, as a unified diff colored for the terminal (every checkpoint's net change,
 * or checkpoint n's alone), paths relative to the workspace.
 */
export async function diffText(agent: CodingAgent, style: Style, args: string): Promise<string> {
  const checkpoints = agent.checkpoints;
  if (!checkpoints) return style.dim(disabledNote.replace("there is nothing to rewind", "there is no diff to show"));
  let range: readonly Checkpoint[] = checkpoints.checkpoints;
  if (args) {
    try {
      range = [checkpoints.find(args)];
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      return style.yellow(error.message);
    }
  }
  const contentOf = (state: Parameters<Checkpoints["content"]>[0]) => checkpoints.content(state).catch(() => undefined);
  const summaries = await summarizeChanges(range, contentOf);
  if (summaries.length === 0)
    return style.dim(args ? `No file changes after checkpoint #${range[0]?.number}.` : "No file changes in this session yet.");
  const root = agent.workspace.root;
  const diff = await unifiedDiff(summaries, contentOf, (path) => displayPath(path, root));
  return diff
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => colorDiffLine(line, style))
    .join("\n");
}

function colorDiffLine(line: string, style: Style): string {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("Index: ")) return style.bold(line);
  if (line.startsWith("+")) return style.green(line);
  if (line.startsWith("-")) return style.red(line);
  if (line.startsWith("@@") || line.startsWith("\\")) return style.dim(line);
  return line;
}
