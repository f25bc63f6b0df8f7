import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FakeModel } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { checkpointAgent, checkpointWorkspace, readText } from "./checkpoint-fixtures.js";

describe("checkpoints of a subagent's work", () => {
  it("the files a subagent changes (Write, Bash) are recorded under the parent's prompt and rewound with it", async () => {
    const where = checkpointWorkspace({ "a.txt": "a\n" });
    // One model for both: the subagent runs on the parent's (no model in its type).
    const model = new FakeModel([
      reply("", toolCall("Agent", { description: "delegate", prompt: "Write b, change a.", subagent_type: "general-purpose" }, "agent-1")),
      reply("", toolCall("Write", { file_path: "b.txt", content: "b\n" }, "w1")),
      reply("", toolCall("Bash", { command: "echo by the subagent > a.txt" }, "b1")),
      "Subagent done.",
      "Parent done.",
    ]);
    const home = join(where.store, "..", "home");
    const agent = await checkpointAgent(model, where, {
      subagents: {},
      home,
      userDirectory: join(home, ".minagent"),
      claudeDirectory: false,
    });
    const result = await agent.run("Delegate it.");
    expect(result.final).toBe("Parent done.");
    expect(readText(where.root, "a.txt")).toBe("by the subagent\n");

    const list = agent.checkpoints?.checkpoints ?? [];
    expect(list.map((checkpoint) => checkpoint.prompt)).toEqual(["Delegate it."]);
    expect(list[0]?.changes.map((change) => [change.path.slice(where.root.length + 1), change.by])).toEqual([
      ["b.txt", "Write"],
      ["a.txt", "Bash"],
    ]);
    await agent.rewind(1);
    await agent.close();
    expect(readText(where.root, "a.txt")).toBe("a\n");
    expect(existsSync(join(where.root, "b.txt"))).toBe(false);
  });
});
