import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FakeModel } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { checkpointAgent, checkpointWorkspace, readText, writeText } from "./checkpoint-fixtures.js";

const bash = (command: string, id: string) => reply("", toolCall("Bash", { command }, id));
const relativePaths = (root: string, changes: readonly { path: string }[] | undefined) =>
  (changes ?? []).map((change) => change.path.slice(root.length + 1)).sort();

/** One Bash command changing a tracked file, node_modules/, a gitignored file and a folder `exclude` may name. */
const shellChanges = () =>
  new FakeModel([
    bash(
      "echo changed > kept.txt; echo changed > node_modules/pkg/index.js; echo changed > build/out.js; echo changed > generated/data.txt",
      "b1",
    ),
    "Done.",
  ]);

const project = () =>
  checkpointWorkspace({
    ".gitignore": "build/\n",
    "kept.txt": "kept\n",
    "node_modules/pkg/index.js": "module\n",
    "build/out.js": "built\n",
    "generated/data.txt": "data\n",
  });

describe("checkpoints: what is left out", () => {
  it("a shell command's changes in node_modules/ and gitignored paths are not recorded, nor restored", async () => {
    const where = project();
    const agent = await checkpointAgent(shellChanges(), where);
    await agent.run("Change things.");
    expect(relativePaths(where.root, agent.checkpoints?.checkpoints[0]?.changes)).toEqual(["generated/data.txt", "kept.txt"]);
    await agent.rewind(1);
    await agent.close();
    expect(readText(where.root, "kept.txt")).toBe("kept\n");
    expect(readText(where.root, "generated/data.txt")).toBe("data\n");
    expect(readText(where.root, "node_modules/pkg/index.js")).toBe("changed\n");
    expect(readText(where.root, "build/out.js")).toBe("changed\n");
  });

  it("a Write to a gitignored file is recorded and restored: the tool named it", async () => {
    const where = project();
    const model = new FakeModel([
      reply("", toolCall("Read", { file_path: "build/out.js" }, "r1")),
      reply("", toolCall("Write", { file_path: "build/out.js", content: "written\n" }, "w1")),
      reply("", toolCall("Write", { file_path: "node_modules/pkg/new.js", content: "new\n" }, "w2")),
      "Done.",
    ]);
    const agent = await checkpointAgent(model, where);
    await agent.run("Write them.");
    expect(relativePaths(where.root, agent.checkpoints?.checkpoints[0]?.changes)).toEqual(["build/out.js", "node_modules/pkg/new.js"]);
    await agent.rewind(1);
    await agent.close();
    expect(readText(where.root, "build/out.js")).toBe("built\n");
    expect(existsSync(join(where.root, "node_modules/pkg/new.js"))).toBe(false);
  });

  it("the checkpoints option's exclude leaves a folder out; gitignore: false tracks gitignored files", async () => {
    const where = project();
    const agent = await checkpointAgent(shellChanges(), where, {
      checkpoints: { directory: where.store, exclude: ["generated/"], gitignore: false },
    });
    await agent.run("Change things.");
    expect(relativePaths(where.root, agent.checkpoints?.checkpoints[0]?.changes)).toEqual(["build/out.js", "kept.txt"]);
    await agent.rewind(1);
    await agent.close();
    expect(readText(where.root, "build/out.js")).toBe("built\n");
    expect(readText(where.root, "generated/data.txt")).toBe("changed\n");
  });

  it("a settings file's checkpoints.exclude and gitignore do the same; a wrong value is a warning, its default stands", async () => {
    const where = project();
    const settings = join(where.store, "..", "settings.json");
    writeFileSync(settings, JSON.stringify({ checkpoints: { exclude: ["generated/"], gitignore: false, maxFiles: "many" } }));
    const agent = await checkpointAgent(shellChanges(), where, { settingsFiles: [settings] });
    expect(agent.warnings).toEqual([`${settings}: "checkpoints.maxFiles" must be a whole number above 0, not "many"; the default stands.`]);
    await agent.run("Change things.");
    expect(relativePaths(where.root, agent.checkpoints?.checkpoints[0]?.changes)).toEqual(["build/out.js", "kept.txt"]);
    await agent.close();
  });

  it("settings warnings: checkpoints not an object, an unknown key; enabled: false keeps none", async () => {
    const where = project();
    const settings = join(where.store, "..", "settings.json");
    writeText(settings, JSON.stringify({ checkpoints: ["generated/"] }));
    const notObject = await checkpointAgent(new FakeModel(["Done."]), where, { settingsFiles: [settings] });
    expect(notObject.warnings).toEqual([`${settings}: "checkpoints" must be an object like {"enabled": true}; the defaults stand.`]);
    expect(notObject.checkpoints).toBeDefined();
    await notObject.close();

    writeText(settings, JSON.stringify({ checkpoints: { enabled: false, excludes: ["x"] } }));
    const disabled = await checkpointAgent(new FakeModel(["Done."]), where, { settingsFiles: [settings] });
    expect(disabled.warnings).toHaveLength(1);
    expect(disabled.warnings[0]).toContain('"checkpoints.excludes" is not a checkpoint setting');
    expect(disabled.checkpoints).toBeUndefined();
    await disabled.close();
  });

  it("a workspace over maxFiles gets no command scans, and a note says so; Write and Edit are still recorded", async () => {
    const where = project();
    const notes: string[] = [];
    const model = new FakeModel([
      bash("echo changed > kept.txt", "b1"),
      reply("", toolCall("Write", { file_path: "written.txt", content: "written\n" }, "w1")),
      "Done.",
    ]);
    const agent = await checkpointAgent(model, where, {
      checkpoints: { directory: where.store, maxFiles: 2, onNote: (note) => notes.push(note) },
    });
    await agent.run("Change things.");
    expect(notes).toEqual([
      "Shell commands' changes are not checkpointed: the workspace has more than 2 files (checkpoints.maxFiles). Write and Edit are.",
    ]);
    expect(agent.checkpoints?.coverageNote).toBe(notes[0]);
    expect(relativePaths(where.root, agent.checkpoints?.checkpoints[0]?.changes)).toEqual(["written.txt"]);
    await agent.rewind(1);
    await agent.close();
    expect(existsSync(join(where.root, "written.txt"))).toBe(false);
    expect(readText(where.root, "kept.txt")).toBe("changed\n");
  });
});
