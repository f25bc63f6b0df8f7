// Resuming a long session: `minagent code -p "…" --resume <id>` on a session file of 10,000 messages, timed from
// spawn to the first model request reaching the scripted server (its headers, and its whole body). The file starts
// as a real one (header, permission mode, system prompt: what a run of the task writes), and goes on with 2,500
// generated prompts, each answered by a Bash call, its result and an answer, in the documented format (docs/sessions.md).
// Their recorded usage grows as a real session's does, and where a real run would have compacted (at 80 % of the
// model's 200k window) the file has a `compaction` line of the shape minagent writes: the state, a summary, the
// person's prompts verbatim, and the last turns. So the resumed request is what it would be after a real session.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { minagentClient } from "./code-cli-clients.mjs";
import { baseEnv, filesUnder, measureProcess, openWorkspace } from "./code-cli-run.mjs";
import { startScriptedServer } from "./code-cli-server.mjs";
import { minagentRoot } from "./minagent-root.mjs";

const { projectFolderName } = await import(
  pathToFileURL(join(minagentRoot, "dist", "code", "sessions", "json-lines-session-store.js")).href
);

export const cycles = 2500;
export const resumedMessages = cycles * 4;

/** Input tokens a request of the generated session holds: its opening, then this many per cycle. */
const openingTokens = 2400;
const tokensPerCycle = 150;
/** Where minagent compacts: 80 % of a 200k window (create-compactor.ts's default threshold). */
const compactAt = 160_000;
/** The turns a compaction keeps after the summary. */
const keptCycles = 20;

/**
 * The lines of a session of `cycles` × (prompt, Bash call, result, answer) after `opening` (header, mode, system),
 * with a `compaction` line wherever the recorded context reached `compactAt`.
 */
