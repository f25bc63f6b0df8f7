// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are shell command lines, not templates.
import { beforeAll, describe, expect, it } from "vitest";
import {
  type CodePermissions,
  type CodePermissionsOptions,
  createCodePermissions,
  type PermissionMode,
  permissionModes,
} from "../../../src/code/permissions/index.js";
import type { PermissionContext, Tool } from "../../../src/index.js";
import { permissionContext } from "../helpers/permission-context.js";

// The Bash tool says whether a call runs in the OS sandbox; the permissions read it as they read workingDirectory().
type Sandboxing = "confined" | "unconfined" | "off";
const workspace = { root: "/work", directories: ["/work"] };
const withBashRules = {
  allow: ["Bash(npm test)"],
  ask: ["Bash(git push *)"],
  deny: ["Bash(curl *)", "Read(./secrets/**)", "Edit(//etc/**)"],
};
const fileRulesOnly = { deny: ["Read(./secrets/**)"] };

const bashTool = (sandboxing: Sandboxing): Tool & { sandboxing(args: Record<string, unknown>): Sandboxing } => ({
  name: "Bash",
  description: "Bash",
  parameters: { type: "object" },
  execute: () => "",
  sandboxing: () => sandboxing,
});
const context = (sandboxing: Sandboxing, needsApproval = false) => permissionContext(bashTool(sandboxing), needsApproval);

type Permissions = Record<PermissionMode, CodePermissions>;
async function inEveryMode(options: Omit<CodePermissionsOptions, "workspace">): Promise<Permissions> {
  const entries = await Promise.all(
    permissionModes.map(async (mode) => [
      mode,
      await createCodePermissions({ workspace, mode, settingsFiles: [], home: "/h", ...options }),
    ]),
  );
  return Object.fromEntries(entries) as Permissions;
}

let bashRules: Permissions;
let fileRules: Permissions;
let judgeUnsandboxed: Permissions;
beforeAll(async () => {
  bashRules = await inEveryMode({ rules: withBashRules });
  fileRules = await inEveryMode({ rules: fileRulesOnly });
  judgeUnsandboxed = await inEveryMode({ rules: withBashRules, unsandboxedCalls: "judge" });
});

const letter = { allow: "A", ask: "Q", deny: "D" } as const;
async function decisions(permissions: Permissions, sandboxing: Sandboxing, command: string): Promise<string> {
  let row = "";
  for (const mode of permissionModes) {
    const decision = await permissions[mode].canUseTool({ id: "1", name: "Bash", arguments: { command } }, context(sandboxing));
    row += letter[decision.behavior];
  }
  return row;
}

// Each row: the command, then its decision in default, acceptEdits, plan, dontAsk, bypassPermissions (A allow, Q ask, D deny).
describe("sandbox matrix: confined calls, with Bash deny and ask rules", () => {
  it.each([
    ["curl https://x.sh", "DDDDD"], // deny rules keep their force
    ["git push origin main", "QQQDQ"], // and ask rules
    ["cat secrets/key.pem", "DDDDD"],
    ["ls $(pwd)/src", "QQQDQ"], // a Read deny rule may cover what `$(…)` reaches
    ["rm -rf build", "AADDA"], // default allows it: the sandbox confines it; plan stays read-only; dontAsk allow rules only
    ["echo x > /var/y", "AADDA"], // a write outside the workspace: the sandbox refuses it if it must
    ["echo x > /etc/y", "DDDDD"],
    ["cat /etc/passwd", "AAQDA"],
    ["PATH=/tmp/evil npm test", "AADDA"],
    ["npm test", "AADAA"],
    ["eval x", "QQDDQ"], // cannot be judged, and Bash deny rules cannot see inside it: asked as without a sandbox
    ["bash -c 'x'", "QQDDQ"],
    ["echo ${_@P}", "QQDDQ"],
  ])("%j → %s", async (command, expected) => {
    expect(await decisions(bashRules, "confined", command)).toBe(expected);
  });
});

describe("sandbox matrix: confined calls, without Bash rules", () => {
  it.each([
    ["curl https://x.sh", "AADDA"],
    ["rm -rf build", "AADDA"],
    ["echo x > /etc/y", "AADDA"],
    ["eval x", "AADDA"],
    ["bash -c 'x'", "AADDA"],
    ["echo ${_@P}", "AADDA"],
    ["ls src", "AAADA"],
    ["cat secrets/key.pem", "DDDDD"],
    ["grep -r KEY .", "QQQDQ"], // a recursive read reaches the denied folder
  ])("%j → %s", async (command, expected) => {
    expect(await decisions(fileRules, "confined", command)).toBe(expected);
  });
});

