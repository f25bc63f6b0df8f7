import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { badYamlSkill, pdfFormsSkill, projectCommitMessagesSkill, userCommitMessagesSkill, writeFiles } from "../code/skills-fixtures.js";
import { answer, anthropicEnv, callTool, printArgs, runCode, useCodeFixture } from "./code-helpers.js";

const fixture = useCodeFixture();

type SentBody = { tools: { name: string; description: string }[]; messages: { role: string; content: unknown }[] };

describe("minagent code runs a Claude Code project's skills", () => {
  test("the model is offered the Skill tool with names and descriptions, and a call returns the skill's instructions", async () => {
    const env = anthropicEnv(fixture);
    await writeFiles(join(fixture.workspace, ".claude", "skills", "pdf-forms"), pdfFormsSkill);
    await writeFiles(join(fixture.workspace, ".claude", "skills", "commit-messages"), projectCommitMessagesSkill);
    // CLAUDE_CONFIG_DIR's skills are the user's: theirs wins over the project's of the same name.
    await writeFiles(join(env.CLAUDE_CONFIG_DIR as string, "skills", "commit-messages"), userCommitMessagesSkill);
    fixture.server.reply(
      callTool("toolu_s", "Skill", { skill: "pdf-forms" }),
      callTool("toolu_f", "Skill", { skill: "pdf-forms", file: "reference.md" }),
      answer("I will list the fields first."),
    );
    const outcome = await runCode(printArgs(fixture, "Fill in form.pdf from values.json"), env);
    // The one line on stderr: the project's skill of the same name is hidden by the user's.
    expect(outcome.stderr).toMatch(/^minagent code: Skill "commit-messages": .* replaces the project's .*\n$/);
    expect(outcome.exit).toBe(0);
    expect(outcome.stdout).toContain("I will list the fields first.");
    const [first, second, third] = fixture.server.requests.map((request) => request.body as SentBody);
    const skill = first?.tools.find((tool) => tool.name === "Skill");
    expect(skill?.description).toContain("- commit-messages: Write commit messages in the user's style.");
    expect(skill?.description).toContain("- pdf-forms: Fill in PDF forms (AcroForm fields) from JSON data");
    // Until it is loaded, the skill's body is nowhere in what the model is sent.
    expect(JSON.stringify(first)).not.toContain("fill.py");
    const folder = join(fixture.workspace, ".claude", "skills", "pdf-forms");
    expect(JSON.stringify(second?.messages.at(-1))).toContain(`python3 ${folder}/scripts/fill.py --list form.pdf`);
    expect(JSON.stringify(second?.messages.at(-1))).toContain("- reference.md");
    expect(JSON.stringify(third?.messages.at(-1))).toContain("Signature fields cannot be filled");
  });

  test("a skill that cannot be used is one warning line naming its file; the session goes on", async () => {
    await writeFiles(join(fixture.workspace, ".claude", "skills", "changelog"), badYamlSkill);
    await writeFiles(join(fixture.workspace, ".claude", "skills", "pdf-forms"), pdfFormsSkill);
    fixture.server.reply(answer("Hello."));
    const outcome = await runCode(printArgs(fixture, "Hi"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    const file = join(fixture.workspace, ".claude", "skills", "changelog", "SKILL.md");
    expect(outcome.stderr.split("\n").filter((line) => line.includes(file))).toEqual([
      expect.stringMatching(/^minagent code: Skill .*changelog\/SKILL\.md, line 3: .*\(skipped: the session goes on without it\)\.$/),
    ]);
    const sent = fixture.server.requests[0]?.body as SentBody;
    expect(sent.tools.find((tool) => tool.name === "Skill")?.description).not.toContain("changelog");
  });

  test("--disallowedTools Skill(pdf-forms) keeps the skill from loading", async () => {
    await writeFiles(join(fixture.workspace, ".claude", "skills", "pdf-forms"), pdfFormsSkill);
    fixture.server.reply(callTool("toolu_s", "Skill", { skill: "pdf-forms" }), answer("I may not use it."));
    const outcome = await runCode(printArgs(fixture, "Fill the form", "--disallowedTools", "Skill(pdf-forms)"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    const sent = JSON.stringify(fixture.server.requests.at(-1)?.body);
    expect(sent).toContain("forbidden by the deny rule `Skill(pdf-forms)`");
    expect(sent).not.toContain("Filling PDF forms");
  });
});
