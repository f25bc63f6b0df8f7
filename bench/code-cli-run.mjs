// One measured run of a client (code-cli-clients.mjs, code-cli-codex.mjs) on the three-turn task, in a fresh project
// folder and HOME, against the scripted server of its wire (Anthropic's Messages API, code-cli-server.mjs, or OpenAI's
// Responses API, code-cli-responses-server.mjs): wall time from spawn to exit, peak resident memory (GNU time's %M,
// the process's ru_maxrss; without /usr/bin/time, VmHWM polled from /proc), each request's bytes and parts, and what
// the run wrote under its HOME.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { functionCallOutputs, outputText, startResponsesServer } from "./code-cli-responses-server.mjs";
import { startScriptedServer } from "./code-cli-server.mjs";

const gnuTime = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
export const memorySource = gnuTime ? "GNU time %M (ru_maxrss)" : "VmHWM polled every 5 ms";
const limitMs = 60_000;

/** A fresh project folder (a notes.txt to read) and HOME; `close` removes both. */
export function openWorkspace() {
  const project = mkdtempSync(join(tmpdir(), "code-cli-bench-project-"));
  const home = mkdtempSync(join(tmpdir(), "code-cli-bench-home-"));
  writeFileSync(join(project, "notes.txt"), "The answer is 42.\n");
  writeFileSync(join(project, "README.md"), "# sample\n");
  return {
    project,
    home,
    close: () => {
      rmSync(project, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * The environment of a client: only what it needs (no credentials of this machine, no settings). On OpenAI's wire
 * the base URL carries the API's /v1, as the SDK's default (https://api.openai.com/v1) does.
 * @param {"anthropic" | "responses"} [wire]
 */
export function baseEnv(home, serverUrl, wire = "anthropic") {
  const base = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TERM: "dumb" };
  if (wire === "responses") return { ...base, OPENAI_BASE_URL: `${serverUrl}/v1`, OPENAI_API_KEY: "any" };
  return { ...base, ANTHROPIC_BASE_URL: serverUrl, ANTHROPIC_API_KEY: "any" };
}

/**
 * Spawns `command args` in `cwd` (its own process group, killed after a minute) and measures it.
 * @returns {Promise<{ exit: number | null, wallMs: number, peakBytes: number | undefined, stdout: string, stderr: string, startedAt: number }>}
 */
export async function measureProcess(command, args, { cwd, env }) {
  const memoryFile = gnuTime ? join(env.HOME, "..", `${env.HOME.split("/").pop()}.time`) : undefined;
  const [file, argv] = gnuTime ? [gnuTime, ["-f", "%M", "-o", memoryFile, command, ...args]] : [command, args];
  const startedAt = performance.now();
  const child = spawn(file, argv, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  let polledKb; // VmHWM and GNU time's %M count KiB
  const poll = gnuTime
    ? undefined
    : setInterval(() => {
        const match = /VmHWM:\s+(\d+) kB/.exec(readStatus(child.pid));
        if (match) polledKb = Math.max(polledKb ?? 0, Number(match[1]));
      }, 5);
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  }, limitMs);
  const exit = await new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve(code));
  });
  const wallMs = performance.now() - startedAt;
  clearTimeout(timer);
  if (poll) clearInterval(poll);
  let peakKb = polledKb;
  if (memoryFile) {
    const lines = readFileSync(memoryFile, "utf8").trim().split("\n");
    peakKb = Number(lines.at(-1));
    rmSync(memoryFile, { force: true });
  }
  return { exit, wallMs, peakBytes: peakKb === undefined ? undefined : peakKb * 1024, stdout, stderr, startedAt };
}

function readStatus(pid) {
  try {
    return readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return "";
  }
}

/**
 * The parts of a request body, in bytes of its JSON on the wire. On the Responses wire the system prompt is
 * `instructions` plus the developer (or system) items that open `input`: Codex sends its prompt as such items, not
 * as `instructions`; `messages` is then the rest of `input`.
 */
