import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCodePermissions, loadPermissionSettings, permissionSettingsFiles } from "../../../src/code/permissions/index.js";
import { UsageError } from "../../../src/index.js";
import { permissionContext } from "../helpers/permission-context.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

let base: string;
let root: string;
let home: string;
let userFile: string;
let projectFile: string;
let localFile: string;

beforeEach(async () => {
  ({ base, root } = await createTemporaryWorkspace("permissions"));
  home = join(base, "home");
  await mkdir(join(root, ".minagent"), { recursive: true });
  await mkdir(join(home, ".minagent"), { recursive: true });
  // minagent's files (each level's second: Claude Code's comes first, and ours wins over it).
  [, userFile, , projectFile, , localFile] = permissionSettingsFiles({ root, home }) as string[] as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
});

afterEach(async () => {
  await removeTemporaryWorkspace(base);
});

const write = (file: string, settings: unknown) => writeFile(file, typeof settings === "string" ? settings : JSON.stringify(settings));
const workspace = () => ({ root, directories: [root] });
const context = permissionContext("Bash");

describe("settings files", () => {
  it("are the user's, the project's and the local files, least specific first, Claude Code's before ours at each level", () => {
    expect(permissionSettingsFiles({ root: "/p", home: "/h" })).toEqual([
      "/h/.claude/settings.json",
      "/h/.minagent/settings.json",
      "/p/.claude/settings.json",
      "/p/.minagent/settings.json",
      "/p/.claude/settings.local.json",
      "/p/.minagent/settings.local.json",
    ]);
  });

  it("merge their lists (each rule keeps its file) and the most specific defaultMode wins", async () => {
    await write(userFile, { permissions: { allow: ["Bash(ls:*)"], deny: ["Bash(curl *)"], defaultMode: "plan" } });
    await write(projectFile, { permissions: { allow: ["Bash(npm test)"], ask: ["Bash(git push *)"], defaultMode: "acceptEdits" } });
    await write(localFile, { permissions: { deny: ["Read(./.env)"], defaultMode: "dontAsk" } });
    const permissions = await createCodePermissions({ workspace: workspace(), home, rules: { allow: ["Bash(make)"] } });
    const { rules, files } = permissions.settings;
    expect(files).toEqual([userFile, projectFile, localFile]);
    expect(rules.allow.map((rule) => [rule.text, rule.source])).toEqual([
      ["Bash(ls:*)", userFile],
      ["Bash(npm test)", projectFile],
      ["Bash(make)", "options.rules"],
    ]);
    expect(rules.deny.map((rule) => rule.source)).toEqual([userFile, localFile]);
    expect(permissions.mode).toBe("dontAsk");
    const denied = await permissions.canUseTool({ id: "1", name: "Bash", arguments: { command: "curl x" } }, context);
    expect(denied).toMatchObject({ behavior: "deny", message: expect.stringContaining(`\`Bash(curl *)\` (${userFile})`) });
  });

  it("a deny anywhere beats an allow anywhere: a project cannot allow what the user denies", async () => {
    await write(userFile, { permissions: { deny: ["Bash(npm publish:*)"] } });
    await write(localFile, { permissions: { allow: ["Bash(npm publish)"] } });
    const permissions = await createCodePermissions({ workspace: workspace(), home });
    expect(await permissions.canUseTool({ id: "1", name: "Bash", arguments: { command: "npm publish" } }, context)).toMatchObject({
      behavior: "deny",
    });
  });

  it("the mode given in code wins over every file's; without any, the mode is default", async () => {
    await write(localFile, { permissions: { defaultMode: "bypassPermissions" } });
    expect((await createCodePermissions({ workspace: workspace(), home, mode: "plan" })).mode).toBe("plan");
    expect((await createCodePermissions({ workspace: workspace(), home, settingsFiles: [] })).mode).toBe("default");
    await write(projectFile, { permissions: { defaultMode: "acceptEdits" } });
    await rm(localFile);
    expect((await createCodePermissions({ workspace: workspace(), home })).mode).toBe("acceptEdits");
  });

  it("missing files are skipped; other keys and an absent permissions object are ignored", async () => {
    await write(projectFile, { hooks: {}, env: { A: "1" } });
    const permissions = await createCodePermissions({ workspace: workspace(), home });
    expect(permissions.settings.files).toEqual([projectFile]);
    expect(permissions.settings.rules).toEqual({ allow: [], ask: [], deny: [] });
  });

  it("`/path` rules start at the workspace root and `~/` at home, whichever file they are in", async () => {
    await write(userFile, { permissions: { deny: ["Read(/private/**)", "Read(~/.aws/**)"] } });
    const permissions = await createCodePermissions({ workspace: workspace(), home });
    expect(permissions.isReadDenied(join(root, "private", "a.txt"))).toBe(true);
    expect(permissions.isReadDenied(join(home, ".aws", "credentials"))).toBe(true);
    expect(permissions.isReadDenied(join(home, "private", "a.txt"))).toBe(false);
  });

  it("additionalDirectories join the workspace: relative ones from the root, ~/ from home", async () => {
    await write(projectFile, { permissions: { additionalDirectories: ["../shared", "~/lib", "/opt/data"] } });
    const permissions = await createCodePermissions({ workspace: workspace(), home });
    expect(permissions.directories).toEqual([root, join(base, "shared"), join(home, "lib"), "/opt/data"]);
    const read = (file_path: string) =>
      permissions.canUseTool({ id: "1", name: "Read", arguments: { file_path } }, { ...context, tool: { ...context.tool, name: "Read" } });
    expect(await read(join(base, "shared", "a.ts"))).toEqual({ behavior: "allow" });
    expect(await read(join(base, "other", "a.ts"))).toMatchObject({ behavior: "ask" });
  });
});

