import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { estimateTextTokens } from "../../src/code/compaction/index.js";
import { createSkillTool, loadSkills, type Skill } from "../../src/code/skills/index.js";
import type { Tool } from "../../src/engine.js";
import {
  badYamlSkill,
  createSkillHome,
  deploySkill,
  emptySkill,
  pdfFormsSkill,
  projectCommitMessagesSkill,
  type SkillHome,
  userCommitMessagesSkill,
  writeFiles,
} from "./skills-fixtures.js";

let home: SkillHome;
beforeEach(async () => {
  home = await createSkillHome();
});
afterEach(() => home.close());

const load = () => loadSkills({ root: home.root, userDirectory: home.minagent, claudeDirectory: home.claude });
const projectSkills = (name: string) => join(home.root, ".claude", "skills", name);

/** Calls the tool as the registry would (the arguments already valid); a ToolError's text is what the model reads. */
async function call(tool: Tool, args: Record<string, unknown>): Promise<string> {
  try {
    return String(await tool.execute(args, {} as never));
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

describe("loadSkills", () => {
  it("reads the SKILL.md folders of the project's .claude/skills and the user's ~/.claude/skills, with their front matter", async () => {
    await writeFiles(projectSkills("pdf-forms"), pdfFormsSkill);
    await writeFiles(join(home.claude, "skills", "commit-messages"), userCommitMessagesSkill);
    // A folder without SKILL.md is not a skill, and a file beside the folders is ignored.
    await writeFiles(projectSkills("drafts"), { "notes.md": "ideas for skills\n" });
    await writeFile(join(home.root, ".claude", "skills", "README.md"), "Our team's skills.\n");
    const { skills, warnings } = await load();
    expect(warnings).toEqual([]);
    expect(skills.map(({ name, level, folder }) => ({ name, level, folder }))).toEqual([
      { name: "commit-messages", level: "user", folder: join(home.claude, "skills", "commit-messages") },
      { name: "pdf-forms", level: "project", folder: projectSkills("pdf-forms") },
    ]);
    const pdf = skills.find((skill) => skill.name === "pdf-forms") as Skill;
    expect(pdf.description).toMatch(/^Fill in PDF forms .* inspect a PDF form\.$/);
    expect(pdf).toMatchObject({ allowedTools: ["Read", "Bash(python3 *)"], license: "MIT", modelInvocable: true, userInvocable: true });
  });

  it("the user's skill wins over the project's of the same name (Claude Code's order), and at one level minagent's over Claude Code's", async () => {
    await writeFiles(projectSkills("commit-messages"), projectCommitMessagesSkill);
    await writeFiles(join(home.claude, "skills", "commit-messages"), userCommitMessagesSkill);
    await writeFiles(projectSkills("pdf-forms"), pdfFormsSkill);
    await writeFiles(join(home.root, ".minagent", "skills", "pdf-forms"), {
      "SKILL.md": "---\nname: pdf-forms\ndescription: Fill PDF forms with our own tool, pdf-fill.\n---\n\nRun pdf-fill --help first.\n",
    });
    const { skills, warnings } = await load();
    // The project's hidden skill is named, so that its authors' instructions are not lost without a word.
    expect(warnings).toEqual([
      `Skill "commit-messages": ${join(home.claude, "skills", "commit-messages", "SKILL.md")} replaces the project's ${join(projectSkills("commit-messages"), "SKILL.md")} (a user's skill wins over a project's of the same name, as in Claude Code); rename one of them to keep both.`,
    ]);
    expect(skills.map(({ name, file }) => ({ name, file }))).toEqual([
      { name: "commit-messages", file: join(home.claude, "skills", "commit-messages", "SKILL.md") },
      { name: "pdf-forms", file: join(home.root, ".minagent", "skills", "pdf-forms", "SKILL.md") },
    ]);
    // ~/.minagent/skills wins over ~/.claude/skills.
    await writeFiles(join(home.minagent, "skills", "commit-messages"), {
      "SKILL.md": "---\ndescription: Commit messages, minagent's way.\n---\n\nOne line, lowercase.\n",
    });
    expect((await load()).skills.find((skill) => skill.name === "commit-messages")?.level).toBe("user");
    expect((await load()).skills.find((skill) => skill.name === "commit-messages")?.file).toBe(
      join(home.minagent, "skills", "commit-messages", "SKILL.md"),
    );
  });

  it("skips a skill that cannot be used with one warning naming its file and what to fix; the others load", async () => {
    await writeFiles(projectSkills("pdf-forms"), pdfFormsSkill);
    await writeFiles(projectSkills("release-notes"), emptySkill);
    await writeFiles(projectSkills("changelog"), badYamlSkill);
    await writeFiles(projectSkills("Weekly Report"), { "SKILL.md": "Summarise the week's merged pull requests.\n" });
    await writeFiles(projectSkills("lint"), {
      "SKILL.md": "---\ndescription: Lint the code.\ndisable-model-invocation: maybe\n---\n\nnpm run lint\n",
    });
    const { skills, warnings } = await load();
    expect(skills.map((skill) => skill.name)).toEqual(["pdf-forms"]);
    expect(warnings).toHaveLength(4);
    const about = (folder: string) => warnings.find((warning) => warning.startsWith(`Skill ${join(projectSkills(folder), "SKILL.md")}`));
    expect(about("release-notes")).toMatch(/the instructions the model loads, is empty\. Fix the file or remove it \(skipped/);
    expect(about("changelog")).toMatch(/, line 3: .*put a value that holds `: ` in quotes/);
    expect(about("Weekly Report")).toContain(`its folder's name "Weekly Report" (no \`name:\` is given) is not a skill name`);
    expect(about("Weekly Report")).toContain('"weekly-report"');
    expect(about("lint")).toContain(', line 3: `disable-model-invocation` must be true or false, not "maybe"');
  });

  it("the standard's nested `metadata` map and Claude Code's other keys do not stop a skill", async () => {
    await writeFiles(projectSkills("api-conventions"), {
      "SKILL.md": `---
name: api-conventions
description: REST conventions of this codebase. Use when adding or changing an HTTP endpoint.
license: Apache-2.0
metadata:
  author: platform-team
  version: "2.1"
user-invocable: false
model: sonnet
context: fork
---

Use plural nouns for collections (/invoices), and return 404 rather than 403 for records of other tenants.
`,
    });
    const { skills, warnings } = await load();
    expect(warnings).toEqual([]);
    expect(skills).toEqual([
      expect.objectContaining({ name: "api-conventions", license: "Apache-2.0", userInvocable: false, modelInvocable: true }),
    ]);
  });

  it("a skill without a description has the body's first paragraph as one, as in Claude Code; without either it is skipped", async () => {
    await writeFiles(projectSkills("flaky-tests"), {
      "SKILL.md":
        "# Flaky tests\n\nFind tests that fail only sometimes:\nrun them 20 times with --repeat.\n\n## Steps\n\n1. Run npx vitest --repeat 20.\n",
    });
    await writeFiles(projectSkills("todo"), { "SKILL.md": "---\nname: todo\n---\n\n# TODO\n\n```sh\ngrep -rn TODO src\n```\n" });
    const { skills, warnings } = await load();
    expect(skills.map(({ name, description }) => ({ name, description }))).toEqual([
      { name: "flaky-tests", description: "Find tests that fail only sometimes: run them 20 times with --repeat." },
    ]);
    expect(warnings).toEqual([
      `Skill ${join(projectSkills("todo"), "SKILL.md")}: it has no \`description\` (the model reads it to decide when to load the skill): add \`description: <what it does and when to use it>\`. Fix the file or remove it (skipped: the session goes on without it).`,
    ]);
  });

  it("two folders of one directory with the same name: the second is skipped with a warning naming both", async () => {
    await writeFiles(projectSkills("commit-messages"), projectCommitMessagesSkill);
    await writeFiles(projectSkills("commits"), projectCommitMessagesSkill);
    const { skills, warnings } = await load();
    expect(skills.map((skill) => skill.file)).toEqual([join(projectSkills("commit-messages"), "SKILL.md")]);
    expect(warnings).toEqual([
      `Skill ${join(projectSkills("commits"), "SKILL.md")}: ${join(projectSkills("commit-messages"), "SKILL.md")} already defines the skill "commit-messages": rename one of them (\`name:\`). Fix the file or remove it (skipped: the session goes on without it).`,
    ]);
  });

  it("cuts a description over 1,024 characters in the listing, with a warning; the skill loads", async () => {
    const long = `Review database migrations. ${"Check every index, lock and default value. ".repeat(30)}`;
    await writeFiles(projectSkills("migrations"), {
      "SKILL.md": `---\ndescription: ${long}\n---\n\nRead the migration, then the schema.\n`,
    });
    const { skills, warnings } = await load();
    expect(skills[0]?.description).toHaveLength(1024);
    expect(skills[0]?.description.endsWith("…")).toBe(true);
    expect(warnings).toEqual([
      `Skill ${join(projectSkills("migrations"), "SKILL.md")}: its description is ${long.trim().length.toLocaleString("en-US")} characters; the model is shown the first 1,024. Move the details into the body.`,
    ]);
  });

  it("claudeDirectory left out reads neither Claude Code folder; userDirectory false reads no ~/.minagent/skills", async () => {
    await writeFiles(projectSkills("pdf-forms"), pdfFormsSkill);
    await writeFiles(join(home.minagent, "skills", "commit-messages"), userCommitMessagesSkill);
    expect((await loadSkills({ root: home.root, userDirectory: home.minagent })).skills.map((skill) => skill.name)).toEqual([
      "commit-messages",
    ]);
    expect(
      (await loadSkills({ root: home.root, userDirectory: false, claudeDirectory: home.claude })).skills.map((skill) => skill.name),
    ).toEqual(["pdf-forms"]);
  });
});

describe("the Skill tool", () => {
  async function skillTool(): Promise<Tool> {
    await writeFiles(projectSkills("pdf-forms"), pdfFormsSkill);
    await writeFiles(join(home.claude, "skills", "commit-messages"), userCommitMessagesSkill);
    await writeFiles(projectSkills("deploy"), deploySkill);
    return createSkillTool((await load()).skills);
  }

  it("lists only names and descriptions, never a body; a skill for the user only (disable-model-invocation) is not listed", async () => {
    const tool = await skillTool();
    expect(tool).toMatchObject({ name: "Skill", readOnly: true });
    expect(tool.description).toContain(
      "\n\n- commit-messages: Write commit messages in the user's style. Use when committing or when asked for a commit message.\n- pdf-forms: Fill in PDF forms",
    );
    expect(tool.description).not.toContain("deploy");
    expect(tool.description).not.toContain("imperative");
    expect(tool.description).not.toContain("fill.py");
  });

  it("twenty skills cost a few hundred tokens until one is loaded", async () => {
    const skills: Skill[] = Array.from({ length: 20 }, (_, index) => ({
      name: `team-skill-${index + 1}`,
      // A typical description: what it does and when to use it, about 120 characters.
      description: `Prepare the weekly report number ${index + 1} from merged pull requests. Use when the user asks for a summary of the week.`,
      folder: `/skills/team-skill-${index + 1}`,
      file: `/skills/team-skill-${index + 1}/SKILL.md`,
      level: "project",
      modelInvocable: true,
      userInvocable: true,
    }));
    const description = createSkillTool(skills).description;
    const tokens = estimateTextTokens(description);
    const listed = skills.reduce((sum, skill) => sum + skill.name.length + skill.description.length, 0);
    console.log(`Skill tool description for 20 skills: ${description.length} characters, about ${tokens} tokens`);
    // The names and descriptions, four characters of punctuation a line, and a preamble under 400 characters.
    expect(description.length).toBeLessThanOrEqual(listed + 20 * 4 + 400);
    expect(tokens).toBeLessThan(1000);
  });

  it("past its listing budget, the rest are listed by name only, with one warning", async () => {
    await writeFiles(projectSkills("pdf-forms"), pdfFormsSkill);
    await writeFiles(join(home.claude, "skills", "commit-messages"), userCommitMessagesSkill);
    const warnings: string[] = [];
    const tool = createSkillTool((await load()).skills, { maxListingCharacters: 150, onWarning: (message) => warnings.push(message) });
    expect(tool.description).toMatch(/\n- commit-messages: Write commit messages.*\n- pdf-forms$/);
    expect(warnings).toEqual([
      "The skills' descriptions take more than 150 characters: 1 of 2 skills are listed for the model by name only (pdf-forms). Shorten the descriptions or remove skills.",
    ]);
  });

  it("{ skill } returns the instructions with the folder (filled in for CLAUDE_SKILL_DIR) and the other files to load", async () => {
    const tool = await skillTool();
    const folder = projectSkills("pdf-forms");
    const loaded = await call(tool, { skill: "pdf-forms" });
    expect(loaded).toContain(`The skill "pdf-forms" is loaded: follow its instructions.\nIts folder: ${folder}\n\n# Filling PDF forms`);
    expect(loaded).toContain(`python3 ${folder}/scripts/fill.py --list form.pdf`);
    expect(loaded).not.toContain("allowed-tools");
    expect(loaded).toMatch(/Files in the skill's folder .*\n- reference\.md \(\d+ B\)\n- scripts\/fill\.py \(\d+ B\)$/);
  });

  it("args fill $ARGUMENTS and $N (from 0) as a custom command's, or follow the instructions that name none", async () => {
    await writeFiles(projectSkills("fix-issue"), {
      "SKILL.md":
        "---\ndescription: Fix a GitHub issue by number.\n---\n\nRead issue $0 with gh issue view $ARGUMENTS, then fix it in $1.\n",
    });
    await writeFiles(join(home.claude, "skills", "commit-messages"), userCommitMessagesSkill);
    const tool = createSkillTool((await load()).skills);
    expect(await call(tool, { skill: "fix-issue", args: "1234 src/parser.ts" })).toContain(
      "Read issue 1234 with gh issue view 1234 src/parser.ts, then fix it in src/parser.ts.",
    );
    expect(await call(tool, { skill: "commit-messages", args: "the parser fix" })).toMatch(/nobody yet\n\nARGUMENTS: the parser fix$/);
  });

  it("reads the instructions again when called, so that an edit counts without a restart", async () => {
    const tool = await skillTool();
    await writeFiles(join(home.claude, "skills", "commit-messages"), {
      "SKILL.md": userCommitMessagesSkill["SKILL.md"].replace("at most 60", "at most 50"),
    });
    expect(await call(tool, { skill: "commit-messages" })).toContain("at most 50 characters");
  });

  it("{ skill, file } returns one file of the folder, even from ~/.claude, outside any workspace", async () => {
    const tool = await skillTool();
    expect(await call(tool, { skill: "pdf-forms", file: "reference.md" })).toBe(pdfFormsSkill["reference.md"]);
    expect(await call(tool, { skill: "pdf-forms", file: "scripts/fill.py" })).toBe(pdfFormsSkill["scripts/fill.py"]);
    expect(await call(tool, { skill: "commit-messages", file: "SKILL.md" })).toBe(userCommitMessagesSkill["SKILL.md"]);
  });

  it("refuses a file outside the skill's folder: `..`, an absolute path, a symbolic link leading out", async () => {
    const tool = await skillTool();
    await writeFile(join(home.base, "home", "secrets.txt"), "API_KEY=sk-live-do-not-show\n");
    await mkdir(join(home.base, "home", "private"));
    await writeFile(join(home.base, "home", "private", "notes.md"), "private notes\n");
    await symlink(join(home.base, "home", "secrets.txt"), join(projectSkills("pdf-forms"), "secret-link.txt"));
    await symlink(join(home.base, "home", "private"), join(projectSkills("pdf-forms"), "more"));
    const outcomes = await Promise.all(
      [
        "../../../../home/secrets.txt",
        join(home.base, "home", "secrets.txt"),
        "secret-link.txt",
        "more/notes.md",
        "scripts/../../commit-messages/SKILL.md",
      ].map((file) => call(tool, { skill: "pdf-forms", file })),
    );
    expect(outcomes.join("\n")).not.toContain("sk-live");
    expect(outcomes.join("\n")).not.toContain("private notes");
    expect(outcomes[0]).toMatch(/^error: `file` may not leave the skill's folder with "\.\."/);
    expect(outcomes[1]).toMatch(/^error: `file` must be a path inside the skill's folder .*not an absolute path/);
    expect(outcomes[2]).toMatch(/^error: secret-link\.txt leads outside the skill's folder through a symbolic link/);
    expect(outcomes[3]).toMatch(/^error: more\/notes\.md leads outside the skill's folder/);
    expect(outcomes[4]).toMatch(/^error: `file` may not leave the skill's folder/);
    // The links leading out are not listed either.
    expect(await call(tool, { skill: "pdf-forms" })).not.toMatch(/secret-link|notes\.md/);
  });

  it("refuses a file a Read deny rule covers, a binary file, a missing one; cuts a big one with a note", async () => {
    await writeFiles(projectSkills("pdf-forms"), {
      ...pdfFormsSkill,
      ".env": "TOKEN=abc\n",
      "big.log": `${"x".repeat(99)}\n`.repeat(1500),
    });
    await writeFile(join(projectSkills("pdf-forms"), "sample.pdf"), Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0x01, 0x02]));
    const denied = join(projectSkills("pdf-forms"), "reference.md");
    const tool = createSkillTool((await load()).skills, { isReadDenied: (path) => path === denied });
    expect(await call(tool, { skill: "pdf-forms", file: "reference.md" })).toBe(
      `error: Permission denied: a Read deny rule covers ${denied}. Do not try to get around it.`,
    );
    expect(await call(tool, { skill: "pdf-forms", file: "sample.pdf" })).toMatch(/^error: sample\.pdf is a binary file \(7 bytes\)/);
    expect(await call(tool, { skill: "pdf-forms", file: "forms/w9.md" })).toBe(
      "error: The skill has no file forms/w9.md. Its files are listed when the skill is loaded.",
    );
    const big = await call(tool, { skill: "pdf-forms", file: "big.log" });
    expect(big).toMatch(
      /\n…\[big\.log is 150,000 bytes; the first 100,000 characters are shown\. To see more, search or page through .* with Bash/,
    );
    expect(big.length).toBeLessThan(100_300);
    // Hidden files are not listed (a skill's .env stays out of the model's view unless it asks by name).
    expect(await call(tool, { skill: "pdf-forms" })).not.toContain(".env");
  });

  it("an unknown skill names the ones there are; a skill for the user only is refused with what to do", async () => {
    const tool = await skillTool();
    expect(await call(tool, { skill: "pdf" })).toBe('error: There is no skill "pdf". The skills are: commit-messages, pdf-forms.');
    expect(await call(tool, { skill: "deploy" })).toBe(
      'error: The skill "deploy" is one the user runs (disable-model-invocation): do not do its steps yourself; ask the user to run it.',
    );
  });
});
