import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { writeCommandProject, writeFiles } from "../code/custom-commands-fixtures.js";
import {
  answer,
  anthropicEnv,
  callTool,
  printArgs,
  requestBody,
  runCode,
  sentMessages,
  sessionFiles,
  useCodeFixture,
} from "./code-helpers.js";

// `minagent code -p "/name args"`: the custom command's prompt is what the model is sent.

const fixture = useCodeFixture();

async function project(): Promise<void> {
  await writeCommandProject(fixture.workspace, join(fixture.home, "claude"));
}

describe("minagent code -p with custom commands", () => {
  test('-p "/review src/a.ts" sends the expanded prompt: the argument in place, the git line\'s output; the bad file is said once', async () => {
    await project();
    fixture.server.reply(answer("Two small issues."));
    const outcome = await runCode(printArgs(fixture, "/review src/a.ts", "--no-sandbox"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    expect(outcome.stdout).toBe("Two small issues.\n");
    const deploy = join(fixture.workspace, ".claude/commands/deploy.md");
    expect(outcome.stderr).toMatch(
      new RegExp(`^minagent code: Custom command file ${deploy}, line 2: invalid YAML .*\\(skipped: fix its front matter to use it\\)\\n$`),
    );
    const [sent] = sentMessages(requestBody(fixture, 0));
    expect(sent?.role).toBe("user");
    expect(sent?.content[0]).toMatch(/^## Context\n\n- What changed: {1,2}src\/a\.ts \| 3 \+\+-\n 1 file changed/);
    expect(sent?.content[0]).toContain("## Your task\n\nReview the changes to src/a.ts for bugs, unclear names and missing tests.");
  });

  test("a namespaced command by its full name, and the user's own command, run from -p too", async () => {
    await project();
    fixture.server.reply(answer("Scaffolded."), answer("Notes drafted."));
    const component = await runCode(printArgs(fixture, '/frontend:component Card "list item"', "--no-sandbox"), anthropicEnv(fixture));
    expect(component.exit).toBe(0);
    expect(sentMessages(requestBody(fixture, 0))[0]?.content[0]).toMatch(
      /^Create a React list item component named Card in src\/components\/Card\.tsx/,
    );
    const standup = await runCode(printArgs(fixture, "/standup", "--no-sandbox"), anthropicEnv(fixture));
    expect(standup.exit).toBe(0);
    // The commit made a moment ago is yesterday's or later: git log lists it.
    expect(sentMessages(requestBody(fixture, 1))[0]?.content[0]).toMatch(
      /^Yesterday's commits:\n[0-9a-f]{7,} add\n[0-9a-f]{7,} start\n\nDraft three/,
    );
  });

  test("a shell line that needs approval does not run in -p: said on stderr, a note in the prompt, a denial in the JSON result", async () => {
    await project();
    await writeFiles(fixture.workspace, { ".minagent/commands/scaffold.md": "Prepared: !`touch made-by-command.txt`\nNow fill it in." });
    fixture.server.reply(answer("I could not prepare it."));
    const outcome = await runCode(printArgs(fixture, "/scaffold", "--no-sandbox", "--output-format", "json"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    expect(outcome.stderr).toContain(
      "minagent code: !`touch made-by-command.txt` did not run: Not approved: this Bash call needs a person's approval",
    );
    expect(existsSync(join(fixture.workspace, "made-by-command.txt"))).toBe(false);
    expect(sentMessages(requestBody(fixture, 0))[0]?.content[0]).toMatch(
      /^Prepared: \[!`touch made-by-command\.txt` did not run: Not approved: .*\]\nNow fill it in\.$/,
    );
    const result = JSON.parse(outcome.stdout);
    expect(result.permission_denials).toEqual([
      expect.objectContaining({ tool_name: "Bash", tool_input: expect.objectContaining({ command: "touch made-by-command.txt" }) }),
    ]);
  });

  test("an unknown /name exits 2 naming the commands there are, before any model call; a path is a prompt", async () => {
    await project();
    const unknown = await runCode(printArgs(fixture, "/reveiw src/a.ts", "--no-sandbox"), anthropicEnv(fixture));
    expect(unknown.exit).toBe(2);
    expect(unknown.stderr).toContain(
      "minagent code: unknown command /reveiw: the custom commands are /explain, /frontend:component, /help, /review, /standup; the interactive session's own commands (/help, /clear…) do not run with -p.",
    );
    expect(fixture.server.requests).toHaveLength(0);

    fixture.server.reply(answer("It is in /usr/bin."), answer("It exists."));
    const path = await runCode(printArgs(fixture, "/usr/bin/env is missing on this machine?", "--no-sandbox"), anthropicEnv(fixture));
    expect(path.exit).toBe(0);
    expect(sentMessages(requestBody(fixture, 0))).toEqual([{ role: "user", content: ["/usr/bin/env is missing on this machine?"] }]);
    // A single word that names something on disk is a prompt too.
    const tmp = await runCode(printArgs(fixture, "/tmp holds what?", "--no-sandbox"), anthropicEnv(fixture));
    expect(tmp.exit).toBe(0);
    expect(sentMessages(requestBody(fixture, 1))).toEqual([{ role: "user", content: ["/tmp holds what?"] }]);
  });

  test("a command's \"model: haiku\" answers its run on Haiku; the session's --model answers the next prompt, which reads it all", async () => {
    await writeFiles(fixture.workspace, { ".claude/commands/fix.md": "---\nmodel: haiku\n---\nFix issue #$0 in notes.txt." });
    fixture.server.reply(callTool("r1", "Read", { file_path: "notes.txt" }), answer("Fixed #42."), answer("Nothing else."));
    const sonnet = ["--model", "anthropic:claude-sonnet-4-6", "--cwd", fixture.workspace, "--no-sandbox"];
    const fixed = await runCode(["-p", "/fix 42", ...sonnet], anthropicEnv(fixture));
    expect(fixed.exit).toBe(0);
    expect(fixed.stdout).toBe("Fixed #42.\n");
    // Both of the command's calls, its tool call's turn too; no warning: the session's provider has a Haiku.
    const model = (index: number) => requestBody<{ model: string }>(fixture, index).model;
    expect([model(0), model(1)]).toEqual(["claude-haiku-4-5", "claude-haiku-4-5"]);
    expect(fixed.stderr).toBe("");

    const next = await runCode(["-p", "Anything else?", "--continue", ...sonnet], anthropicEnv(fixture));
    expect(next.exit).toBe(0);
    expect(model(2)).toBe("claude-sonnet-4-6");
    expect(sentMessages(requestBody(fixture, 2))[0]?.content[0]).toBe("Fix issue #42 in notes.txt.");
    // The session file says which model answered: the header the first run's, a `model` line when it changed.
    const [file] = Object.values(await sessionFiles(fixture));
    const lines = (file ?? "")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines[0]?.model).toEqual({ provider: "anthropic", modelId: "claude-haiku-4-5" });
    expect(lines.filter((line) => line.type === "model").map((line) => line.model)).toEqual([
      { provider: "anthropic", modelId: "claude-sonnet-4-6" },
    ]);
  });

  test("the cost of a command's run is priced as the model that made it, not the session's", async () => {
    await writeFiles(fixture.workspace, { ".claude/commands/fix.md": "---\nmodel: claude-3-5-haiku-20241022\n---\nFix issue #$0." });
    fixture.server.reply(answer("Fixed #42.", { input_tokens: 1000, output_tokens: 200 }));
    const args = ["-p", "/fix 42", "--model", "anthropic:claude-sonnet-4-5", "--cwd", fixture.workspace, "--no-sandbox"];
    const outcome = await runCode([...args, "--output-format", "json", "--max-budget-usd", "0.01"], anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    // An Anthropic session sends a Claude id as written.
    expect(requestBody<{ model: string }>(fixture, 0).model).toBe("claude-3-5-haiku-20241022");
    // claude-3-5-haiku: $0.80 in, $4 out per million tokens (Sonnet 4.5's $3 and $15 would be $0.006).
    expect(JSON.parse(outcome.stdout)).toMatchObject({ status: "completed", total_cost_usd: 0.0016 });
  });
});
