// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are shell command lines, not templates.
import { describe, expect, it } from "vitest";
import { createCodePermissions, type PermissionMode } from "../../../src/code/permissions/index.js";
import { permissionContext } from "../helpers/permission-context.js";

const context = permissionContext("Bash");

async function explain(mode: PermissionMode, deny: string[], command: string) {
  const permissions = await createCodePermissions({
    workspace: { root: "/w", directories: ["/w"] },
    mode,
    settingsFiles: [],
    home: "/h",
    rules: { deny },
  });
  return permissions.explain({ name: "Bash", arguments: { command } }, context.tool);
}

describe("Bash deny rules hold in bypassPermissions for lines that cannot be judged", () => {
  it.each([
    "sudo rm x",
    "xargs rm < f",
    'bash -c "rm x"',
    "r$(echo m) x",
    "eval rm x",
    "/usr/bin/env bash -c 'rm x'",
    "echo '$(rm x)' >/dev/null; echo ${_@P}",
    "echo $((x))",
    "echo ${!x}",
  ])("%j is asked, and denied in dontAsk", async (command) => {
    const bypass = await explain("bypassPermissions", ["Bash(rm:*)"], command);
    expect(bypass.decision.behavior).toBe("ask");
    expect(bypass.reason).toMatch(/cannot be judged.*deny rule/);
    expect((await explain("dontAsk", ["Bash(rm:*)"], command)).decision.behavior).toBe("deny");
  });

  it.each(["sudo rm x", "echo ${_@P}", "echo $((x))", "/usr/bin/env bash -c 'rm x'"])(
    "without Bash deny rules bypassPermissions runs %j",
    async (command) => {
      expect((await explain("bypassPermissions", ["Read(./secrets/**)"], command)).decision.behavior).toBe("allow");
    },
  );
});
