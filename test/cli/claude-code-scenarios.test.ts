import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { answer, anthropicEnv, callTool, printArgs, runCode, sentMessages, useCodeFixture } from "./code-helpers.js";

// Claude Code's own scenarios that minagent code failed only on semantics (issue 21): scripts written for
// `claude -p … --allowedTools Bash,Read` must run the same here.

const fixture = useCodeFixture();

/** The tool results the model read in the request at `index`. */
function toolResults(index: number): string[] {
  return sentMessages(fixture.server.requests[index]?.body)
    .flatMap((message) => message.content)
    .filter((text) => text.startsWith("tool_result: "));
}

describe("Claude Code's scenarios under --allowedTools Bash,Read", () => {
  test("a redirection inside the workspace runs under a bare Bash rule", async () => {
    fixture.server.reply(callTool("b1", "Bash", { command: "echo hello > out.txt" }), answer("Written."));
    const outcome = await runCode(printArgs(fixture, "Write hello to out.txt", "--allowedTools", "Bash,Read"), anthropicEnv(fixture));
    expect(outcome).toMatchObject({ exit: 0, stdout: "Written.\n" });
    expect(await readFile(join(fixture.workspace, "out.txt"), "utf8")).toBe("hello\n");
  });

  test("sh -c '…' runs under a bare Bash rule", async () => {
    fixture.server.reply(callTool("b1", "Bash", { command: "sh -c 'echo from-sh > sh.txt'" }), answer("Done."));
    const outcome = await runCode(printArgs(fixture, "Run the script", "--allowedTools", "Bash,Read"), anthropicEnv(fixture));
    expect(outcome).toMatchObject({ exit: 0, stdout: "Done.\n" });
    expect(await readFile(join(fixture.workspace, "sh.txt"), "utf8")).toBe("from-sh\n");
  });

  test("beside a Bash deny rule, sh -c '…' is not run unjudged: a deny rule cannot be dodged through a shell string", async () => {
    fixture.server.reply(callTool("b1", "Bash", { command: "sh -c 'rm notes.txt'" }), answer("Not done."));
    const outcome = await runCode(
      printArgs(fixture, "Remove the notes", "--allowedTools", "Bash,Read", "--disallowedTools", "Bash(rm:*)"),
      anthropicEnv(fixture),
    );
    expect(outcome.exit).toBe(0);
    expect(await readFile(join(fixture.workspace, "notes.txt"), "utf8")).toBe("The answer is 42.\n");
    expect(toolResults(1).at(-1)).toContain("so the deny rule `Bash(rm:*)` (options.rules) cannot be checked");
  });

  test("a whole 1,000-line, 60 KB file comes back from one Read", async () => {
    const lines = Array.from({ length: 1_000 }, (_, index) => `export const value${index + 1} = "${"x".repeat(40)}"; // line ${index + 1}`);
    await writeFile(join(fixture.workspace, "big.ts"), `${lines.join("\n")}\n`);
    fixture.server.reply(callTool("r1", "Read", { file_path: "big.ts" }), answer("Read it."));
    const outcome = await runCode(printArgs(fixture, "Read big.ts", "--allowedTools", "Bash,Read"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    const [result] = toolResults(1);
    expect(result).toContain("// line 1000");
    expect(result).not.toMatch(/offset=/);
    expect(fixture.server.requests).toHaveLength(2);
  });
});
