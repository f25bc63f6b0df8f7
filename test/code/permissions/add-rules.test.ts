import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCodePermissions } from "../../../src/code/permissions/index.js";
import { UsageError } from "../../../src/index.js";
import { permissionContext } from "../helpers/permission-context.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

let base: string;
let root: string;

beforeEach(async () => {
  ({ base, root } = await createTemporaryWorkspace("add-rules"));
});

afterEach(() => removeTemporaryWorkspace(base));

const create = (rules?: { allow?: string[]; ask?: string[]; deny?: string[] }) =>
  createCodePermissions({ workspace: { root, directories: [root] }, settingsFiles: [], rules });
const bash = (command: string) => ({ id: "c", name: "Bash", arguments: { command } });

describe("rules added at run time (a session's 'don't ask again')", () => {
  it("are judged by canUseTool from then on, and listed with their source", async () => {
    const permissions = await create();
    expect(await permissions.canUseTool(bash("npm test"), permissionContext())).toMatchObject({ behavior: "ask" });
    permissions.addRules({ allow: ["Bash(npm test)"] }, "this session");
    expect(await permissions.canUseTool(bash("npm test"), permissionContext())).toEqual({ behavior: "allow" });
    expect((await permissions.explain(bash("npm test"))).rule).toEqual({ text: "Bash(npm test)", list: "allow", source: "this session" });
    // Added once, however often.
    permissions.addRules({ allow: ["Bash(npm test)"] }, "this session");
    expect(permissions.settings.rules.allow.map((rule) => `${rule.text} ${rule.source}`)).toEqual(["Bash(npm test) this session"]);
  });

  it("saved to a settings file, are that file's, and the file is listed as read", async () => {
    const permissions = await create();
    expect(permissions.settings.files).toEqual([]);
    permissions.addRules({ allow: ["Bash(mkdir out)"] }, "/p/.minagent/settings.local.json", { settingsFile: true });
    permissions.addRules({ allow: ["Bash(ls)"] }, "/p/.minagent/settings.local.json", { settingsFile: true });
    expect(permissions.settings.files).toEqual(["/p/.minagent/settings.local.json"]);
    expect(permissions.settings.rules.allow.map((rule) => rule.source)).toEqual([
      "/p/.minagent/settings.local.json",
      "/p/.minagent/settings.local.json",
    ]);
    // A session's rules name no file.
    permissions.addRules({ allow: ["Bash(pwd)"] }, "this session");
    expect(permissions.settings.files).toEqual(["/p/.minagent/settings.local.json"]);
  });

  it("never beat a deny or ask rule of the settings", async () => {
    const permissions = await create({ deny: ["Bash(rm:*)"], ask: ["Bash(git push:*)"] });
    permissions.addRules({ allow: ["Bash(rm -rf build)", "Bash(git push origin main)"] }, "this session");
    expect(await permissions.canUseTool(bash("rm -rf build"), permissionContext())).toMatchObject({ behavior: "deny" });
    expect(await permissions.canUseTool(bash("git push origin main"), permissionContext())).toMatchObject({ behavior: "ask" });
  });

  it("a malformed rule is a UsageError naming its source, and none of the rules given with it is added", async () => {
    const permissions = await create();
    expect(() => permissions.addRules({ allow: ["Read", "Bash("] }, "this session")).toThrow(UsageError);
    expect(() => permissions.addRules({ allow: ["Bash("] }, "this session")).toThrow(
      /Invalid permission rule "Bash\(" in "allow" of this session/,
    );
    expect(permissions.settings.rules.allow).toEqual([]);
  });

  it("explain answers what other allow rules would decide, or a tool that asks, without changing the rules in force", async () => {
    const permissions = await create();
    const edit = { name: "Edit", arguments: { file_path: "src/a.ts", old_string: "a", new_string: "b" } };
    expect((await permissions.explain(edit, undefined, { allowRules: ["Edit(/src/**)"] })).decision).toEqual({ behavior: "allow" });
    expect((await permissions.explain(edit)).decision).toMatchObject({ behavior: "ask" });
    const read = { name: "Read", arguments: { file_path: "src/a.ts" } };
    expect((await permissions.explain(read)).decision).toEqual({ behavior: "allow" });
    // default mode allows the read; a tool asking for approval makes only a rule allow it.
    expect((await permissions.explain(read, undefined, { needsApproval: true })).decision).toMatchObject({ behavior: "ask" });
    expect((await permissions.explain(read, undefined, { needsApproval: true, allowRules: ["Read(/src/**)"] })).decision).toEqual({
      behavior: "allow",
    });
  });
});
