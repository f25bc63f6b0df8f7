import { describe, expect, it } from "vitest";
import { compileMatcher, HookRunner } from "../../../src/code/hooks/index.js";
import { UsageError } from "../../../src/index.js";

describe("matchers", () => {
  const matches = (matcher: string | undefined, name: string) => compileMatcher(matcher, "test")(name);

  it("omitted, empty and * match every tool", () => {
    for (const matcher of [undefined, "", "*"]) expect([matches(matcher, "Bash"), matches(matcher, "mcp__x__y")]).toEqual([true, true]);
  });

  it("a plain name matches that tool exactly, case-sensitive", () => {
    expect([matches("Bash", "Bash"), matches("Bash", "BashOutput"), matches("Bash", "bash"), matches("Bash", "MyBash")]).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });

  it("| separates exact alternatives", () => {
    expect(["Edit", "Write", "NotebookEdit", "Read"].map((name) => matches("Edit|Write", name))).toEqual([true, true, false, false]);
  });

  it("anything else is a regular expression searched in the name, as in Claude Code", () => {
    expect(["Notebook", "NotebookEdit", "Edit"].map((name) => matches("Notebook.*", name))).toEqual([true, true, false]);
    expect(["mcp__github__issue", "my_mcp__x"].map((name) => matches("^mcp__", name))).toEqual([true, false]);
    expect(["Bash", "BashOutput"].map((name) => matches("^Bash$", name))).toEqual([true, false]);
  });

  it("an invalid expression is refused when the runner is made, naming the entry", () => {
    const make = () =>
      new HookRunner({
        sessionId: "s",
        cwd: "/",
        settings: { hooks: { PreToolUse: [{ matcher: "Bash(", hooks: [{ type: "command", command: "true" }] }] } },
      });
    expect(make).toThrow(UsageError);
    expect(make).toThrow(/settings\[0\]\.hooks\.PreToolUse\[0\]\.matcher "Bash\(" is not a valid regular expression/);
  });
});
