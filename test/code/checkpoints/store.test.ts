import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Checkpoints } from "../../../src/code/index.js";
import { FakeModel } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { checkpointAgent, checkpointWorkspace, readText } from "./checkpoint-fixtures.js";

const bash = (command: string, id: string) => reply("", toolCall("Bash", { command }, id));

/** The blobs in a store: one file per content. */
function blobsIn(store: string): string[] {
  const folder = join(store, "blobs");
  return readdirSync(folder).flatMap((prefix) => readdirSync(join(folder, prefix)));
}

const open = (where: { root: string; store: string }, options: { maxFileBytes?: number } = {}) =>
  Checkpoints.open({ directory: where.store, sessionId: globalThis.crypto.randomUUID(), roots: [where.root], ...options });

describe("the checkpoint store", () => {
  it("restores binary files byte for byte, NULs and invalid UTF-8 included", async () => {
    const where = checkpointWorkspace();
    const original = Buffer.from([0, 1, 2, 0xff, 0xfe, 0, 0x80, 10, 13, 0, 0xc3]);
    writeFileSync(join(where.root, "data.bin"), original);
    const checkpoints = await open(where);
    checkpoints.beginPrompt("change the binary", []);
    await checkpoints.trackCommand("Bash", async () => {
      writeFileSync(join(where.root, "data.bin"), Buffer.from([0, 0, 0, 0xff]));
      writeFileSync(join(where.root, "new.bin"), Buffer.alloc(4096, 0));
    });
    await checkpoints.rewind(1);
    expect(readFileSync(join(where.root, "data.bin")).equals(original)).toBe(true);
    expect(readdirSync(where.root)).toEqual(["data.bin"]);
  });

  it("a binary file a shell command writes through the agent is restored byte for byte", async () => {
    const where = checkpointWorkspace();
    const original = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0xff]);
    writeFileSync(join(where.root, "image.png"), original);
    const agent = await checkpointAgent(new FakeModel([bash("printf '\\000\\377\\000' > image.png", "b1"), "Done."]), where);
    await agent.run("Overwrite it.");
    expect(readFileSync(join(where.root, "image.png"))).toEqual(Buffer.from([0, 0xff, 0]));
    await agent.rewind(1);
    await agent.close();
    expect(readFileSync(join(where.root, "image.png")).equals(original)).toBe(true);
  });

  it("a file over maxFileBytes changed by a command is listed, not restorable: a not-stored conflict, left as it is", async () => {
    const where = checkpointWorkspace({ "big.txt": "x".repeat(200), "small.txt": "small\n" });
    const agent = await checkpointAgent(new FakeModel([bash("echo more >> big.txt; echo changed > small.txt", "b1"), "Done."]), where, {
      checkpoints: { directory: where.store, maxFileBytes: 100 },
    });
    await agent.run("Change both.");
    const changes = agent.checkpoints?.checkpoints[0]?.changes ?? [];
    const big = changes.find((change) => change.path.endsWith("big.txt"));
    expect(big?.before).toMatchObject({ size: 200, stored: false, hash: undefined });
    expect(big?.after).toMatchObject({ size: 205, stored: false });

    const plan = await agent.checkpoints?.planRewind(1);
    expect(plan?.conflicts.map((conflict) => [conflict.path.slice(where.root.length + 1), conflict.reason])).toEqual([
      ["big.txt", "not-stored"],
    ]);
    // Not a "changed" conflict: the default policy (refuse) goes ahead, restores what it can and says what it left.
    const outcome = await agent.rewind(1);
    await agent.close();
    expect(outcome.conflicts.map((conflict) => conflict.reason)).toEqual(["not-stored"]);
    expect(outcome.conflicts[0]?.description).toContain("over the size cap");
    expect(readText(where.root, "small.txt")).toBe("small\n");
    expect(readText(where.root, "big.txt")).toBe(`${"x".repeat(200)}more\n`);
  });

  it("keeps a content once however many files and checkpoints hold it", async () => {
    const where = checkpointWorkspace({ "a.txt": "first\n" });
    const model = new FakeModel([
      bash("echo same > b.txt; echo same > c.txt; mkdir sub; echo same > sub/d.txt", "b1"),
      "One.",
      bash("echo same > e.txt; echo first > f.txt", "b2"),
      reply("", toolCall("Write", { file_path: "g.txt", content: "same\n" }, "w1")),
      "Two.",
    ]);
    const agent = await checkpointAgent(model, where);
    const first = await agent.run("one");
    await agent.run("two", { history: first.messages });
    expect(agent.checkpoints?.checkpoints.flatMap((checkpoint) => checkpoint.changes)).toHaveLength(6);
    // "first\n" and "same\n": two contents, two blobs.
    expect(blobsIn(where.store)).toHaveLength(2);
    await agent.rewind(1);
    await agent.close();
    // Files are restored; the folder the command made stays, empty (folders are not tracked).
    expect(readdirSync(where.root, { recursive: true }).sort()).toEqual(["a.txt", "sub"]);
    expect(blobsIn(where.store)).toHaveLength(2);
  });
});
