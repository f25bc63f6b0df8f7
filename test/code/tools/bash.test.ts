import { existsSync, readFileSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Sandbox } from "../../../src/code/sandbox/create-sandbox.js";
import { type BashToolOptions, createBashTool, withoutCredentials } from "../../../src/code/tools/bash.js";
import type { Workspace } from "../../../src/code/workspace.js";
import type { Tool, ToolResult } from "../../../src/index.js";
import { callTool } from "../helpers/call-tool.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

let base: string;
let root: string;
let workspace: Workspace;

beforeEach(async () => {
  ({ base, root, workspace } = await createTemporaryWorkspace("bash"));
});

afterEach(() => removeTemporaryWorkspace(base));

/** One tool for a whole test, so that the working directory carries over between its calls. */
function bashTool(options: BashToolOptions = {}) {
  const tool: Tool = createBashTool(workspace, options);
  return (args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> => callTool(tool, args, signal);
}

/** True while a process exists and is not a zombie waiting to be reaped (which is as good as gone). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return true; // no /proc (macOS): kill(0) is all we know
  }
}

async function waitUntilGone(pid: number, withinMs = 3000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

const pidIn = (text: string) => Number(/child (\d+)/.exec(text)?.[1]);

describe("Bash: running commands", () => {
  it("returns stdout and stderr in the order written, and the exit code, a failure included", async () => {
    const bash = bashTool();
    expect(await bash({ command: "echo one; echo two >&2; echo three", description: "prints" })).toEqual({
      content: "one\ntwo\nthree\n\nExit code: 0",
      isError: false,
    });
    expect(await bash({ command: "echo failing >&2; exit 3" })).toEqual({ content: "failing\n\nExit code: 3", isError: false });
    expect(await bash({ command: "true" })).toEqual({ content: "(no output)\n\nExit code: 0", isError: false });
    expect((await bash({ command: "echo (" })).content).toMatch(/^bash: eval: line 1: syntax error near unexpected token/);
    expect((await bash({ command: "echo $0 $# $1" })).content).toBe("bash 0\n\nExit code: 0");
    expect(await bash({ command: "echo a\0b" })).toEqual({
      content: "The command contains a NUL character, which no command line can hold.",
      isError: true,
    });
  });

  it("closes stdin: a command that reads gets end of file at once", async () => {
    const bash = bashTool();
    const started = performance.now();
    expect((await bash({ command: 'read line; echo "read=$? line=$line"; cat; echo done' })).content).toBe(
      "read=1 line=\ndone\n\nExit code: 0",
    );
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("keeps the head and the tail of long output, saying what was cut", async () => {
    const bash = bashTool({ maxOutputLength: 1000 });
    const { content } = await bash({ command: "seq 1 100000" });
    const [head, note, tail] = content.split(/\n\n?(\[… [^\]]+\])\n\n/);
    expect(head?.startsWith("1\n2\n3\n")).toBe(true);
    expect(head?.endsWith("\n")).toBe(false);
    expect(note).toMatch(/^\[… [\d,]+ characters \([\d,]+ line breaks\) cut from the middle of the output …\]$/);
    expect(tail?.endsWith("99999\n100000\n\nExit code: 0")).toBe(true);
    expect((head?.length ?? 0) + (tail?.length ?? 0)).toBeLessThan(1100);
  });

  it("passes the environment without credentials, unless told otherwise", async () => {
    process.env.MINAGENT_TEST_API_KEY = "sk-test";
    process.env.MINAGENT_TEST_PLAIN = "plain";
    try {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax
      const command = 'echo "${MINAGENT_TEST_API_KEY:-none} ${MINAGENT_TEST_PLAIN:-none}"';
      expect((await bashTool()({ command })).content).toBe("none plain\n\nExit code: 0");
      expect((await bashTool()({ command: "printenv GIT_EDITOR" })).content).toBe("true\n\nExit code: 0");
      expect((await bashTool({ env: process.env })({ command })).content).toBe("sk-test plain\n\nExit code: 0");
    } finally {
      delete process.env.MINAGENT_TEST_API_KEY;
      delete process.env.MINAGENT_TEST_PLAIN;
    }
    expect(
      Object.keys(
        withoutCredentials({
          ANTHROPIC_API_KEY: "x",
          GITHUB_TOKEN: "x",
          AWS_SECRET_ACCESS_KEY: "x",
          AWS_ACCESS_KEY_ID: "x",
          DB_PASSWORD: "x",
          "npm_config_//registry.npmjs.org/:_authToken": "x",
          PATH: "x",
          HOME: "x",
          SSH_AUTH_SOCK: "x",
          TOKENIZERS_PARALLELISM: "x",
          MAX_TOKENS: "x",
        }),
      ),
    ).toEqual(["PATH", "HOME", "SSH_AUTH_SOCK", "TOKENIZERS_PARALLELISM", "MAX_TOKENS"]);
  });
});

describe("Bash: the working directory", () => {
  it("carries a cd inside the workspace over to the next call, and nothing else", async () => {
    const bash = bashTool();
    expect((await bash({ command: "pwd" })).content).toBe(`${root}\n\nExit code: 0`);
    expect((await bash({ command: "mkdir -p src/deep && cd src/deep && export KEPT=no" })).content).toBe(
      "(no output)\n\nExit code: 0\n[Working directory: src/deep]",
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax
    expect((await bash({ command: 'pwd; echo "${KEPT:-gone}"' })).content).toBe(`${join(root, "src", "deep")}\ngone\n\nExit code: 0`);
    expect((await bash({ command: "cd .. && exit 4" })).content).toBe("(no output)\n\nExit code: 4\n[Working directory: src]");
    expect((await bash({ command: "pwd" })).content).toBe(`${join(root, "src")}\n\nExit code: 0`);
  });

  it("says its working directory: the workspace root until a cd inside the workspace moves it", async () => {
    const tool = createBashTool(workspace);
    const bash = (command: string) => callTool(tool, { command });
    expect(tool.workingDirectory()).toBe(root);
    await bash("mkdir -p src/deep && cd src/deep");
    expect(tool.workingDirectory()).toBe(join(root, "src", "deep"));
    await bash(`cd ${join(base, "outside")}`);
    expect(tool.workingDirectory()).toBe(join(root, "src", "deep"));
    await bash("cd ../..");
    expect(tool.workingDirectory()).toBe(root);
  });

  it("refuses a directory outside the workspace, and recovers from a deleted one", async () => {
    const bash = bashTool();
    expect((await bash({ command: `cd ${join(base, "outside")} && pwd` })).content).toBe(
      `${join(base, "outside")}\n\nExit code: 0\n[The command ended in ${join(base, "outside")}, outside the workspace; the working directory stays the workspace root.]`,
    );
    expect((await bash({ command: "pwd" })).content).toBe(`${root}\n\nExit code: 0`);
    await bash({ command: "mkdir gone && cd gone" });
    expect((await bash({ command: "cd .. && rmdir gone" })).content).toBe(
      "(no output)\n\nExit code: 0\n[Working directory: the workspace root]",
    );
    await bash({ command: "mkdir gone && cd gone" });
    await rm(join(root, "gone"), { recursive: true });
    expect((await bash({ command: "pwd" })).content).toBe(
      `${root}\n\nExit code: 0\n[The working directory gone no longer exists; the command ran in the workspace root.]`,
    );
  });
});

describe("Bash: stopping", () => {
  it("a bare wait returns when the command's own jobs are done (the tool's lifeline is not one of them)", async () => {
    const bash = bashTool();
    const started = performance.now();
    const result = await bash({ command: "sleep 0.2 & wait; echo waited", timeout: 20_000 });
    expect(result.content).toMatch(/^waited\n\nExit code: 0$/);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("a command over the system's argument limit is answered with what to do, not spawn E2BIG", async () => {
    const bash = bashTool();
    const result = await bash({ command: `echo ${"x".repeat(200_000)}` });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(
      /^The command is 200,005 bytes, over the 131,071 bytes .* Write the script to a file with the Write tool/,
    );
  });

  it("kills the whole process group on timeout and reports the output so far", async () => {
    const bash = bashTool({ killGraceMs: 500 });
    const started = performance.now();
    const result = await bash({ command: 'sleep 30 & echo "child $!"; sleep 30', timeout: 500 });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(
      /^The command timed out after 500 ms and was stopped, with everything it started\. Output so far:\nchild \d+$/,
    );
    expect(performance.now() - started).toBeLessThan(5000);
    expect(await waitUntilGone(pidIn(result.content))).toBe(true);
  });

  it("kills a child that ignores SIGTERM with SIGKILL after the grace period", async () => {
    const bash = bashTool({ killGraceMs: 300 });
    const result = await bash({ command: `bash -c 'trap "" TERM; echo "child $$"; while :; do sleep 0.05; done'`, timeout: 500 });
    expect(result.content).toContain("timed out");
    expect(await waitUntilGone(pidIn(result.content))).toBe(true);
  });

  it("kills the whole process group when the call is aborted", async () => {
    const bash = bashTool({ killGraceMs: 500 });
    const controller = new AbortController();
    const pidFile = join(root, "pid");
    const call = bash({ command: `sleep 30 & echo $! > ${pidFile}; sleep 30` }, controller.signal);
    let pid = Number.NaN;
    for (const deadline = Date.now() + 5000; Number.isNaN(pid) && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      pid = Number.parseInt(await readFile(pidFile, "utf8").catch(() => ""), 10);
    }
    expect(isAlive(pid)).toBe(true);
    controller.abort();
    await expect(call).rejects.toThrow(/abort/i);
    expect(await waitUntilGone(pid)).toBe(true);
  });

  it("a call aborted while its sandbox is being prepared never starts its command", async () => {
    const controller = new AbortController();
    let released = false;
    // A sandbox slow to prepare (its first command makes the network namespace) that confines nothing.
    const slowSandbox: Sandbox = {
      status: {
        enabled: true,
        requested: true,
        mechanism: "bubblewrap",
        problem: undefined,
        writable: [root],
        temporary: undefined,
        denyRead: [],
        allowedDomains: [],
        asksForNewDomains: false,
        unixSockets: false,
        allowUnsandboxedCommands: undefined,
      },
      confine: async ({ argv, env }) => {
        controller.abort();
        await new Promise((resolve) => setTimeout(resolve, 50));
        // A start that ignores SIGTERM, so that a command spawned after the abort would be seen to start.
        const started = `trap "" TERM; touch ${join(root, "started")}; exec "$@"`;
        return {
          file: "sh",
          args: ["-c", started, "sh", ...argv],
          env: { ...env },
          inputs: [],
          release: async () => {
            released = true;
          },
        };
      },
      confineProgram: () => Promise.reject(new Error("not used")),
      close: async () => {},
    };
    const bash = bashTool({ sandbox: slowSandbox, killGraceMs: 100 });
    await expect(bash({ command: "true" }, controller.signal)).rejects.toThrow(/abort/i);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(join(root, "started"))).toBe(false);
    expect(released).toBe(true);
  });

  it("ends what a command left running in the background when it exits", async () => {
    const bash = bashTool();
    const started = performance.now();
    const result = await bash({ command: 'sleep 30 & echo "child $!"' });
    expect(result.content).toMatch(/^child \d+\n\nExit code: 0$/);
    expect(performance.now() - started).toBeLessThan(3000);
    expect(await waitUntilGone(pidIn(result.content))).toBe(true);
  });

  // The member ignores SIGTERM and closes every pipe, so the output is complete before the post-exit grace ends;
  // The shell waits for it to be ready (trap set, pipes closed) before going on.
  const leaver =
    `(trap '' TERM; echo "child $BASHPID"; exec 3>&- 4>&- >/dev/null 2>&1; touch ready; exec -a minagent-test-leaver sleep 300) & ` +
    "until [ -e ready ]; do sleep 0.01; done;";

  it("SIGKILLs a member that ignores SIGTERM and closes its pipes, when the command exits", async () => {
    const result = await bashTool()({ command: leaver });
    const pid = pidIn(result.content);
    try {
      expect(result.content).toMatch(/^child \d+\n\nExit code: 0$/);
      expect(await waitUntilGone(pid)).toBe(true);
    } finally {
      if (isAlive(pid)) process.kill(pid, "SIGKILL");
    }
  });

  it("SIGKILLs a member that ignores SIGTERM and closes its pipes, on timeout", async () => {
    const result = await bashTool({ killGraceMs: 5000 })({ command: `${leaver} sleep 30`, timeout: 500 });
    const pid = pidIn(result.content);
    try {
      expect(result.content).toMatch(/timed out[\s\S]*\nchild \d+$/);
      expect(await waitUntilGone(pid)).toBe(true);
    } finally {
      if (isAlive(pid)) process.kill(pid, "SIGKILL");
    }
  });

  it("refuses a timeout above the maximum", async () => {
    const result = await bashTool({ maxTimeoutMs: 1000, defaultTimeoutMs: 1000 })({ command: "true", timeout: 5000 });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("timeout");
  });
});
