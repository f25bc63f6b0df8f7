// Resuming a long session: `minagent code -p "…" --resume <id>` on a session file of 10,000 messages, timed from
// spawn to the first model request reaching the scripted server (its headers, and its whole body). The file starts
// as a real one (header, permission mode, system prompt: what a run of the task writes), and goes on with 2,500
// generated prompts, each answered by a Bash call, its result and an answer, in the documented format (docs/sessions.md).
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

/** The lines of a session of `cycles` × (prompt, Bash call, result, answer) after `opening` (header, mode, system). */
function longSession(opening) {
  const lines = [...opening];
  const at = (index) => new Date(Date.UTC(2026, 10, 1) + index * 1000).toISOString();
  for (let cycle = 0; cycle < cycles; cycle += 1) {
    const id = `toolu_${String(cycle).padStart(6, "0")}`;
    const call = { id, name: "Bash", arguments: { command: `grep -n "case ${cycle}" src/parser.js`, description: "Find the case" } };
    const output = `${cycle * 7}:    case ${cycle}: return parse${cycle % 13}(token, state); // handles the ${cycle}th token kind\n\nExit code: 0`;
    const answer = `Case ${cycle} is handled on line ${cycle * 7} of src/parser.js by parse${cycle % 13}, which reads one token and updates the state.`;
    const usage = { inputTokens: 2400 + cycle * 150, outputTokens: 60 };
    lines.push(
      { type: "message", message: { role: "user", content: `Where is case ${cycle} of the parser handled?` }, at: at(cycle) },
      {
        type: "message",
        message: {
          role: "assistant",
          content: "",
          toolCalls: [call],
          providerMetadata: { anthropic: { content: [{ type: "tool_use", id, name: "Bash", input: call.arguments }] } },
        },
        at: at(cycle),
        usage,
      },
      { type: "message", message: { role: "tool", content: output, toolCallId: id }, event: "tool-call-end", at: at(cycle) },
      {
        type: "message",
        message: { role: "assistant", content: answer, providerMetadata: { anthropic: { content: [{ type: "text", text: answer }] } } },
        at: at(cycle),
        usage,
      },
      { type: "run-end", status: "completed", at: at(cycle) },
    );
  }
  return `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
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
    // Anthropic's format folds each tool result into a user message: prompt, call, result, answer are four messages.
    if (sent.length < resumedMessages)
      throw new Error(`the resumed request carried ${sent.length} messages, fewer than the session's ${resumedMessages}`);
    return { samples, fileBytes: Buffer.byteLength(text), requestBytes: firstRequest.bytes, requestMessages: sent.length };
  } finally {
    workspace.close();
  }
}
