import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FakeModel } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { checkpointAgent, checkpointWorkspace, readText, writeText } from "./checkpoint-fixtures.js";

describe("checkpoints of added directories (--add-dir)", () => {
  it("a shell command's and a Write's changes in an additional directory are recorded and restored", async () => {
    const where = checkpointWorkspace({ "main.txt": "main\n" });
    const other = join(where.root, "..", "other");
    mkdirSync(other);
    writeText(join(other, "lib.txt"), "lib\n");
    const model = new FakeModel([
      reply(
        "",
        toolCall("Bash", { command: `echo changed > ${other}/lib.txt; echo new > ${other}/made.txt; echo main2 > main.txt` }, "b1"),
      ),
      reply("", toolCall("Write", { file_path: join(other, "written.txt"), content: "written\n" }, "w1")),
      "Done.",
    ]);
    const agent = await checkpointAgent(model, where, { additionalDirectories: [other] });
    await agent.run("Change both folders.");
    expect(readText(other, "lib.txt")).toBe("changed\n");
    const changed = agent.checkpoints?.checkpoints[0]?.changes.map((change) => [change.path, change.by]);
    expect(changed).toEqual([
      // A scan's changes come sorted by path.
      [join(other, "lib.txt"), "Bash"],
      [join(other, "made.txt"), "Bash"],
      [join(where.root, "main.txt"), "Bash"],
      [join(other, "written.txt"), "Write"],
    ]);
    await agent.rewind(1);
    await agent.close();
    expect(readText(other, "lib.txt")).toBe("lib\n");
    expect(existsSync(join(other, "made.txt"))).toBe(false);
    expect(existsSync(join(other, "written.txt"))).toBe(false);
    expect(readText(where.root, "main.txt")).toBe("main\n");
  });
});