export function requestParts(request) {
  const bytes = (value) => (value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value)));
  const body = request.body ?? {};
  if (Array.isArray(body.input)) {
    const opening = body.input.findIndex((item) => !(item?.type === "message" && (item.role === "developer" || item.role === "system")));
    const split = opening === -1 ? body.input.length : opening;
    const system = bytes(body.instructions) + (split === 0 ? 0 : bytes(body.input.slice(0, split)));
    return {
      bytes: request.bytes,
      tools: bytes(body.tools),
      toolCount: body.tools?.length ?? 0,
      system,
      messages: bytes(body.input.slice(split)),
    };
  }
  return {
    bytes: request.bytes,
    tools: bytes(body.tools),
    toolCount: body.tools?.length ?? 0,
    system: bytes(body.system),
    messages: bytes(body.messages),
  };
}

/** Files under `folder` (recursively) with their sizes. */
export function filesUnder(folder) {
  if (!existsSync(folder)) return [];
  const files = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    const info = statSync(path);
    if (info.isDirectory()) files.push(...filesUnder(path));
    else files.push({ path, bytes: info.size });
  }
  return files;
}

/**
 * One run of the three-turn task by `client`, verified: the answer came back after the listing, the file's reading
 * (Bash and Read; Codex's shell twice) and the answer. A client may `prepare` its HOME (Codex's config.toml names the
 * server) and say how its answer is printed (`finalAnswer`; else the last line of stdout is a JSON result).
 * @param {import("./code-cli-clients.mjs").Client} client
 */
export async function runTask(client) {
  const workspace = openWorkspace();
  const answer = "notes.txt says: The answer is 42.";
  const wire = client.wire ?? "anthropic";
  const script = { command: "ls", filePath: join(workspace.project, "notes.txt"), answer };
  const server = wire === "responses" ? await startResponsesServer(script) : await startScriptedServer(script);
  let cleanUp;
  try {
    const prepared = client.prepare?.(workspace, server.url) ?? {};
    cleanUp = prepared.close;
    const measured = await measureProcess(client.command, client.args(), {
      cwd: workspace.project,
      env: client.env({ ...baseEnv(workspace.home, server.url, wire), ...prepared.env }),
    });
    const turns = server.requests.filter((request) => request.agentTurn);
    const printed = client.finalAnswer ? client.finalAnswer(measured.stdout) : parseResult(measured.stdout)?.result;
    // The tools really ran: the model's second turn saw the listing, its third the file.
    const [listing, file] = turns
      .slice(1)
      .map((turn) => (wire === "responses" ? outputText(functionCallOutputs(turn.body).at(-1)) : lastToolResult(turn.body)));
    const problem =
      measured.exit !== 0
        ? `exit ${measured.exit}: ${measured.stderr.trim().slice(0, 500) || measured.stdout.trim().slice(0, 500)}`
        : printed !== answer
          ? `unexpected result: ${measured.stdout.trim().slice(0, 500)}`
          : turns.length !== 3
            ? `${turns.length} model turns instead of 3`
            : !listing?.includes("notes.txt") || !file?.includes("The answer is 42.")
              ? `the tools did not run as asked: the listing gave ${JSON.stringify(listing)}, the reading ${JSON.stringify(file)}`
              : undefined;
    if (problem) throw new Error(`${client.name}: ${problem}`);
    const sessionFiles = filesUnder(join(workspace.home, client.sessionFolder)).filter((file) => file.path.endsWith(".jsonl"));
    return {
      model: turns[0].body.model,
      wallMs: measured.wallMs,
      peakBytes: measured.peakBytes,
      // When each model turn's request arrived, from spawn.
      turnMs: turns.map((turn) => turn.startedAt - measured.startedAt),
      turns: turns.map(requestParts),
      otherRequests: server.requests
        .filter((request) => !request.agentTurn)
        .map((request) => ({ path: request.path, bytes: request.bytes })),
      sessionBytes: sessionFiles.reduce((sum, file) => sum + file.bytes, 0),
      sessionFiles: sessionFiles.length,
      homeBytes: filesUnder(workspace.home).reduce((sum, file) => sum + file.bytes, 0),
    };
  } finally {
    await server.close();
    cleanUp?.();
    workspace.close();
  }
}

/** The text of the last tool result in a request's messages. */
function lastToolResult(body) {
  const blocks = (body?.messages ?? []).flatMap((message) => (Array.isArray(message.content) ? message.content : []));
  const result = blocks.filter((block) => block.type === "tool_result").at(-1);
  if (result === undefined) return undefined;
  if (typeof result.content === "string") return result.content;
  return (result.content ?? []).map((part) => part.text ?? "").join("");
}

function parseResult(stdout) {
  try {
    return JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
  } catch {
    return undefined;
  }
}
