import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { CodingAgent } from "../../src/code/index.js";
import { FakeModel } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

let base: string, root: string, user: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "proto-"));
  root = join(base, "p");
  user = join(base, "u");
  mkdirSync(join(root, "src"), { recursive: true });
  mkdirSync(join(user, "agents"), { recursive: true });
  writeFileSync(join(root, "AGENTS.md"), "Use tabs.");
  writeFileSync(join(root, "src", "a.js"), "const add = 1;\n");
  writeFileSync(join(user, "agents", "w.md"), "---\nname: writer\ndescription: writes\ntools: Write, Read\n---\nWrite files.");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

it("default mode: Explore starts without asking; a writer's Write asks the person through askPerson; memory in both prompts", async () => {
  const model = new FakeModel([
    reply(
      "",
      toolCall("Agent", { description: "find", prompt: "where is add", subagent_type: "Explore" }, "a1"),
      toolCall("Agent", { description: "find2", prompt: "where is add 2", subagent_type: "Explore" }, "a2"),
    ),
    reply("", toolCall("Grep", { pattern: "add" }, "g")),
    "add in src/a.js",
    "add in src/a.js (2)",
    reply("", toolCall("Agent", { description: "write", prompt: "write b.txt", subagent_type: "writer" }, "a3")),
    reply("", toolCall("Write", { file_path: "b.txt", content: "b" }, "w")),
    "wrote b.txt",
    "All done.",
  ]);
  const asked: string[] = [];
  const agent = await CodingAgent.create(model, {
    workspace: root,
    settingsFiles: [],
    userDirectory: user,
    askPerson: ({ toolCall, reason }) => {
      asked.push(`${toolCall.name}: ${reason}`);
      return { behavior: "allow" };
    },
  });
  expect(agent.subagents?.subagents().map((s) => `${s.name} ${s.tools.join(",")} ${s.readOnly}`)).toEqual([
    "general-purpose Read,Write,Edit,NotebookEdit,Glob,Grep,Bash,TodoWrite,WebFetch,WebSearch,Agent false",
    "Explore Read,Grep,Glob,Bash true",
    "writer Write,Read false",
  ]);
  const result = await agent.run("Find add, then write b.");
  expect(result.final).toBe("All done.");
  expect(model.requests[0]?.messages[0]?.content).toContain(`## ${join(root, "AGENTS.md")}\n\nUse tabs.`);
  expect(model.requests[1]?.messages[0]?.content).toContain("Use tabs.");
  expect(readFileSync(join(root, "b.txt"), "utf8")).toBe("b");
  expect(asked).toEqual([expect.stringMatching(/^Write: /)]);
  expect(agent.memory.files.map((f) => f.path)).toEqual([join(root, "AGENTS.md")]);
});

it("plan mode: Explore runs, general-purpose is refused", async () => {
  const model = new FakeModel([
    reply("", toolCall("Agent", { description: "gp", prompt: "x" }, "a1")),
    reply("", toolCall("Agent", { description: "ex", prompt: "x", subagent_type: "Explore" }, "a2")),
    "explored",
    "done",
  ]);
  const agent = await CodingAgent.create(model, { workspace: root, settingsFiles: [], userDirectory: user, mode: "plan" });
  const result = await agent.run("Plan.");
  expect(result.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
    expect.stringMatching(/^Permission denied: the tool `Agent` can change things, which plan mode does not allow\./),
    "explored",
  ]);
  expect(result.final).toBe("done");
});
