import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CodingAgent, type CodingAgentOptions } from "../../../src/code/index.js";
import type { FakeModel } from "../../../src/index.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

/** A project folder with some files, and a store beside it (never inside: the store must not be in what it tracks). */
export function checkpointWorkspace(files: Record<string, string> = {}): { root: string; store: string } {
  const base = temporaryFolder("minagent-checkpoints-");
  const root = join(base, "project");
  mkdirSync(root);
  for (const [path, content] of Object.entries(files)) writeText(join(root, path), content);
  return { root, store: join(base, "store") };
}

export function writeText(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

export function readText(root: string, path: string): string {
  return readFileSync(join(root, path), "utf8");
}

/** A coding agent that may do anything (bypassPermissions), with checkpoints in `store`, on a scripted model. */
export async function checkpointAgent(
  model: FakeModel,
  where: { root: string; store: string },
  options: Partial<CodingAgentOptions> = {},
): Promise<CodingAgent> {
  return CodingAgent.create(model, {
    workspace: where.root,
    settingsFiles: [],
    mode: "bypassPermissions",
    sandbox: { enabled: false },
    memory: false,
    subagents: false,
    compaction: false,
    checkpoints: { directory: where.store },
    sessionId: globalThis.crypto.randomUUID(),
    ...options,
  });
}

/** Everything about a git repository a tool must leave alone: status, refs, stash, the index file's bytes. */
export function gitFingerprint(root: string): Record<string, string> {
  const git = (...args: string[]) => execFileSync("git", ["-C", root, ...args], { encoding: "utf8" });
  // The index is read first: `git status` refreshes its stat data for files whose times changed.
  const index = readFileSync(join(root, ".git", "index")).toString("base64");
  return {
    status: git("status", "--porcelain=v2", "--untracked-files=all", "--ignored"),
    refs: git("for-each-ref"),
    stash: git("stash", "list"),
    index,
    objects: git("count-objects", "-v"),
  };
}
