import { execFile } from "node:child_process";
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { folderIn, outsideFolder, requireBubblewrap } from "./sandbox-helpers.js";

// The same walls for an agent that does not run as root: a script runs the built package as the user `nobody`.
requireBubblewrap();
const run = promisify(execFile);
const nobody = 65534;
const isRoot = process.getuid?.() === 0;

/** Runs the attempts; a failure shows what the script said on stderr. */
async function runAttempts(file: string, args: string[], options: Parameters<typeof run>[2]): Promise<{ stdout: string }> {
  try {
    const { stdout } = await run(file, args, options);
    return { stdout: String(stdout) };
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`the attempts as nobody failed (${(error as Error).message}):\n${stderr}\n${stdout}`);
  }
}

describe.runIf(isRoot)("as an unprivileged user", () => {
  it("commands write only in the workspace, reach no network, keep nothing running, and see no credentials", async () => {
    const dist = join(process.cwd(), "dist");
    if (!existsSync(join(dist, "code", "sandbox", "create-sandbox.js"))) throw new Error("dist/ is missing: run npm run build first");
    // A copy the user can read, wherever the checkout is.
    const copy = folderIn("sandbox-nobody-");
    cpSync(dist, join(copy, "dist"), { recursive: true });
    const root = join(copy, "workspace");
    const home = join(copy, "home");
    for (const folder of [root, home]) mkdirSync(folder);
    const outside = outsideFolder("sandbox-nobody-outside-");
    for (const path of [copy, outside, root, home]) chmodSync(path, 0o777);
    chownSync(root, nobody, nobody);
    chownSync(home, nobody, nobody);
    const script = join(copy, "attempts.mjs");
    writeFileSync(
      script,
      `
import { createSandbox } from "./dist/code/sandbox/create-sandbox.js";
import { readSandboxSettings } from "./dist/code/sandbox/sandbox-settings.js";
import { createBashTool } from "./dist/code/tools/bash.js";
import { Workspace } from "./dist/code/workspace.js";
const [root, home, outside] = process.argv.slice(2);
const settings = await readSandboxSettings([], { root, home }, {});
const sandbox = await createSandbox({ settings, directories: [root], home, userDirectory: home + "/.minagent" });
const bash = createBashTool(new Workspace({ root }), { sandbox });
const context = { signal: new AbortController().signal };
const results = { status: sandbox.status.enabled };
for (const [name, command] of Object.entries({
  identity: "id -u",
  inside: "echo inside > inside.txt && cat inside.txt",
  outside: "echo escaped > " + outside + "/escaped.txt; touch ~/escaped",
  control: "mkdir -p .minagent && echo x > .minagent/settings.json",
  network: "curl -sS -m 3 --noproxy '*' http://127.0.0.1:9/ 2>&1 | head -1",
  environment: "env",
  lingering: "nohup sleep 4242 >/dev/null 2>&1 & setsid sleep 4243 & echo left",
})) results[name] = await bash.execute({ command }, context).then(String, (error) => String(error.message));
await sandbox.close();
console.log(JSON.stringify(results));
`,
    );
    const { stdout } = await runAttempts(
      "setpriv",
      ["--reuid", String(nobody), "--regid", String(nobody), "--clear-groups", process.execPath, script, root, home, outside],
      { cwd: copy, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, NOBODY_API_KEY: "sk-nobody-secret" }, timeout: 60_000 },
    );
    const results = JSON.parse(stdout.trim().split("\n").at(-1) as string) as Record<string, string | boolean>;
    expect(results.status).toBe(true);
    expect(results.identity).toMatch(/^65534\n/);
    expect(results.inside).toContain("inside");
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(home, "escaped"))).toBe(false);
    expect(existsSync(join(root, ".minagent", "settings.json"))).toBe(false);
    expect(results.network).not.toContain("HTTP/");
    expect(results.environment).not.toContain("sk-nobody-secret");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const { stdout: processes } = await run("ps", ["-eo", "args"]);
    expect(processes).not.toMatch(/sleep 424[23]/);
  });
});
