import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodingAgent, type CodingAgentOptions } from "../../src/code/index.js";
import { FakeModel, type Message } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import {
  badYamlSkill,
  createSkillHome,
  deploySkill,
  pdfFormsSkill,
  projectCommitMessagesSkill,
  type SkillHome,
  userCommitMessagesSkill,
  writeFiles,
} from "./skills-fixtures.js";

let home: SkillHome;
beforeEach(async () => {
  home = await createSkillHome();
  await writeFiles(join(home.root, ".claude", "skills", "pdf-forms"), pdfFormsSkill);
  await writeFiles(join(home.root, ".claude", "skills", "commit-messages"), projectCommitMessagesSkill);
  await writeFiles(join(home.root, ".claude", "skills", "deploy"), deploySkill);
  await writeFiles(join(home.root, ".claude", "skills", "changelog"), badYamlSkill);
  await writeFiles(join(home.claude, "skills", "commit-messages"), userCommitMessagesSkill);
});
afterEach(() => home.close());

const create = (model: FakeModel, options: Partial<CodingAgentOptions> = {}) =>
  CodingAgent.create(model, {
    workspace: home.root,
    settingsFiles: [],
    home: join(home.base, "home"),
    userDirectory: home.minagent,
    claudeDirectory: home.claude,
    sandbox: false,
    ...options,
  });
const toolResults = (messages: readonly Message[]) =>
  messages.filter((message) => message.role === "tool").map((message) => message.content);

describe("CodingAgent with skills", () => {
  it("offers the Skill tool, and a call loads the user's skill over the project's of the same name, without asking", async () => {
    const model = new FakeModel([reply("", toolCall("Skill", { skill: "commit-messages" }, "s1")), "Subject: Fix the parser"]);
    const agent = await create(model);
    expect(agent.skills.map((skill) => `${skill.name} ${skill.level}`)).toEqual([
      "commit-messages user",
      "deploy project",
      "pdf-forms project",
    ]);
    const result = await agent.run("Write the commit message for my change.");
    expect(result.status).toBe("completed");
    const offered = model.requests[0]?.tools.find((tool) => tool.name === "Skill");
    expect(offered?.description).toContain("- commit-messages: Write commit messages in the user's style.");
    expect(offered?.description).toContain("- pdf-forms: Fill in PDF forms");
    expect(toolResults(result.messages)[0]).toContain("Sign off with: Reviewed-by: nobody yet");
    expect(toolResults(result.messages)[0]).not.toContain("Conventional Commits");
  });

  it("a file that cannot be used is a warning naming it; the session starts with the other skills", async () => {
    const agent = await create(new FakeModel(["Hi."]));
    expect(agent.warnings).toEqual([
      expect.stringMatching(
        /^Skill .*\/\.claude\/skills\/changelog\/SKILL\.md, line 3: .*Fix the file or remove it \(skipped: the session goes on without it\)\.$/,
      ),
      expect.stringMatching(/^Skill "commit-messages": .* replaces the project's .*commit-messages\/SKILL\.md/),
    ]);
  });

  it("a deny rule Skill(pdf-forms) refuses that skill, naming the rule; the others still load", async () => {
    const model = new FakeModel([
      reply("", toolCall("Skill", { skill: "pdf-forms" }, "s1"), toolCall("Skill", { skill: "commit-messages" }, "s2")),
      "Done.",
    ]);
    const agent = await create(model, { rules: { deny: ["Skill(pdf-forms)"] } });
    const [refused, loaded] = toolResults((await agent.run("Fill the form, then commit.")).messages);
    expect(refused).toContain("forbidden by the deny rule `Skill(pdf-forms)` (options.rules)");
    expect(refused).not.toContain("Filling PDF forms");
    expect(loaded).toContain("Write the subject in the imperative");
  });

  it("an ask rule Skill(commit-messages) asks the person; an allow rule lets a skill load in dontAsk mode", async () => {
    const asked: string[] = [];
    const model = new FakeModel([reply("", toolCall("Skill", { skill: "commit-messages" }, "s1")), "Asked."]);
    const agent = await create(model, {
      rules: { ask: ["Skill(commit-messages)"] },
      askPerson: ({ reason }) => {
        asked.push(reason ?? "");
        return { behavior: "deny", message: "Not now." };
      },
    });
    await agent.run("Commit.");
    expect(asked).toEqual(["the tool `Skill` matches the ask rule `Skill(commit-messages)` (options.rules)"]);

    const strict = new FakeModel([
      reply("", toolCall("Skill", { skill: "pdf-forms" }, "s1"), toolCall("Skill", { skill: "commit-messages" }, "s2")),
      "Done.",
    ]);
    const dontAsk = await create(strict, { mode: "dontAsk", rules: { allow: ["Skill(pdf-forms)"] } });
    const [allowed, notAllowed] = toolResults((await dontAsk.run("Fill the form, then commit.")).messages);
    expect(allowed).toContain("# Filling PDF forms");
    expect(notAllowed).toBe(
      "Permission denied: the tool `Skill` is not allowed by any rule, and dontAsk mode denies whatever no allow rule allows.",
    );
  });

  it("loads unasked in plan mode too: it changes nothing", async () => {
    const model = new FakeModel([reply("", toolCall("Skill", { skill: "pdf-forms" }, "s1")), "Planned."]);
    const result = await (await create(model, { mode: "plan" })).run("Plan how to fill the form.");
    expect(result.status).toBe("completed");
    expect(toolResults(result.messages)[0]).toContain("# Filling PDF forms");
  });

  it("subagents that have every tool have Skill too", async () => {
    const agent = await create(new FakeModel(["Hi."]));
    const generalPurpose = agent.subagents?.subagents().find((type) => type.name === "general-purpose");
    expect(generalPurpose?.tools).toContain("Skill");
  });

  it("no skills (or skills: false): no Skill tool, nothing added to the request", async () => {
    await home.close();
    home = await createSkillHome();
    const model = new FakeModel(["Hi."]);
    await (await create(model)).run("Hello");
    expect(model.requests[0]?.tools.map((tool) => tool.name)).not.toContain("Skill");
    await writeFiles(join(home.root, ".claude", "skills", "pdf-forms"), pdfFormsSkill);
    const off = new FakeModel(["Hi."]);
    const agent = await create(off, { skills: false });
    await agent.run("Hello");
    expect(off.requests[0]?.tools.map((tool) => tool.name)).not.toContain("Skill");
    expect(agent.skills).toEqual([]);
  });
});
