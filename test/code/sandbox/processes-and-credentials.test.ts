import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { folderIn, processCommandLines, requireBubblewrap, type SandboxedShell, sandboxedShell } from "./sandbox-helpers.js";

requireBubblewrap();

const credential = "sk-test-credential-the-agent-holds";
let shell: SandboxedShell;
let added: string;

beforeAll(async () => {
  // The agent's own environment holds a key, as a real session's does.
  process.env.MINAGENT_SANDBOX_TEST_API_KEY = credential;
  added = folderIn("sandbox-added-");
  shell = await sandboxedShell({}, { additionalDirectories: [added] });
});
afterAll(async () => {
  delete process.env.MINAGENT_SANDBOX_TEST_API_KEY;
  await shell.close();
});

describe("what a command starts", () => {
  it("ends with it: background jobs, nohup, setsid and double forks are gone within a second of the result", async () => {
    const tag = `${process.pid}${Date.now() % 100_000}`;
    const output = await shell.run(
      [
        `sleep 1${tag}1 &`,
        `nohup sleep 1${tag}2 >/dev/null 2>&1 &`,
        `setsid sleep 1${tag}3 &`,
        `( ( sleep 1${tag}4 & ) & )`,
        `python3 -c 'import os, time\nif os.fork() == 0:\n  os.setsid()\n  if os.fork() == 0: os.execvp("sleep", ["sleep", "1${tag}5"])' &`,
        "sleep 0.3; echo started",
      ].join("\n"),
    );
    expect(output).toContain("started");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(processCommandLines().filter((line) => line.includes(tag))).toEqual([]);
  });

  it("a bare wait returns once the command's own jobs are done", async () => {
    const started = Date.now();
    const output = await shell.run("sleep 0.2 & wait; echo waited");
    expect(output).toContain("waited");
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe("the agent's credentials", () => {
  it("are in no command's environment, nor in any /proc/<pid>/environ it can read, minagent's own included", async () => {
    const output = await shell.run(
      `env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; cat /proc/${process.pid}/environ 2>&1; cat /proc/${process.ppid}/environ 2>&1; ls /proc | grep -c '^[0-9]'`,
    );
    expect(output).not.toContain(credential);
    // Only the command's own processes are there to see.
    const count = Number(
      output
        .trim()
        .split("\n")
        .filter((line) => /^\d+$/.test(line))
        .at(-1),
    );
    expect(count).toBeLessThan(10);
  });
});

describe("what must keep working inside", () => {
  it("writes in the workspace and its added directories, python3 and node, mktemp in TMPDIR", async () => {
    const output = await shell.run(
      [
        "echo made > made.txt",
        `echo added > ${join(added, "added.txt")}`,
        `python3 -c 'print("py", 6 * 7)'`,
        `node -e 'console.log("node", 6 * 7)'`,
        'file=$(mktemp) && echo temporary > "$file" && cat "$file" && echo "$file"',
      ].join(" && "),
    );
    expect(output).toContain("py 42");
    expect(output).toContain("node 42");
    expect(output).toContain("temporary");
    expect(readFileSync(join(shell.root, "made.txt"), "utf8")).toBe("made\n");
    expect(readFileSync(join(added, "added.txt"), "utf8")).toBe("added\n");
    const temporaryFile = output.split("\n").find((line) => line.startsWith(shell.sandbox.status.temporary as string));
    expect(temporaryFile && existsSync(temporaryFile)).toBe(true);
  });

  it("cd carries over inside the workspace, as unconfined", async () => {
    mkdirSync(join(shell.root, "src"), { recursive: true });
    expect(await shell.run("cd src")).toContain("Working directory: src");
    expect(await shell.run("pwd")).toContain(join(shell.root, "src"));
    await shell.run(`cd ${shell.root}`);
  });
});
