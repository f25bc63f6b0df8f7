import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { pruneSessions } from "../../../src/code/sessions/index.js";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "minagent-prune-"));
});
afterEach(() => rm(directory, { recursive: true, force: true }));

const day = 24 * 60 * 60 * 1000;
async function session(folder: string, id: string, ageDays: number): Promise<string> {
  const file = join(directory, "projects", folder, `${id}.jsonl`);
  await mkdir(join(directory, "projects", folder), { recursive: true });
  await writeFile(file, "{}\n");
  const when = new Date(Date.now() - ageDays * day);
  await utimes(file, when, when);
  return file;
}

it("deletes the session files of every project last written longer ago than the period, and keeps the rest", async () => {
  const old = await session("-work-a", "old", 40);
  const recent = await session("-work-a", "recent", 2);
  const otherOld = await session("-work-b", "other-old", 31);
  const live = await session("-work-b", "live", 90);
  await mkdir(join(directory, "session-locks"), { recursive: true });
  await writeFile(join(directory, "session-locks", "live.lock"), "12345");
  await writeFile(join(directory, "projects", "-work-a", "notes.txt"), "not a session");
  expect((await pruneSessions(directory, 30)).sort()).toEqual([old, otherOld].sort());
  expect(existsSync(recent)).toBe(true);
  // A session another process holds is kept, whatever its age.
  expect(existsSync(live)).toBe(true);
  expect(existsSync(join(directory, "projects", "-work-a", "notes.txt"))).toBe(true);
});

it("does nothing without sessions", async () => {
  expect(await pruneSessions(join(directory, "missing"), 30)).toEqual([]);
});
