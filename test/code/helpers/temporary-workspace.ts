import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Workspace } from "../../../src/code/workspace.js";

/** A fresh temporary folder `base` holding the workspace `root` (`base/work`) and a folder beside it, `outside`. */
export type TemporaryWorkspace = { base: string; root: string; outside: string; workspace: Workspace };

/**
 * Creates a temporary workspace whose folder name starts with `minagent-<name>-`. Paths are real paths (macOS
 * links /tmp elsewhere), so that tests can compare them with what the tools report. `removeTemporaryWorkspace` deletes it.
 */
export async function createTemporaryWorkspace(name: string): Promise<TemporaryWorkspace> {
  const base = await realpath(await mkdtemp(join(tmpdir(), `minagent-${name}-`)));
  const root = join(base, "work");
  const outside = join(base, "outside");
  await mkdir(root);
  await mkdir(outside);
  return { base, root, outside, workspace: new Workspace({ root }) };
}

export function removeTemporaryWorkspace(base: string): Promise<void> {
  return rm(base, { recursive: true, force: true });
}
