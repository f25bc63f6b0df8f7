import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { writeCommandProject, writeFiles } from "../code/custom-commands-fixtures.js";
import { answer, anthropicEnv, printArgs, requestBody, runCode, sentMessages, useCodeFixture } from "./code-helpers.js";

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
});