function longSession(opening) {
  const lines = [...opening];
  const at = (index) => new Date(Date.UTC(2026, 10, 1) + index * 1000).toISOString();
  const prompts = [];
  let recent = [];
  let context = openingTokens;
  for (let cycle = 0; cycle < cycles; cycle += 1) {
    if (context + tokensPerCycle >= compactAt) {
      lines.push({ type: "compaction", reason: "prepare-turn", keep: 1, messages: compacted(prompts, recent), at: at(cycle) });
      context = openingTokens + prompts.length * 12 + keptCycles * tokensPerCycle;
    }
    const id = `toolu_${String(cycle).padStart(6, "0")}`;
    const call = { id, name: "Bash", arguments: { command: `grep -n "case ${cycle}" src/parser.js`, description: "Find the case" } };
    const output = `${cycle * 7}:    case ${cycle}: return parse${cycle % 13}(token, state); // handles the ${cycle}th token kind\n\nExit code: 0`;
    const answer = `Case ${cycle} is handled on line ${cycle * 7} of src/parser.js by parse${cycle % 13}, which reads one token and updates the state.`;
    context += tokensPerCycle;
    const usage = { inputTokens: context, outputTokens: 60 };
    const messages = [
      { role: "user", content: `Where is case ${cycle} of the parser handled?` },
      {
        role: "assistant",
        content: "",
        toolCalls: [call],
        providerMetadata: { anthropic: { content: [{ type: "tool_use", id, name: "Bash", input: call.arguments }] } },
      },
      { role: "tool", content: output, toolCallId: id },
      { role: "assistant", content: answer, providerMetadata: { anthropic: { content: [{ type: "text", text: answer }] } } },
    ];
    prompts.push(messages[0]);
    recent = [...recent, ...messages].slice(-keptCycles * 4);
    lines.push(
      { type: "message", message: messages[0], at: at(cycle) },
      { type: "message", message: messages[1], at: at(cycle), usage },
      { type: "message", message: messages[2], event: "tool-call-end", at: at(cycle) },
      { type: "message", message: messages[3], at: at(cycle), usage },
      { type: "run-end", status: "completed", at: at(cycle) },
    );
  }
  return `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
}

/** What minagent's compaction leaves after the system prompt: the state, a summary, every prompt, the last turns. */
function compacted(prompts, recent) {
  const state =
    "<compaction-state>\nThe conversation was compacted to fit the context window.\n\nPermissions:\nPermission mode: default\n</compaction-state>";
  const summary = `<compaction-summary>\nSummary of the earlier conversation: the person asked where ${prompts.length} parser cases are handled; each was found with grep.\n</compaction-summary>`;
  const older = prompts.slice(0, prompts.length - keptCycles);
  return [{ role: "user", content: state }, { role: "user", content: summary }, ...older, ...recent];
}

/** A real session's opening lines: one run of minagent code -p in `project`, its header, mode and system prompt. */
async function realOpening(client, workspace) {
  const server = await startScriptedServer({ command: "ls", filePath: join(workspace.project, "notes.txt"), answer: "Done." });
  try {
    const run = await measureProcess(client.command, client.args(), { cwd: workspace.project, env: baseEnv(workspace.home, server.url) });
    if (run.exit !== 0) throw new Error(`minagent code -p failed (exit ${run.exit}): ${run.stderr.slice(0, 500)}`);
  } finally {
    await server.close();
  }
  const [file] = filesUnder(join(workspace.home, client.sessionFolder)).filter((found) => found.path.endsWith(".jsonl"));
  const lines = readFileSync(file.path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const system = lines.find((line) => line.type === "message" && line.message.role === "system");
  return [lines[0], ...lines.filter((line) => line.type === "permission-mode").slice(0, 1), system];
}

/**
 * Median over `rounds` (after one warm-up) of the time from spawn to the first request of `minagent code -p --resume`
 * on a 10,000-message session, each round on a fresh copy of the file.
 */
export async function measureResume(rounds, model) {
  const client = minagentClient(model);
  const workspace = openWorkspace();
  try {
    const opening = await realOpening(client, workspace);
    const sessionId = opening[0].sessionId;
    const text = longSession(opening);
    const file = join(workspace.home, client.sessionFolder, projectFolderName(workspace.project), `${sessionId}.jsonl`);
    const samples = [];
    let firstRequest;
    for (let round = -1; round < rounds; round += 1) {
      mkdirSync(join(file, ".."), { recursive: true });
      writeFileSync(file, text, { mode: 0o600 });
      const server = await startScriptedServer({ command: "ls", filePath: join(workspace.project, "notes.txt"), answer: "Done." });
      try {
        const args = client.args({ prompt: "And case 2500?", extra: ["--resume", sessionId] });
        const run = await measureProcess(client.command, args, { cwd: workspace.project, env: baseEnv(workspace.home, server.url) });
        const [first] = server.requests.filter((request) => request.agentTurn);
        if (run.exit !== 0 || !first) throw new Error(`the resumed run failed (exit ${run.exit}): ${run.stderr.slice(0, 500)}`);
        firstRequest = first;
        if (round >= 0)
          samples.push({
            headersMs: first.startedAt - run.startedAt,
            bodyMs: first.receivedAt - run.startedAt,
            wallMs: run.wallMs,
            peakBytes: run.peakBytes,
          });
      } finally {
        await server.close();
      }
    }
    const sent = firstRequest.body.messages;
    // The resumed run must have sent the conversation as the file's last compaction left it, not compacted again.
    const expected = expectedRequestMessages(text);
    if (sent.length !== expected)
      throw new Error(`the resumed request carried ${sent.length} messages, not the ${expected} the session's end holds`);
    const compactions = text.split("\n").filter((line) => line.startsWith('{"type":"compaction"')).length;
    return { samples, fileBytes: Buffer.byteLength(text), requestBytes: firstRequest.bytes, requestMessages: sent.length, compactions };
  } finally {
    workspace.close();
  }
}

/**
 * The messages of the request a resume sends on Anthropic's wire: those after the file's last compaction, with its
 * kept start (the system prompt, sent beside the messages) left out; consecutive user messages are one message there,
 * and so are a tool result and the next prompt.
 */
function expectedRequestMessages(text) {
  const lines = text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const last = lines.findLastIndex((line) => line.type === "compaction");
  const after = lines
    .slice(last + 1)
    .filter((line) => line.type === "message")
    .map((line) => line.message);
  const messages = [...lines[last].messages, ...after, { role: "user", content: "And case 2500?" }];
  let count = 0;
  let previous;
  for (const message of messages) {
    const side = message.role === "assistant" ? "assistant" : "user";
    if (side !== previous) count += 1;
    previous = side;
  }
  return count;
}
