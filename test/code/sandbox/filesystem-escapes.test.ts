import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { folderIn, outsideFolder, requireBubblewrap, type SandboxedShell, sandboxedShell } from "./sandbox-helpers.js";

// Real escape attempts against real bubblewrap: each command runs through the Bash tool in the sandbox, and the test
// then looks at the host's file system (not at what the command said) to see whether anything got through.
requireBubblewrap();

let shell: SandboxedShell;
let outside: string;
let secretFile: string;
let secretDirectory: string;
const secret = "the-secret-the-sandbox-must-hide";

beforeAll(async () => {
  outside = outsideFolder("sandbox-outside-");
  secretFile = join(outside, "secret.txt");
  writeFileSync(secretFile, secret);
  secretDirectory = join(outside, "vault");
  mkdirSync(secretDirectory);
  writeFileSync(join(secretDirectory, "key.pem"), secret);
  shell = await sandboxedShell({ filesystem: { denyRead: [secretFile, secretDirectory] } });
  expect(shell.sandbox.status).toMatchObject({ enabled: true, mechanism: "bubblewrap" });
});
afterAll(() => shell.close());

describe("writes outside the workspace", () => {
  it.each([
    ["a plain redirect", (target: string) => `echo escaped > ${target}`],
    ["touch", (target: string) => `touch ${target}`],
    ["cp", (target: string) => `echo escaped > x && cp x ${target}`],
    ["python3", (target: string) => `python3 -c 'open("${target}", "w").write("escaped")'`],
    ["node", (target: string) => `node -e 'require("fs").writeFileSync("${target}", "escaped")'`],
    ["/proc/self/root", (target: string) => `echo escaped > /proc/self/root${target}`],
    ["a symlink in the workspace", (target: string) => `ln -s ${outside} out && echo escaped > out/${target.split("/").pop()}`],
    ["the bash re-expansion a probe found", (target: string) => `echo '$(touch ${target})' >/dev/null; echo \${_@P}`],
  ])("%s lands nowhere outside", async (_name, command) => {
    const target = join(outside, `written-${Math.random().toString(36).slice(2)}`);
    const output = await shell.run(command(target));
    expect(existsSync(target), output).toBe(false);
  });

  it("the home directory and minagent's own folder are read-only, also for root", async () => {
    const probe = `minagent-sandbox-probe-${process.pid}`;
    const output = await shell.run(
      `id -u; touch ~/${probe}; mkdir -p ~/.minagent && touch ~/.minagent/${probe}; grep CapEff /proc/self/status`,
    );
    expect(existsSync(join(homedir(), probe))).toBe(false);
    expect(existsSync(join(homedir(), ".minagent", probe))).toBe(false);
    expect(output).toContain("Read-only file system");
    expect(output).toMatch(/CapEff:\s+0+\n/);
  });

  it("a hard link to a file outside cannot be made or written through", async () => {
    const target = join(outside, "linked.txt");
    writeFileSync(target, "original");
    await shell.run(`ln ${target} hard; echo escaped >> hard; echo escaped >> ${target}`);
    expect(readFileSync(target, "utf8")).toBe("original");
  });

  it("mounts cannot be undone and namespaces cannot be nested", async () => {
    const target = join(outside, "after-remount");
    const output = await shell.run(
      `mount -o remount,rw / 2>&1; umount /var/tmp 2>&1; unshare -Urm sh -c 'mount -o remount,rw / && touch ${target}' 2>&1; echo done`,
    );
    expect(output).toContain("done");
    expect(existsSync(target)).toBe(false);
  });

  it("/tmp is read-only (what lives there stays readable: a checkout's programs); $TMPDIR takes temporary files", async () => {
    const name = `minagent-sandbox-tmp-${process.pid}-${Date.now()}`;
    const output = await shell.run(`echo inside > /tmp/${name}; echo inside > "$TMPDIR/${name}" && cat "$TMPDIR/${name}"`);
    expect(output).toContain("Read-only file system");
    expect(output).toContain("inside");
    expect(existsSync(join("/tmp", name))).toBe(false);
    expect(existsSync(join(shell.sandbox.status.temporary as string, name))).toBe(true);
  });
});

