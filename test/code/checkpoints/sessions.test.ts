import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Checkpoints, hashContent, logFile, pruneCheckpointStore } from "../../../src/code/checkpoints/index.js";
import { FakeModel } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { checkpointAgent, checkpointWorkspace, readText } from "./checkpoint-fixtures.js";

const write = (file_path: string, content: string, id: string) => reply("", toolCall("Write", { file_path, content }, id));
const blobExists = (store: string, content: string) => {
  const hash = hashContent(Buffer.from(content));
  return existsSync(join(store, "blobs", hash.slice(0, 2), hash));
};

describe("checkpoints across sessions", () => {
  it("a resumed session (same id, same store, a new agent) lists the first agent's checkpoints and rewinds them", async () => {
    const where = checkpointWorkspace({ "a.txt": "a\n" });
    const sessionId = globalThis.crypto.randomUUID();
    const first = await checkpointAgent(
      new FakeModel([write("b.txt", "b\n", "w1"), "One.", reply("", toolCall("Bash", { command: "rm a.txt" }, "b1")), "Two."]),
      where,
      { sessionId },
    );
    const one = await first.run("one");
    await first.run("two", { history: one.messages });
    const listed = first.checkpoints?.checkpoints.map((checkpoint) => [checkpoint.id, checkpoint.prompt]);
    await first.close();

    const resumed = await checkpointAgent(new FakeModel([write("c.txt", "c\n", "w2"), "Three."]), where, { sessionId });
    expect(resumed.checkpoints?.checkpoints.map((checkpoint) => [checkpoint.id, checkpoint.prompt])).toEqual(listed);
    await resumed.run("three", { history: one.messages });
    expect(resumed.checkpoints?.checkpoints.map((checkpoint) => checkpoint.number)).toEqual([1, 2, 3]);
    const outcome = await resumed.rewind(2);
    expect(outcome.conflicts).toEqual([]);
    expect(readText(where.root, "a.txt")).toBe("a\n");
    expect(existsSync(join(where.root, "c.txt"))).toBe(false);
    expect(readText(where.root, "b.txt")).toBe("b\n");
    await resumed.rewind(1);
    await resumed.close();
    expect(readdirSync(where.root)).toEqual(["a.txt"]);
  });

  it("a fork starts with its parent's checkpoints; its rewinds never change the parent's log, nor files the parent changed since", async () => {
    const where = checkpointWorkspace({ "shared.txt": "start\n" });
    const parentId = globalThis.crypto.randomUUID();
    const parent = await checkpointAgent(
      new FakeModel([
        reply("", toolCall("Read", { file_path: "shared.txt" }, "r1")),
        write("shared.txt", "parent 1\n", "w1"),
        "One.",
        write("shared.txt", "parent 2\n", "w2"),
        "Two.",
      ]),
      where,
      { sessionId: parentId },
    );
    const one = await parent.run("parent's first");
    await parent.checkpoints?.flush();

    const fork = await checkpointAgent(new FakeModel([write("fork.txt", "fork\n", "w3"), "Fork's."]), where, {
      sessionId: globalThis.crypto.randomUUID(),
      checkpoints: { directory: where.store, forkedFrom: parentId },
    });
    expect(fork.checkpoints?.checkpoints.map((checkpoint) => checkpoint.id)).toEqual(
      parent.checkpoints?.checkpoints.map((checkpoint) => checkpoint.id),
    );
    // Both go on after the fork: the parent changes shared.txt again, the fork writes its own file.
    await parent.run("parent's second", { history: one.messages });
    await fork.run("fork's first", { history: one.messages });
    const parentLog = readFileSync(logFile(where.store, parentId), "utf8");

    // The fork's own change is undone; shared.txt, which the parent changed after the fork, is a conflict.
    const refused = await fork.rewind(1).catch((error: unknown) => error);
    expect((refused as Error).message).toContain("shared.txt");
    const kept = await fork.rewind(1, { onConflict: "keep" });
    expect(kept.conflicts.map((conflict) => [conflict.path.slice(where.root.length + 1), conflict.reason])).toEqual([
      ["shared.txt", "changed"],
    ]);
    expect(existsSync(join(where.root, "fork.txt"))).toBe(false);
    expect(readText(where.root, "shared.txt")).toBe("parent 2\n");
    await fork.close();
    expect(readFileSync(logFile(where.store, parentId), "utf8")).toBe(parentLog);
    expect(parent.checkpoints?.checkpoints).toHaveLength(2);
    await parent.close();
  });

  it("maxCheckpoints keeps the last N, and a note (once a session) names the first pruned", async () => {
    const where = checkpointWorkspace();
    const notes: string[] = [];
    const sessionId = globalThis.crypto.randomUUID();
    const agent = await checkpointAgent(
      new FakeModel(["1", "2", write("three.txt", "3\n", "w3"), "3", write("four.txt", "4\n", "w4"), "4"]),
      where,
      { sessionId, checkpoints: { directory: where.store, maxCheckpoints: 2, onNote: (note) => notes.push(note) } },
    );
    for (const prompt of ["one", "two", "three", "four"]) await agent.run(prompt);
    expect(agent.checkpoints?.checkpoints.map((checkpoint) => [checkpoint.number, checkpoint.prompt])).toEqual([
      [3, "three"],
      [4, "four"],
    ]);
    expect(notes).toEqual([
      "Checkpoint 1 pruned: a session keeps its last 2 (checkpoints.maxCheckpoints); older ones go as new ones come.",
    ]);
    expect(() => agent.checkpoints?.find(1)).toThrow(/checkpoints up to 2 were pruned/);
    await agent.close();

    // The log on disk says the same, changes included, and the pruned store is marked for a sweep.
    const reopened = await Checkpoints.open({ directory: where.store, sessionId, roots: [where.root] });
    expect(reopened.checkpoints.map((checkpoint) => [checkpoint.number, checkpoint.changes.length])).toEqual([
      [3, 1],
      [4, 1],
    ]);
    expect(existsSync(join(where.store, "sweep-due"))).toBe(true);
    await reopened.rewind(3);
    expect(readdirSync(where.root)).toEqual([]);
  });

  it("pruneCheckpointStore frees a gone session's log and the contents only it held; another's and the manifest's stay", async () => {
    const where = checkpointWorkspace();
    const gone = globalThis.crypto.randomUUID();
    const kept = globalThis.crypto.randomUUID();
    const first = await checkpointAgent(
      new FakeModel([write("a.txt", "only the gone session\n", "w1"), "One.", write("a.txt", "a now\n", "w2"), "Two."]),
      where,
      { sessionId: gone },
    );
    await first.run("one");
    await first.run("two");
    await first.close();
    const second = await checkpointAgent(
      new FakeModel([write("b.txt", "only the kept session\n", "w3"), "One.", write("b.txt", "b now\n", "w4"), "Two."]),
      where,
      { sessionId: kept },
    );
    await second.run("one");
    await second.run("two");
    await second.close();
    const contents = ["only the gone session\n", "a now\n", "only the kept session\n", "b now\n"];
    expect(contents.map((content) => blobExists(where.store, content))).toEqual([true, true, true, true]);

    const pruned = await pruneCheckpointStore(where.store, { sessionExists: (id) => id === kept });
    expect(pruned.deletedSessions).toEqual([gone]);
    expect(pruned.freedBytes).toBeGreaterThan(0);
    expect(existsSync(logFile(where.store, gone))).toBe(false);
    expect(existsSync(logFile(where.store, kept))).toBe(true);
    // a.txt's content now is the workspace manifest's: it stays.
    expect(contents.map((content) => blobExists(where.store, content))).toEqual([false, true, true, true]);

    // The kept session still rewinds, from its blobs.
    const reopened = await Checkpoints.open({ directory: where.store, sessionId: kept, roots: [where.root] });
    await reopened.rewind(2);
    expect(readText(where.root, "b.txt")).toBe("only the kept session\n");
  });
});
