import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formatProjectMemory, listMemoryFiles, loadProjectMemory, memoryFileLocations } from "../../../src/code/memory/index.js";

let base: string;
let user: string;
let root: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "minagent-memory-"));
  user = join(base, "home", ".minagent");
  root = join(base, "project");
  mkdirSync(user, { recursive: true });
  mkdirSync(join(root, "packages", "app", "src"), { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const write = (path: string, text: string) => writeFileSync(path, text);

describe("project memory", () => {
  it("reads the user's files, then the project's from the root down to the working directory, AGENTS.md before MINAGENT.md", async () => {
    write(join(user, "AGENTS.md"), "user agents\n");
    write(join(user, "MINAGENT.md"), "user minagent\n");
    write(join(root, "MINAGENT.md"), "root minagent");
    write(join(root, "AGENTS.md"), "root agents");
    write(join(root, "packages", "app", "AGENTS.md"), "app agents");
    write(join(root, "packages", "app", "src", "MINAGENT.md"), "below the working directory: not read");
    const memory = await loadProjectMemory({ root, cwd: join(root, "packages", "app"), userDirectory: user });
    expect(memory.files.map((file) => [file.path, file.scope])).toEqual([
      [join(user, "AGENTS.md"), "user"],
      [join(user, "MINAGENT.md"), "user"],
      [join(root, "AGENTS.md"), "project"],
      [join(root, "MINAGENT.md"), "project"],
      [join(root, "packages", "app", "AGENTS.md"), "project"],
    ]);
    // Each file under its path as a heading, in that order.
    const headings = memory.text.split("\n").filter((line) => line.startsWith("## "));
    expect(headings).toEqual(memory.files.map((file) => `## ${file.path}`));
    expect(memory.text).toMatch(/^# Project memory\n/);
    expect(memory.text).toContain(`## ${join(root, "AGENTS.md")}\n\nroot agents\n\n## ${join(root, "MINAGENT.md")}\n\nroot minagent`);
    expect(memory.text).not.toContain("below the working directory");
  });

  it("lists the places it looks, and reads only the root's files for a working directory outside it", () => {
    // Claude Code's files too: at each place its CLAUDE.md first and minagent's last (the later file is the more specific).
    const claude = join(base, "claude");
    expect(
      memoryFileLocations({ root, cwd: join(root, "packages"), userDirectory: user, claudeDirectory: claude }).map(
        (location) => location.path,
      ),
    ).toEqual([
      join(claude, "CLAUDE.md"),
      join(user, "AGENTS.md"),
      join(user, "MINAGENT.md"),
      join(root, "CLAUDE.md"),
      join(root, "AGENTS.md"),
      join(root, "MINAGENT.md"),
      join(root, "CLAUDE.local.md"),
      join(root, "packages", "CLAUDE.md"),
      join(root, "packages", "AGENTS.md"),
      join(root, "packages", "MINAGENT.md"),
    ]);
    expect(memoryFileLocations({ root, cwd: base, userDirectory: false }).map((location) => location.path)).toEqual([
      join(root, "CLAUDE.md"),
      join(root, "AGENTS.md"),
      join(root, "MINAGENT.md"),
      join(root, "CLAUDE.local.md"),
    ]);
  });

  it("is empty text when there are no files (and a directory named AGENTS.md is no file)", async () => {
    mkdirSync(join(root, "AGENTS.md"));
    const memory = await loadProjectMemory({ root, userDirectory: user });
    expect(memory.files).toEqual([]);
    expect(memory.text).toBe("");
    expect(formatProjectMemory([])).toBe("");
  });

  it("cuts a file over the limit at a line break, with a note naming the file and its size", async () => {
    const line = `${"x".repeat(99)}\n`;
    write(join(root, "AGENTS.md"), line.repeat(1_000)); // 100,000 bytes
    const memory = await loadProjectMemory({ root, userDirectory: user, maxFileCharacters: 1_050 });
    const [file] = memory.files;
    expect(file?.truncated).toBe(true);
    expect(file?.bytes).toBe(100_000);
    const [kept, note] = (file?.text ?? "").split("\n\n[Cut: ");
    expect(kept).toBe(line.repeat(10).trimEnd()); // whole lines only
    expect(note).toBe(
      `${join(root, "AGENTS.md")} has 100,000 bytes; only its first 999 characters are included here (the limit is 1,050). Read the file for the rest.]`,
    );
    expect(memory.text).toContain("[Cut: ");
  });

  it("keeps a file at the limit whole, drops a byte-order mark, and does not cut a character in two", async () => {
    write(join(root, "AGENTS.md"), `\uFEFF${"é".repeat(10)}`);
    write(join(root, "MINAGENT.md"), "日本語".repeat(100));
    const memory = await loadProjectMemory({ root, userDirectory: user, maxFileCharacters: 10 });
    expect(memory.files[0]?.text).toBe("é".repeat(10));
    expect(memory.files[0]?.truncated).toBe(false);
    expect(memory.files[1]?.truncated).toBe(true);
    expect(memory.files[1]?.text.split("\n\n[Cut")[0]).toBe("日本語日本語日本語日");
  });

  it("reads a file reached twice through a symbolic link once", async () => {
    write(join(root, "AGENTS.md"), "shared");
    symlinkSync(join(root, "AGENTS.md"), join(root, "MINAGENT.md"));
    const memory = await loadProjectMemory({ root, userDirectory: user });
    expect(memory.files.map((file) => file.path)).toEqual([join(root, "AGENTS.md")]);
  });

  it("does not read a file whose real path is outside its folder (a link out of the project or the user's folder); lists it with why", async () => {
    write(join(base, "credentials"), "aws_secret_access_key = SECRET");
    const secret = realpathSync(join(base, "credentials"));
    symlinkSync(secret, join(root, "AGENTS.md"));
    symlinkSync(secret, join(user, "AGENTS.md"));
    mkdirSync(join(base, "elsewhere"));
    write(join(base, "elsewhere", "MINAGENT.md"), "SECRET too");
    symlinkSync(join(base, "elsewhere"), join(root, "packages", "linked"));
    // A link that stays inside is read.
    write(join(root, "packages", "notes.md"), "inside");
    symlinkSync(join(root, "packages", "notes.md"), join(root, "MINAGENT.md"));
    const memory = await loadProjectMemory({ root, cwd: join(root, "packages", "linked"), userDirectory: user });
    expect(memory.text).not.toContain("SECRET");
    expect(memory.text).toContain("inside");
    expect(memory.files.map((file) => [file.path, file.scope, file.text, file.error])).toEqual([
      [join(user, "AGENTS.md"), "user", "", `Not read: its real path, ${secret}, is outside the user's minagent folder (${user}).`],
      [join(root, "AGENTS.md"), "project", "", `Not read: its real path, ${secret}, is outside the project root (${root}).`],
      [join(root, "MINAGENT.md"), "project", "inside", undefined],
      [
        join(root, "packages", "linked", "MINAGENT.md"),
        "project",
        "",
        `Not read: its real path, ${realpathSync(join(base, "elsewhere", "MINAGENT.md"))}, is outside the project root (${root}).`,
      ],
    ]);
  });

  it("lists the files with their sizes for /memory, read afresh", async () => {
    write(join(user, "MINAGENT.md"), "12345");
    write(join(root, "AGENTS.md"), "a".repeat(200));
    expect(await listMemoryFiles({ root, userDirectory: user, maxFileCharacters: 100 })).toEqual([
      { path: join(user, "MINAGENT.md"), scope: "user", bytes: 5, truncated: false },
      { path: join(root, "AGENTS.md"), scope: "project", bytes: 200, truncated: true },
    ]);
    write(join(root, "AGENTS.md"), "b");
    expect((await listMemoryFiles({ root, userDirectory: user }))[1]?.bytes).toBe(1);
  });

  it("refuses a limit that is not a positive integer", async () => {
    await expect(loadProjectMemory({ root, userDirectory: user, maxFileCharacters: 0 })).rejects.toThrow(
      /maxFileCharacters must be a positive integer/,
    );
  });
});
