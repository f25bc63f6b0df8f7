import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A temporary folder for hook scripts and what they write; `remove()` deletes it. */
export async function makeScriptFolder() {
  const dir = await mkdtemp(join(tmpdir(), "minagent-hooks-"));
  return {
    dir,
    /** Writes an executable sh script and returns the command that runs it. */
    async script(name: string, body: string): Promise<string> {
      const path = join(dir, name);
      await writeFile(path, `#!/bin/sh\n${body}\n`);
      await chmod(path, 0o755);
      return JSON.stringify(path);
    },
    read: (name: string) => readFile(join(dir, name), "utf8"),
    path: (name: string) => join(dir, name),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** True while `pid` is a live process (a zombie awaiting its reaper counts as dead). */
export async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  return stat === undefined ? true : !/^\d+ \(.*\) Z/.test(stat);
}

/** Waits until `check` holds, up to `ms`; returns whether it did. */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 3_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}
