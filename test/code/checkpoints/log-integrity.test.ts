import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { Checkpoints, logFile } from "../../../src/code/checkpoints/index.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

function setup() {
  const base = temporaryFolder("minagent-checkpoint-log-");
  const root = join(base, "project");
  mkdirSync(root);
  writeFileSync(join(root, "a.txt"), "a\n");
  return { root, options: { directory: join(base, "store"), sessionId: "s1", roots: [root] } };
}

it("torn last line then more appends", async () => {
  const { root, options } = setup();
  const first = await Checkpoints.open(options);
  first.beginPrompt("one", []);
  await first.trackCommand("Bash", async () => writeFileSync(join(root, "a.txt"), "changed\n"));
  await first.flush();
  appendFileSync(logFile(options.directory, "s1"), '{"type":"change","checkpoint":"cp_x","pa');
  const second = await Checkpoints.open(options);
  second.beginPrompt("two", []);
  await second.trackCommand("Bash", async () => writeFileSync(join(root, "b.txt"), "b\n"));
  const third = await Checkpoints.open(options);
  expect(third.checkpoints.map((c) => [c.prompt, c.changes.length])).toEqual([
    ["one", 1],
    ["two", 1],
  ]);
});

it("a prune while a command's scan is in flight keeps the command's changes in the log", async () => {
  const { root, options } = setup();
  const checkpoints = await Checkpoints.open({ ...options, maxCheckpoints: 1 });
  checkpoints.beginPrompt("one", []);
  let ran: () => void = () => {};
  const runDone = new Promise<void>((resolve) => {
    ran = resolve;
  });
  const command = checkpoints.trackCommand("Bash", async () => {
    writeFileSync(join(root, "c.txt"), "c\n");
    ran();
  });
  await runDone;
  for (let i = 0; i < 5; i++) await Promise.resolve();
  checkpoints.beginPrompt("two", []);
  await command;
  await checkpoints.flush();
  const reopened = await Checkpoints.open(options);
  expect(reopened.checkpoints.map((c) => [c.prompt, c.changes.length])).toEqual(
    checkpoints.checkpoints.map((c) => [c.prompt, c.changes.length]),
  );
});

it("two sessions in one workspace: the one that closes last leaves a manifest stale for the other's files", async () => {
  const { root, options } = setup();
  const a = await Checkpoints.open({ ...options, sessionId: "A" });
  const b = await Checkpoints.open({ ...options, sessionId: "B" });
  b.beginPrompt("b", []);
  await b.trackCommand("Bash", async () => writeFileSync(join(root, "b.txt"), "b\n"));
  a.beginPrompt("a", []);
  await a.trackFileChange(join(root, "a.txt"), "Write", async () => writeFileSync(join(root, "a.txt"), "by A\n"));
  await a.flush();
  await b.flush();
  const resumed = await Checkpoints.open({ ...options, sessionId: "A" });
  expect((await resumed.planRewind(1)).conflicts).toEqual([]);
});

it("a session reopened without a flush (a crash) rewinds its own changes without conflicts", async () => {
  const base = temporaryFolder("minagent-checkpoint-log-");
  const root = join(base, "project");
  mkdirSync(root);
  writeFileSync(join(root, "a.txt"), "a\n");
  const options = { directory: join(base, "store"), sessionId: "s1", roots: [root] };
  const first = await Checkpoints.open(options);
  first.beginPrompt("one", []);
  await first.trackCommand("Bash", async () => writeFileSync(join(root, "a.txt"), "changed\n"));
  // no flush(): the process was killed
  const second = await Checkpoints.open(options);
  const plan = await second.planRewind(1);
  expect(plan.conflicts).toEqual([]);
});