describe("malformed settings are load errors that name the file", () => {
  it.each([
    ["{ not json", /The settings file .*settings\.local\.json is not valid JSON: line 1, column 3: this is not JSON/],
    [
      '{\n  "permissions": {\n    "deny": ["Read(./.env)",]\n  }\n}\n',
      /is not valid JSON: line 3, column 29: a value was expected here \(a trailing comma\?\)/,
    ],
    ['{\n  // my rules\n  "permissions": {}\n}', /is not valid JSON: line 2, column 3: comments are not allowed in JSON/],
    ["", /is not valid JSON: the file is empty \(write \{\} for a file with no settings\)/],
    ["[1, 2]", /must hold a JSON object, got an array/],
    [{ permissions: [] }, /"permissions" in .*settings\.local\.json must be an object, got an array/],
    [{ permissions: { allow: "Bash" } }, /"permissions\.allow" in .* must be an array of rules, got string/],
    [
      { permissions: { deny: ["Bash(rm -rf /"] } },
      /Invalid permission rule "Bash\(rm -rf \/" in "deny" of .*settings\.local\.json: the specifier must end/,
    ],
    [{ permissions: { ask: ["Read()"] } }, /Invalid permission rule "Read\(\)" in "ask" of .*settings\.local\.json/],
    [{ permissions: { allow: [7] } }, /Invalid permission rule 7 in "allow"/],
    [
      { permissions: { defaultMode: "yolo" } },
      /"permissions\.defaultMode" in .* is "yolo"; it must be one of default, acceptEdits, plan, dontAsk, bypassPermissions/,
    ],
    [{ permissions: { additionalDirectories: "../x" } }, /"permissions\.additionalDirectories" in .* must be an array of directory paths/],
  ])("%j", async (settings, message) => {
    await write(localFile, settings);
    const error = await createCodePermissions({ workspace: workspace(), home }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain(localFile);
  });

  it("a malformed rule given in code names options.rules", async () => {
    await expect(
      createCodePermissions({ workspace: workspace(), home, settingsFiles: [], rules: { allow: ["Bash(x:* y)"] } }),
    ).rejects.toThrow(/Invalid permission rule "Bash\(x:\* y\)" in "allow" of options\.rules/);
  });

  it("an invalid mode given in code is refused", async () => {
    await expect(createCodePermissions({ workspace: workspace(), home, mode: "auto" as never })).rejects.toThrow(/options\.mode is "auto"/);
  });

  it("an unreadable file is an error too (a directory where the file should be)", async () => {
    await mkdir(localFile);
    await expect(loadPermissionSettings([localFile], { root, home })).rejects.toThrow(
      /Cannot read the settings file .*settings\.local\.json/,
    );
  });
});

describe("a rule for a tool minagent does not have", () => {
  it("is skipped with a warning naming the file and the rule in a settings file, and the file's other rules apply", async () => {
    await write(localFile, { permissions: { deny: ["FooTool(x)", "Read(./.env)"], allow: ["Computer(screen)"] } });
    const permissions = await createCodePermissions({ workspace: workspace(), home });
    expect(permissions.settings.warnings).toEqual([
      `${localFile}: the allow rule "Computer(screen)" is for a tool minagent does not have (Computer); skipped`,
      `${localFile}: the deny rule "FooTool(x)" is for a tool minagent does not have (FooTool); skipped`,
    ]);
    expect(permissions.settings.rules.deny.map((rule) => rule.text)).toEqual(["Read(./.env)"]);
  });

  it("is an error when given in code, and a specifier on a tool minagent has that takes none is always an error", async () => {
    await expect(createCodePermissions({ workspace: workspace(), home, rules: { allow: ["FooTool(x)"] } })).rejects.toThrow(
      /for a tool minagent does not have \(FooTool\)/,
    );
    await write(localFile, { permissions: { allow: ["TodoWrite(x)"] } });
    await expect(createCodePermissions({ workspace: workspace(), home })).rejects.toThrow(/TodoWrite takes no specifier/);
  });
});
