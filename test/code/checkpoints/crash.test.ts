import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Checkpoints, hashContent, logFile } from "../../../src/code/checkpoints/index.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";
import { buildPrivately, type PrivateBuild } from "../helpers/private-build.js";

const child = fileURLToPath(new URL("./crash/checkpoint-child.mjs", import.meta.url));
/** Files in the workspace: every command's scans walk them all. */
const files = 3000;
const prompts = 400;

let privateBuild: PrivateBuild;
beforeAll(() => {
  privateBuild = buildPrivately(["code/checkpoints/index.ts"], "checkpoints-crash");
});
afterAll(() => privateBuild?.remove());

/** What each file was before the session: `files/f<n>.txt` and `files/d<n>.txt` exist, `new/` does not. */
function originalContent(relative: string): string | undefined {
  const match = /^files\/([fd])(\d+)\.txt$/.exec(relative);
  return match ? `${match[1]} ${match[2]}\n` : undefined;
}

function makeWorkspace(): { root: string; store: string; progress: string } {
  const base = temporaryFolder("minagent-checkpoints-crash-");
  const root = join(base, "project");
  mkdirSync(join(root, "files"), { recursive: true });
  for (let index = 0; index < files - prompts; index++) writeFileSync(join(root, "files", `f${index}.txt`), `f ${index}\n`);
  for (let index = 0; index < prompts; index++) writeFileSync(join(root, "files", `d${index}.txt`), `d ${index}\n`);
  return { root, store: join(base, "store"), progress: join(base, "progress") };
}

/** When to kill: `delay` ms after the child has announced `line` ("opened": its checkpoints; "prompt <i>": a prompt's command). */
type KillPlan = { line: string; delay: number };

/** Runs the child and kills it (SIGKILL, by pid) as planned. */
function runAndKill(where: { root: string; store: string; progress: string }, sessionId: string, plan: KillPlan): Promise<string[]> {
  const announced = () => (existsSync(where.progress) ? readFileSync(where.progress, "utf8").split("\n").slice(0, -1) : []);
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, [child], {
      env: {
        PATH: process.env.PATH ?? "",
        MINAGENT_BUILD: privateBuild.build,
        WORKSPACE: where.root,
        STORE: where.store,
        SESSION_ID: sessionId,
        PROMPTS: String(prompts),
        PROGRESS_FILE: where.progress,
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const pid = process_.pid as number;
    let stderr = "";
    let timer: NodeJS.Timeout | undefined;
    const kill = () => process.kill(pid, "SIGKILL");
    const guard = setTimeout(kill, 60_000);
    const watch = setInterval(() => {
      if (timer === undefined && announced().includes(plan.line)) timer = setTimeout(kill, plan.delay);
    }, 1);
    process_.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    process_.on("error", reject);
    process_.on("close", (code, signal) => {
      clearTimeout(guard);
      clearTimeout(timer);
      clearInterval(watch);
      if (signal !== "SIGKILL") reject(new Error(`the child ended before the kill (${code}): ${stderr}`));
      else resolve(announced());
    });
  });
}

/** Every blob the log refers to exists; every blob stored (temporary files aside) holds the content its name is the hash of. */
function checkBlobs(store: string, checkpoints: Checkpoints): void {
  const folder = join(store, "blobs");
  const stored = readdirSync(folder).flatMap((prefix) => readdirSync(join(folder, prefix)).filter((name) => !name.endsWith(".tmp")));
  expect(stored.length).toBeGreaterThan(0);
  for (const hash of stored) expect(hashContent(gunzipSync(readFileSync(join(folder, hash.slice(0, 2), hash))))).toBe(hash);
  const names = new Set(stored);
  for (const checkpoint of checkpoints.checkpoints)
    for (const change of checkpoint.changes)
      for (const state of [change.before, change.after]) if (state?.hash !== undefined) expect(names.has(state.hash)).toBe(true);
}

describe("checkpoints: a process killed with SIGKILL mid-checkpoint", () => {
  // During the first scan (every file read and stored), then during later prompts at a few offsets.
  it.each<KillPlan>([
    { line: "opened", delay: 300 },
    { line: "prompt 2", delay: 0 },
    { line: "prompt 6", delay: 23 },
    { line: "prompt 12", delay: 57 },
  ])("killed $delay ms after $line: the store opens, its blobs are whole, and a rewind undoes what it recorded", async (plan) => {
    const where = makeWorkspace();
    const sessionId = globalThis.crypto.randomUUID();
    const announced = await runAndKill(where, sessionId, plan);
    const done = announced.filter((line) => line.startsWith("prompt ")).length;
    expect(announced).not.toContain("finished");

    const checkpoints = await Checkpoints.open({ directory: where.store, sessionId, roots: [where.root] });
    const list = checkpoints.checkpoints;
    // Every prompt whose command returned is there with all its changes (the command's and nothing else: 8 files).
    expect(list.length).toBeGreaterThanOrEqual(done);
    for (const checkpoint of list.slice(0, done)) expect(checkpoint.changes, checkpoint.prompt).toHaveLength(8);
    expect(list.map((checkpoint) => checkpoint.prompt)).toEqual(list.map((_, index) => `prompt ${index}`));
    checkBlobs(where.store, checkpoints);
    expect(readdirSync(join(where.store, "sessions"))).toEqual([`${sessionId}.jsonl`]);

    // A rewind to the first undoes every change recorded (the files the killed command changed without a record
    // are its alone: no prompt changes a file another did). No conflict: the reopened session takes its log's last
    // records over the manifest the killed process never saved, so its own changes are not taken for someone else's.
    const recorded = new Set(list.flatMap((checkpoint) => checkpoint.changes.map((change) => change.path)));
    const outcome = await checkpoints.rewind(1);
    expect(outcome.conflicts).toEqual([]);
    for (const path of recorded) {
      const original = originalContent(path.slice(where.root.length + 1));
      if (original === undefined) expect(existsSync(path), path).toBe(false);
      else expect(readFileSync(path, "utf8"), path).toBe(original);
    }
    // The rewind is in the log: a new look at it finds it, and could undo it.
    const reopened = await Checkpoints.open({ directory: where.store, sessionId, roots: [where.root] });
    expect(reopened.checkpoints.at(-1)?.kind).toBe("rewind");
    expect(reopened.checkpoints.at(-1)?.changes).toHaveLength(outcome.restored.length);
    expect(existsSync(logFile(where.store, sessionId))).toBe(true);
  });
});
