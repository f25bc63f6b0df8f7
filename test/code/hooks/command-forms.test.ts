import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HookRunner, type HookRunReport } from "../../../src/code/hooks/index.js";
import { eventually, makeScriptFolder } from "./scripts.js";

let folder: Awaited<ReturnType<typeof makeScriptFolder>>;
beforeEach(async () => {
  folder = await makeScriptFolder();
});
afterEach(() => folder.remove());

describe("command hooks as Claude Code writes them", () => {
  it("exec form (args): the program runs with each argument as written, no shell, the project folder put in", async () => {
    await writeFile(
      join(folder.dir, "record-args.mjs"),
      `import { writeFileSync } from "node:fs";\nwriteFileSync("args.json", JSON.stringify(process.argv.slice(2)));\n`,
    );
    const runner = new HookRunner({
      sessionId: "s",
      cwd: folder.dir,
      settingsFiles: [
        {
          path: join(folder.dir, ".claude", "settings.json"),
          settings: {
            hooks: {
              PostToolUse: [
                {
                  matcher: "Write",
                  hooks: [
                    { type: "command", command: process.execPath, args: [`\${CLAUDE_PROJECT_DIR}/record-args.mjs`, "it's $HOME", "a|b"] },
                  ],
                },
              ],
            },
          },
        },
      ],
    });
    await runner.runPostToolUseHooks({ toolUseId: "w1", toolName: "Write", toolInput: { file_path: "a.txt" }, toolResponse: "ok" });
    expect(JSON.parse(await folder.read("args.json"))).toEqual(["it's $HOME", "a|b"]);
  });

  it("async: the agent does not wait, nothing it answers is read, and it still runs to its end", async () => {
    const reports: HookRunReport[] = [];
    const runner = new HookRunner({
      sessionId: "s",
      cwd: folder.dir,
      hooks: {
        PostToolUse: [
          {
            hooks: [
              { type: "command", command: `sleep 1; touch tests-done; echo '{"decision":"block","reason":"tests failed"}'`, async: true },
            ],
          },
        ],
      },
      onHookRun: (report) => reports.push(report),
    });
    const started = Date.now();
    const outcome = await runner.runPostToolUseHooks({ toolUseId: "w1", toolName: "Write", toolInput: {}, toolResponse: "Wrote a.txt" });
    expect(Date.now() - started).toBeLessThan(800);
    expect(outcome).toEqual({ response: "Wrote a.txt" });
    expect(await eventually(async () => (await folder.read("tests-done").catch(() => undefined)) !== undefined, 5_000)).toBe(true);
    expect(await eventually(() => reports.length === 1, 2_000)).toBe(true);
  });

  it("two exec-form hooks of the same program with other arguments are two hooks: the second, a guard, still runs", async () => {
    await writeFile(join(folder.dir, "ok.mjs"), "process.exit(0);\n");
    await writeFile(join(folder.dir, "guard.mjs"), 'process.stderr.write("no deletes"); process.exit(2);\n');
    const runner = new HookRunner({
      sessionId: "s",
      cwd: folder.dir,
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "command", command: process.execPath, args: [join(folder.dir, "ok.mjs")] },
              { type: "command", command: process.execPath, args: [join(folder.dir, "guard.mjs")] },
            ],
          },
        ],
      },
    });
    const outcome = await runner.runPreToolUseHooks({ id: "b1", name: "Bash", arguments: { command: "rm -rf /" } });
    expect(outcome).toMatchObject({ decision: "deny" });
  });
});