describe("sandbox matrix: unconfined calls (dangerouslyDisableSandbox)", () => {
  it.each([
    ["curl https://x.sh", "DDDDD"], // deny rules deny first
    ["npm test", "QQDDQ"], // never allowed by an allow rule; plan mode stays read-only
    ["ls src", "QQQDQ"], // nor by a mode, bypassPermissions included
    ["rm -rf build", "QQDDQ"],
    ["eval x", "QQDDQ"],
    ["git push origin main", "QQDDQ"], // the ask rule asks in plan mode; outside the sandbox plan mode denies what changes things
  ])("%j → %s", async (command, expected) => {
    expect(await decisions(bashRules, "unconfined", command)).toBe(expected);
  });

  it.each([
    ["ls src", "QQQDQ"],
    ["eval x", "QQDDQ"],
  ])("without Bash rules too: %j → %s", async (command, expected) => {
    expect(await decisions(fileRules, "unconfined", command)).toBe(expected);
  });

  it.each([
    ["curl https://x.sh", "DDDDD"],
    ["npm test", "AADAA"],
    ["ls src", "AAADA"],
    ["rm -rf build", "QADDA"],
    ["eval x", "QQDDQ"],
  ])('with unsandboxedCalls: "judge", judged as without a sandbox: %j → %s', async (command, expected) => {
    const judged = await decisions(judgeUnsandboxed, "unconfined", command);
    expect(judged).toBe(expected);
    expect(await decisions(judgeUnsandboxed, "off", command)).toBe(judged);
  });
});

describe("sandbox: what the decisions say", () => {
  it("off, or a tool without sandboxing(), is judged as without a sandbox", async () => {
    for (const command of ["rm -rf build", "eval x", "npm test", "ls src"]) {
      const plain: PermissionContext = { ...context("off"), tool: { ...bashTool("off"), sandboxing: undefined } as unknown as Tool };
      const off = await bashRules.default.canUseTool({ id: "1", name: "Bash", arguments: { command } }, context("off"));
      expect(await bashRules.default.canUseTool({ id: "1", name: "Bash", arguments: { command } }, plain)).toEqual(off);
    }
    expect(await decisions(bashRules, "off", "rm -rf build")).toBe("QADDA");
  });

  it("a confined allow says the sandbox allowed it, and still asks when the tool needs approval", async () => {
    const call = { name: "Bash", arguments: { command: "rm -rf build" } };
    const explained = await bashRules.default.explain(call, bashTool("confined"));
    expect(explained.decision).toEqual({ behavior: "allow" });
    expect(explained.reason).toBe("Bash command `rm -rf build` runs in the sandbox, which default mode allows");
    expect(await bashRules.default.canUseTool({ id: "1", ...call }, context("confined", true))).toMatchObject({
      behavior: "ask",
      reason: expect.stringContaining("asks for approval"),
    });
    // An allow rule's allow is the rule's: needsApproval does not ask.
    expect(
      await bashRules.default.canUseTool({ id: "1", name: "Bash", arguments: { command: "npm test" } }, context("confined", true)),
    ).toEqual({ behavior: "allow" });
  });

  it("an unconfined ask says the call asks to run outside the sandbox; dontAsk denies it", async () => {
    const call = { name: "Bash", arguments: { command: "npm test", dangerouslyDisableSandbox: true } };
    const bypass = await bashRules.bypassPermissions.explain(call, bashTool("unconfined"));
    expect(bypass.decision).toEqual({
      behavior: "ask",
      reason: "Bash command `npm test` asks to run outside the sandbox (dangerouslyDisableSandbox), so it needs approval",
    });
    const dontAsk = await bashRules.dontAsk.explain(call, bashTool("unconfined"));
    expect(dontAsk.decision).toMatchObject({
      behavior: "deny",
      message: expect.stringMatching(/outside the sandbox.*dontAsk mode denies/),
    });
  });

  it("the tool is asked with the call's arguments", async () => {
    const seen: Record<string, unknown>[] = [];
    const tool = {
      ...bashTool("off"),
      sandboxing: (args: Record<string, unknown>) => {
        seen.push(args);
        return args.dangerouslyDisableSandbox === true ? "unconfined" : "confined";
      },
    };
    const ctx: PermissionContext = { ...context("off"), tool };
    const inside = await bashRules.default.canUseTool({ id: "1", name: "Bash", arguments: { command: "rm -rf build" } }, ctx);
    const outside = await bashRules.default.canUseTool(
      { id: "2", name: "Bash", arguments: { command: "rm -rf build", dangerouslyDisableSandbox: true } },
      ctx,
    );
    expect([inside.behavior, outside.behavior]).toEqual(["allow", "ask"]);
    expect(seen).toEqual([{ command: "rm -rf build" }, { command: "rm -rf build", dangerouslyDisableSandbox: true }]);
  });

  it("refuses an unsandboxedCalls that is neither ask nor judge", async () => {
    await expect(createCodePermissions({ workspace, settingsFiles: [], unsandboxedCalls: "allow" as unknown as "ask" })).rejects.toThrow(
      /unsandboxedCalls is "allow"; it must be "ask" or "judge"/,
    );
  });
});
