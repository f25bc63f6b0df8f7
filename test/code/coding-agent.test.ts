import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CodingAgent } from "../../src/code/index.js";
import { FakeModel } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

const sample = new URL("../../examples/fix-failing-test/project/", import.meta.url);
let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "minagent-coding-agent-"));
  cpSync(sample, project, { recursive: true });
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

const npmTest = (id: string) => reply("", toolCall("Bash", { command: "npm test" }, id));
const toolMessages = (messages: readonly { role: string; content: string; toolCallId?: string }[]) =>
  messages.filter((message) => message.role === "tool");

describe("CodingAgent", () => {
  it("fixes a failing test in a sample project: real tools, real permissions, the model scripted", async () => {
    const model = new FakeModel([
      npmTest("t1"),
      reply("", toolCall("Read", { file_path: "src/math.js" }, "r")),
      reply("", toolCall("Edit", { file_path: "src/math.js", old_string: "values.length - 1", new_string: "values.length" }, "e")),
      npmTest("t2"),
      "Fixed.",
    ]);
    const agent = await CodingAgent.create(model, {
      workspace: project,
      settingsFiles: [],
      mode: "acceptEdits",
      rules: { allow: ["Bash(npm test)"] },
    });
    const result = await agent.run("The test fails. Fix the code.");
    expect(result.status).toBe("completed");
    const [firstRun, read, edit, secondRun] = toolMessages(result.messages);
    // "# fail 1" (TAP, Node 20–22 into a pipe) or "ℹ fail 1" (spec, Node 24).
    expect(firstRun?.content).toMatch(/\bfail 1\n[\s\S]*Exit code: 1/);
    expect(read?.content).toMatch(/5\s+return total \/ \(values\.length - 1\);/);
    expect(edit?.content).toMatch(/^Edited src\/math\.js/);
    expect(secondRun?.content).toMatch(/\bpass 1\n[\s\S]*Exit code: 0/);
    expect(readFileSync(join(project, "src/math.js"), "utf8")).toContain("return total / (values.length);");
    // The model was offered Claude Code's tools by their names, and the system prompt names the workspace.
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual([
      "Read",
      "Write",
      "Edit",
      "NotebookEdit",
      "Glob",
      "Grep",
      "Bash",
      "TodoWrite",
      "WebFetch",
      "WebSearch",
      "EnterPlanMode",
      "ExitPlanMode",
      "Agent",
    ]);
    expect(model.requests[0]?.messages[0]?.content).toContain(`Workspace: ${project}`);
  });

  it("a call the permissions would ask about interrupts the run (no askPerson); resume runs it once allowed", async () => {
    const model = new FakeModel([reply("", toolCall("Bash", { command: "echo hi > greeting.txt" }, "w")), "Done."]);
    // Without the sandbox: a sandboxed Bash call would run without asking (see the next test).
    const agent = await CodingAgent.create(model, { workspace: project, settingsFiles: [], sandbox: false });
    const interrupted = await agent.run("Write a greeting.");
    expect(interrupted.status).toBe("interrupted");
    expect(interrupted.pending[0]?.reason).toMatch(/echo hi > greeting\.txt|greeting\.txt/);
    const resumed = await agent.resume(JSON.stringify(interrupted), { w: { behavior: "allow" } });
    expect(resumed.status).toBe("completed");
    expect(readFileSync(join(project, "greeting.txt"), "utf8")).toBe("hi\n");
  });

  it("with the sandbox on (the default where bubblewrap runs), a Bash call runs confined without asking", async () => {
    const outside = join(project, "..", `outside-${process.pid}.txt`);
    const model = new FakeModel([
      reply("", toolCall("Bash", { command: `echo hi > greeting.txt; echo escaped > ${outside}` }, "w")),
      "Done.",
    ]);
    const agent = await CodingAgent.create(model, { workspace: project, settingsFiles: [] });
    try {
      expect(agent.sandbox.status).toMatchObject({ enabled: true, mechanism: "bubblewrap" });
      const result = await agent.run("Write a greeting.");
      expect(result.status).toBe("completed");
      expect(readFileSync(join(project, "greeting.txt"), "utf8")).toBe("hi\n");
      expect(existsSync(outside)).toBe(false);
    } finally {
      await agent.close();
    }
  });

  it("with askPerson the run waits for the person instead, and a denial reaches the model", async () => {
    const askPerson = vi.fn(() => ({ behavior: "deny" as const, message: "Not now." }));
    const model = new FakeModel([reply("", toolCall("Bash", { command: "rm -rf src" }, "rm")), "Understood."]);
    const agent = await CodingAgent.create(model, { workspace: project, settingsFiles: [], askPerson, sandbox: false });
    const result = await agent.run("Clean up.");
    expect(askPerson).toHaveBeenCalledWith(
      expect.objectContaining({ toolCall: expect.objectContaining({ id: "rm" }), reason: expect.any(String) }),
    );
    expect(toolMessages(result.messages)[0]).toMatchObject({ content: "Not now.", isError: true });
    expect(readFileSync(join(project, "src/math.js"), "utf8")).toContain("mean");
  });

  it("reads permissions and hooks from the project's settings file: a deny rule and a PreToolUse command hook", async () => {
    mkdirSync(join(project, ".minagent"));
    writeFileSync(
      join(project, ".minagent/settings.json"),
      JSON.stringify({
        permissions: { deny: ["Read(./secrets/**)"], allow: ["Bash(npm test)"] },
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo 'no tests on Fridays' >&2; exit 2" }] }] },
      }),
    );
    const model = new FakeModel([
      reply("", toolCall("Read", { file_path: "secrets/key.txt" }, "s"), toolCall("Bash", { command: "npm test" }, "t")),
      "ok",
    ]);
    const agent = await CodingAgent.create(model, { workspace: project, settingsFiles: [join(project, ".minagent/settings.json")] });
    const result = await agent.run("Look around.");
    const [secret, tests] = toolMessages(result.messages);
    expect(secret).toMatchObject({ isError: true, content: expect.stringMatching(/Read\(\.\/secrets\/\*\*\)/) });
    expect(tests).toMatchObject({ isError: true, content: expect.stringMatching(/no tests on Fridays/) });
  });

  it("Grep and Glob leave out files a Read deny rule covers", async () => {
    mkdirSync(join(project, "secrets"));
    writeFileSync(join(project, "secrets/key.txt"), "needle in the secrets\n");
    writeFileSync(join(project, "src/notes.txt"), "needle in the notes\n");
    const model = new FakeModel([
      reply("", toolCall("Grep", { pattern: "needle" }, "g"), toolCall("Glob", { pattern: "**/*.txt" }, "f")),
      "ok",
    ]);
    const agent = await CodingAgent.create(model, { workspace: project, settingsFiles: [], rules: { deny: ["Read(./secrets/**)"] } });
    const [grep, glob] = toolMessages((await agent.run("Find the needle.")).messages);
    expect(grep?.content).toBe("Found 1 file\nsrc/notes.txt");
    expect(glob?.content).toBe("src/notes.txt");
  });

  it("a Stop hook can send the agent back to work, within its limit", async () => {
    let stops = 0;
    const model = new FakeModel(["Done, I think.", "Now really done."]);
    const agent = await CodingAgent.create(model, {
      workspace: project,
      settingsFiles: [],
      hooks: {
        Stop: [{ hooks: [{ type: "function", run: () => (stops++ === 0 ? { decision: "block", reason: "Run the tests first." } : {}) }] }],
      },
    });
    const result = await agent.run("Fix it.");
    expect(result.final).toBe("Now really done.");
    // The result covers the whole prompt: both runs' turns and steps.
    expect(result.turns).toBe(2);
    expect(result.steps.map((step) => [step.index, step.kind])).toEqual([
      [0, "final"],
      [1, "final"],
    ]);
    expect(model.requests[1]?.messages.at(-1)?.content).toMatch(/Run the tests first\./);
  });

  it("a prompt a UserPromptSubmit hook blocks ends with status blocked, a run id of its own, and nothing sent", async () => {
    const model = new FakeModel(["never sent"]);
    const agent = await CodingAgent.create(model, {
      workspace: project,
      settingsFiles: [],
      sandbox: false,
      hooks: {
        UserPromptSubmit: [{ hooks: [{ type: "function", run: () => ({ decision: "block", reason: "No secrets in prompts." }) }] }],
      },
    });
    const history = [{ role: "user" as const, content: "earlier" }];
    const result = await agent.run("my password is hunter2", { history });
    expect(result).toMatchObject({ status: "blocked", blocked: "No secrets in prompts.", messages: history, turns: 0, pending: [] });
    expect(result.runId).toMatch(/^run_[0-9a-f-]{36}$/);
    expect(model.requests).toHaveLength(0);
  });
});
