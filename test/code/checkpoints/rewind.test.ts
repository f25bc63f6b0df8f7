import { existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RewindConflictError } from "../../../src/code/index.js";
import { FakeModel } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { checkpointAgent, checkpointWorkspace, readText } from "./checkpoint-fixtures.js";

const bash = (command: string, id: string) => reply("", toolCall("Bash", { command }, id));

describe("checkpoints: what each tool changed can be undone", () => {
  it("Write, Edit and Bash (sed -i, rm, a generator's new files) are all restored by a rewind of the code", async () => {
    const where = checkpointWorkspace({ "a.txt": "alpha\n", "b.txt": "beta\n", "gone.txt": "keep me\n", "src/app.js": "let x = 1;\n" });
    const model = new FakeModel([
      reply("", toolCall("Read", { file_path: "a.txt" }, "r1")),
      reply("", toolCall("Edit", { file_path: "a.txt", old_string: "alpha", new_string: "ALPHA" }, "e1")),
      reply("", toolCall("Write", { file_path: "new.txt", content: "fresh\n" }, "w1")),
      "Done with the files.",
      bash("sed -i 's/beta/BETA/' b.txt && rm gone.txt && mkdir -p gen && for i in 1 2 3; do echo $i > gen/$i.txt; done", "b1"),
      bash("chmod +x src/app.js && (sh -c 'echo child >> src/app.js' &) ; sleep 0.2", "b2"),
      "Done with the shell.",
    ]);
    const agent = await checkpointAgent(model, where);
    const first = await agent.run("Edit a and write new.");
    const second = await agent.run("Now the shell part.", { history: first.messages });
    expect(second.status).toBe("completed");
    expect(readText(where.root, "b.txt")).toBe("BETA\n");
    expect(readText(where.root, "src/app.js")).toBe("let x = 1;\nchild\n");

    const [one, two] = agent.checkpoints?.checkpoints ?? [];
    expect(one?.changes.map((change) => [change.path.slice(where.root.length + 1), change.by])).toEqual([
      ["a.txt", "Edit"],
      ["new.txt", "Write"],
    ]);
    expect(new Set(two?.changes.map((change) => change.path.slice(where.root.length + 1)))).toEqual(
      new Set(["b.txt", "gone.txt", "gen/1.txt", "gen/2.txt", "gen/3.txt", "src/app.js"]),
    );
    expect(two?.changes.every((change) => change.by === "Bash")).toBe(true);

    // Undo the second prompt only: the first's changes stay.
    const outcome = await agent.rewind(2);
    expect(readText(where.root, "b.txt")).toBe("beta\n");
    expect(readText(where.root, "gone.txt")).toBe("keep me\n");
    expect(existsSync(join(where.root, "gen/1.txt"))).toBe(false);
    expect(readText(where.root, "src/app.js")).toBe("let x = 1;\n");
    expect(statSync(join(where.root, "src/app.js")).mode & 0o111).toBe(0);
    expect(readText(where.root, "a.txt")).toBe("ALPHA\n");
    expect(outcome.conflicts).toEqual([]);

    // Then everything: the project is as it was.
    await agent.rewind(1);
    expect(readText(where.root, "a.txt")).toBe("alpha\n");
    expect(existsSync(join(where.root, "new.txt"))).toBe(false);

    // A rewind is undone like a prompt: rewind to before it.
    const rewinds = agent.checkpoints?.checkpoints.filter((checkpoint) => checkpoint.kind === "rewind") ?? [];
    expect(rewinds.map((checkpoint) => checkpoint.number)).toEqual([3, 4]);
    await agent.rewind(3);
    expect(readText(where.root, "b.txt")).toBe("BETA\n");
    expect(readText(where.root, "a.txt")).toBe("ALPHA\n");
    expect(existsSync(join(where.root, "gen/3.txt"))).toBe(true);
    await agent.close();
  });

  it("the conversation alone, the code alone, or both", async () => {
    const where = checkpointWorkspace({ "a.txt": "one\n" });
    const model = new FakeModel([
      reply("", toolCall("Write", { file_path: "b.txt", content: "two\n" }, "w1")),
      "First done.",
      reply("", toolCall("Write", { file_path: "c.txt", content: "three\n" }, "w2")),
      "Second done.",
    ]);
    const agent = await checkpointAgent(model, where);
    const first = await agent.run("first");
    const second = await agent.run("second", { history: first.messages });

    const conversationOnly = await agent.rewind(2, { code: false, conversation: second.messages });
    expect(conversationOnly.history).toEqual(first.messages);
    expect(existsSync(join(where.root, "c.txt"))).toBe(true);

    const codeOnly = await agent.rewind(2);
    expect(codeOnly.history).toBeUndefined();
    expect(existsSync(join(where.root, "c.txt"))).toBe(false);
    expect(existsSync(join(where.root, "b.txt"))).toBe(true);

    const both = await agent.rewind(1, { conversation: first.messages });
    expect(both.history).toEqual([]);
    expect(existsSync(join(where.root, "b.txt"))).toBe(false);

    // Undoing the conversation rewind brings the dropped conversation back (from this process's memory).
    const undo = await agent.rewind(conversationOnly.checkpoint.id, { code: false, conversation: [] });
    expect(undo.history).toEqual(second.messages);
    await agent.close();
  });

  it("a file changed by hand after the agent's turn is never overwritten in silence", async () => {
    const where = checkpointWorkspace({ "a.txt": "original\n", "b.txt": "b\n" });
    const model = new FakeModel([
      reply("", toolCall("Read", { file_path: "a.txt" }, "r1"), toolCall("Read", { file_path: "b.txt" }, "r2")),
      reply(
        "",
        toolCall("Write", { file_path: "a.txt", content: "agent\n" }, "w1"),
        toolCall("Write", { file_path: "b.txt", content: "agent b\n" }, "w2"),
      ),
      "Done.",
    ]);
    const agent = await checkpointAgent(model, where);
    await agent.run("change them");
    expect(readText(where.root, "a.txt")).toBe("agent\n");
    writeFileSync(join(where.root, "a.txt"), "person's edit\n");

    const plan = await agent.checkpoints?.planRewind(1);
    expect(plan?.conflicts.map((conflict) => [conflict.path.slice(where.root.length + 1), conflict.reason])).toEqual([
      ["a.txt", "changed"],
    ]);
    const refused = await agent.rewind(1).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RewindConflictError);
    expect((refused as Error).message).toContain("a.txt");
    expect(readText(where.root, "a.txt")).toBe("person's edit\n");
    expect(readText(where.root, "b.txt")).toBe("agent b\n"); // refused: nothing changed

    const kept = await agent.rewind(1, { onConflict: "keep" });
    expect(kept.conflicts.map((conflict) => conflict.reason)).toEqual(["changed"]);
    expect(readText(where.root, "a.txt")).toBe("person's edit\n");
    expect(readText(where.root, "b.txt")).toBe("b\n");

    await agent.rewind(1, { onConflict: "overwrite" });
    expect(readText(where.root, "a.txt")).toBe("original\n");
    await agent.close();
  });
});
