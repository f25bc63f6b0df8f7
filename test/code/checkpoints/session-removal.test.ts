import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Checkpoints, JsonLinesSessionStore, pruneCheckpointStore } from "../../../src/code/index.js";
import { checkpointWorkspace, writeText } from "./checkpoint-fixtures.js";

const blobCount = (store: string) =>
  readdirSync(join(store, "blobs")).reduce((count, folder) => count + readdirSync(join(store, "blobs", folder)).length, 0);

describe("deleting a session frees its checkpoints", () => {
  it("the session store's remove deletes its log; the next prune frees the contents only it kept", async () => {
    const where = checkpointWorkspace({ "a.txt": "shared\n" });
    const data = join(where.store, "..", "data");
    const sessions = new JsonLinesSessionStore({ directory: data });
    const ids = [globalThis.crypto.randomUUID(), globalThis.crypto.randomUUID()];
    for (const [index, sessionId] of ids.entries()) {
      sessions.append(sessionId, [{ type: "session", version: 1, sessionId, cwd: where.root, createdAt: new Date().toISOString() }]);
      const checkpoints = await Checkpoints.open({ directory: join(data, "checkpoints"), sessionId, roots: [where.root] });
      checkpoints.beginPrompt(`prompt of ${index}`, []);
      await checkpoints.trackFileChange(join(where.root, "a.txt"), "Write", async () =>
        writeText(join(where.root, "a.txt"), `only session ${index} wrote this\n`),
      );
      await checkpoints.trackFileChange(join(where.root, "a.txt"), "Write", async () => writeText(join(where.root, "a.txt"), "shared\n"));
    }
    const store = join(data, "checkpoints");
    const before = blobCount(store);
    expect(await sessions.remove(ids[0] as string)).toBe(true);
    expect(existsSync(join(store, "sessions", `${ids[0]}.jsonl`))).toBe(false);
    const pruned = await pruneCheckpointStore(store, { sessionExists: (id) => id === ids[1] });
    expect(pruned.freedBytes).toBeGreaterThan(0);
    expect(blobCount(store)).toBe(before - 1);
    // The other session's checkpoints still restore.
    const other = await Checkpoints.open({ directory: store, sessionId: ids[1] as string, roots: [where.root] });
    expect(other.checkpoints).toHaveLength(1);
    expect((await other.planRewind(1)).files).toEqual([]);
  });
});