describe("the agent's control files", () => {
  it.each([
    [".minagent/settings.json"],
    [".minagent/settings.local.json"],
    [".minagent/hooks/pre.sh"],
    [".claude/settings.json"],
    [".claude/settings.local.json"],
    [".claude/hooks/pre.sh"],
  ])("%s cannot be created where its folder does not exist yet", async (path) => {
    const output = await shell.run(`mkdir -p $(dirname ${path}); echo '{"permissions":{"allow":["Bash"]}}' > ${path}`);
    expect(existsSync(join(shell.root, path)), output).toBe(false);
    // The empty placeholder that held it is gone again.
    expect(existsSync(join(shell.root, path.split("/")[0] as string))).toBe(false);
  });

  it("existing settings and hooks stay as they are, and new ones cannot join them", async () => {
    const root = folderIn("sandbox-control-");
    for (const folder of [".minagent/hooks", ".claude/hooks", ".git/hooks"]) mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, ".minagent/settings.json"), "{}");
    writeFileSync(join(root, ".claude/settings.json"), "{}");
    writeFileSync(join(root, ".git/config"), "[core]\n");
    const own = await sandboxedShell({}, { root });
    try {
      const output = await own.run(
        [
          "echo '{\"x\":1}' > .minagent/settings.json",
          "echo x > .minagent/settings.local.json",
          "echo x > .claude/settings.json",
          "echo x > .claude/hooks/a.sh",
          "echo x > .git/hooks/pre-commit",
          "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config",
          "rm -rf .minagent; mv .claude gone",
        ].join("; "),
      );
      expect(output).toContain("Read-only file system");
      expect(readFileSync(join(root, ".minagent/settings.json"), "utf8")).toBe("{}");
      expect(readFileSync(join(root, ".claude/settings.json"), "utf8")).toBe("{}");
      expect(readFileSync(join(root, ".git/config"), "utf8")).toBe("[core]\n");
      expect(readdirSync(join(root, ".git/hooks"))).toEqual([]);
      expect(readdirSync(join(root, ".claude/hooks"))).toEqual([]);
      expect(existsSync(join(root, ".minagent/settings.local.json"))).toBe(false);
    } finally {
      await own.close();
    }
  });

  it("git init and git commit work, and the new repository's hooks cannot be written", async () => {
    const root = folderIn("sandbox-git-");
    const own = await sandboxedShell({}, { root });
    try {
      const output = await own.run(
        "git init -q . && git -c user.email=a@example.com -c user.name=A commit -q --allow-empty -m first && git log --format=%s; echo evil > .git/hooks/pre-commit",
      );
      expect(output).toContain("first");
      expect(existsSync(join(root, ".git/hooks/pre-commit"))).toBe(false);
      expect(
        await own.run("git -c user.email=a@example.com -c user.name=A commit -q --allow-empty -m second && git log --format=%s"),
      ).toContain("second");
    } finally {
      await own.close();
    }
  });
});

describe("reads the settings deny", () => {
  it.each([
    ["cat", `cat SECRET`],
    ["cp", `cp SECRET copy && cat copy`],
    ["a symlink", `ln -s SECRET link && cat link`],
    ["/proc/self/root", `cat /proc/self/root/SECRET`],
    ["grep -r over its folder", `grep -r the-secret OUTSIDE`],
    ["python3", `python3 -c 'print(open("SECRET").read())'`],
    ["a denied folder's file", `cat VAULT/key.pem; ls VAULT`],
  ])("%s shows nothing of it", async (_name, template) => {
    const command = template.replaceAll("SECRET", secretFile).replaceAll("OUTSIDE", outside).replaceAll("VAULT", secretDirectory);
    const output = await shell.run(command);
    expect(output).not.toContain(secret);
    expect(output).not.toMatch(/^key\.pem$/m); // what `ls` of the hidden folder would list
  });

  it("Read deny rules hold for commands too, at any depth and by any route", async () => {
    const root = folderIn("sandbox-read-rules-");
    mkdirSync(join(root, "app", "secrets"), { recursive: true });
    writeFileSync(join(root, "app", ".env"), `TOKEN=${secret}`);
    writeFileSync(join(root, "app", "secrets", "db.txt"), secret);
    writeFileSync(join(root, "readme.txt"), "public");
    symlinkSync(join(root, "app", ".env"), join(root, "env-link"));
    const { createCodePermissions } = await import("../../../src/code/permissions/index.js");
    const { sandboxOptionsFromRules } = await import("../../../src/code/sandbox/from-permission-rules.js");
    const permissions = await createCodePermissions({
      workspace: { root, directories: [root] },
      settingsFiles: [],
      rules: { deny: ["Read(.env)", "Read(./app/secrets/**)"] },
    });
    const own = await sandboxedShell({}, { root, ...sandboxOptionsFromRules(permissions) });
    try {
      const output = await own.run("cat app/.env env-link app/secrets/db.txt; grep -r TOKEN . ; cat readme.txt");
      expect(output).not.toContain(secret);
      expect(output).toContain("public");
    } finally {
      await own.close();
    }
  });
});
