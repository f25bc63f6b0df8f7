import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findMemoryImports, loadProjectMemory } from "../../../src/code/memory/index.js";

let base: string;
let home: string;
let root: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "minagent-memory-imports-"));
  home = join(base, "home");
  root = join(base, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(root, { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const load = (extra: Partial<Parameters<typeof loadProjectMemory>[0]> = {}) =>
  loadProjectMemory({ root, home, userDirectory: join(home, ".minagent"), claudeDirectory: join(home, ".claude"), ...extra });

describe("@path imports in memory files", () => {
  it("finds imports in prose, resolved against the file, and not in code blocks, inline code or e-mail addresses", () => {
    const text = [
      "See @README.md for the overview and @docs/testing.md, then @../shared/style.md.",
      "My own notes: @~/.claude/my-notes.md",
      "Write to someone@example.com, not an import.",
      "Run `npm i @scope/package` to install.",
      "```sh",
      "echo @not/an/import.md",
      "```",
      "- @/etc/absolute.md",
    ].join("\n");
    expect(findMemoryImports(text, join(root, "CLAUDE.md"), home)).toEqual([
      { written: "README.md", path: join(root, "README.md") },
      { written: "docs/testing.md", path: join(root, "docs", "testing.md") },
      { written: "../shared/style.md", path: join(base, "shared", "style.md") },
      { written: "~/.claude/my-notes.md", path: join(home, ".claude", "my-notes.md") },
      { written: "/etc/absolute.md", path: "/etc/absolute.md" },
    ]);
  });

  it("reads each imported file right after the file that imports it, nested imports too, each file once", async () => {
    write(join(root, "CLAUDE.md"), "# Project\nConventions: @docs/conventions.md\nTesting: @docs/testing.md\n");
    write(join(root, "docs", "conventions.md"), "Use tabs. Commands are in @../package-notes.md");
    write(join(root, "package-notes.md"), "npm test runs vitest. See also @docs/testing.md");
    write(join(root, "docs", "testing.md"), "Every change has a test.");
    write(join(root, "AGENTS.md"), "Agents file, imports @docs/testing.md again.");
    const memory = await load();
    expect(memory.files.map((file) => [file.path, file.importedBy])).toEqual([
      [join(root, "CLAUDE.md"), undefined],
      [join(root, "docs", "conventions.md"), join(root, "CLAUDE.md")],
      [join(root, "package-notes.md"), join(root, "docs", "conventions.md")],
      [join(root, "docs", "testing.md"), join(root, "package-notes.md")],
      [join(root, "AGENTS.md"), undefined],
    ]);
    expect(memory.text).toContain(
      `## ${join(root, "docs", "testing.md")} (imported by ${join(root, "package-notes.md")})\n\nEvery change has a test.`,
    );
    expect(memory.text.match(/Every change has a test\./g)).toHaveLength(1);
    expect(memory.warnings).toEqual([]);
  });

  it("a project file may import the person's notes from ~/.claude, but not other files of the home directory", async () => {
    write(join(home, ".claude", "my-project-notes.md"), "I prefer small commits.");
    write(join(home, ".ssh", "id_ed25519"), "PRIVATE KEY");
    write(join(root, "CLAUDE.md"), "Personal: @~/.claude/my-project-notes.md\nAnd @~/.ssh/id_ed25519\n");
    const memory = await load();
    expect(memory.text).toContain("I prefer small commits.");
    expect(memory.text).not.toContain("PRIVATE KEY");
    expect(memory.warnings).toEqual([
      `${join(root, "CLAUDE.md")} imports @~/.ssh/id_ed25519, which is not read: ${join(home, ".ssh", "id_ed25519")} is outside the project (${root}) or ${join(home, ".claude")}, ${join(home, ".minagent")}.`,
    ]);
  });

  it("a user file may import from anywhere in the home directory, not outside it", async () => {
    write(join(home, "notes", "style.md"), "Prefer early returns.");
    write(join(base, "elsewhere.md"), "outside home");
    write(join(home, ".claude", "CLAUDE.md"), "@~/notes/style.md\n@../../elsewhere.md\n");
    const memory = await load();
    expect(memory.text).toContain("Prefer early returns.");
    expect(memory.text).not.toContain("outside home");
    expect(memory.warnings).toEqual([
      `${join(home, ".claude", "CLAUDE.md")} imports @../../elsewhere.md, which is not read: ${join(base, "elsewhere.md")} is outside the home directory (${home}).`,
    ]);
  });

  it("a missing file, a file a Read deny rule covers, and a link out of the project are warnings, and the rest loads", async () => {
    write(join(root, ".env"), "API_KEY=secret-value");
    write(join(base, "outside.md"), "outside text");
    symlinkSync(join(base, "outside.md"), join(root, "link.md"));
    write(join(root, "CLAUDE.md"), "Setup: @docs/missing.md\nKeys: @.env\nLinked: @link.md\nStill read.");
    const memory = await load({ isReadDenied: (path) => path === join(root, ".env") });
    expect(memory.text).toContain("Still read.");
    expect(memory.text).not.toContain("secret-value");
    expect(memory.text).not.toContain("outside text");
    expect(memory.warnings).toEqual([
      `${join(root, "CLAUDE.md")} imports @docs/missing.md, which does not exist: the import is skipped.`,
      `${join(root, "CLAUDE.md")} imports @.env, which is not read: a Read deny rule covers ${join(root, ".env")}.`,
    ]);
    // The link's target is outside the project: listed as not read, as a linked memory file is.
    const linked = memory.files.find((file) => file.path === join(root, "link.md"));
    expect(linked?.error).toMatch(/^Not read: its real path, .*outside\.md, is outside the project root/);
    expect(linked?.importedBy).toBe(join(root, "CLAUDE.md"));
  });

  it("stops five imports deep, as Claude Code does, and a cycle is read once", async () => {
    write(join(root, "CLAUDE.md"), "level 0 @l1.md");
    for (let level = 1; level <= 6; level++) write(join(root, `l${level}.md`), `level ${level} @l${level + 1}.md`);
    write(join(root, "AGENTS.md"), "cycle @CLAUDE.md");
    const memory = await load();
    expect(memory.files.map((file) => file.path.slice(root.length + 1))).toEqual([
      "CLAUDE.md",
      "l1.md",
      "l2.md",
      "l3.md",
      "l4.md",
      "l5.md",
      "AGENTS.md",
    ]);
    expect(memory.warnings).toEqual([`${join(root, "l5.md")} imports @l6.md, deeper than 5 imports: the import is skipped.`]);
  });

  it("a project file cannot reach the person's records through their folders, nor a denied file through a link", async () => {
    write(join(home, ".claude", ".credentials.json"), '{"token":"oauth-secret"}');
    write(join(home, ".minagent", "settings.json"), '{"env":{"GITHUB_TOKEN":"ghp_secret"}}');
    write(join(home, ".minagent", "projects", "other", "notes.md"), "another project's session");
    write(join(root, ".env"), "API_KEY=linked-secret");
    symlinkSync(join(root, ".env"), join(root, "env.md"));
    write(
      join(root, "CLAUDE.md"),
      "@~/.claude/.credentials.json\n@~/.minagent/settings.json\n@~/.minagent/projects/other/notes.md\n@env.md\nStill read.",
    );
    const memory = await load({ isReadDenied: (path) => path === join(root, ".env") });
    expect(memory.text).toContain("Still read.");
    for (const secret of ["oauth-secret", "ghp_secret", "another project's session", "linked-secret"])
      expect(memory.text).not.toContain(secret);
    expect(memory.warnings).toHaveLength(4);
    expect(memory.warnings[0]).toContain("may import only Markdown notes from");
    expect(memory.warnings[3]).toContain(`a Read deny rule covers ${join(root, ".env")}`);
  });
});
