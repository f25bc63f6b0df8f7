// A coding agent fixes a failing test in a sample project: the real tools on a real copy of the project,
// the real permission system and Bash, and a scripted model (FakeModel) standing in for a real one.
//   node examples/fix-failing-test/fix-failing-test.mjs
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeModel } from "minagent";
import { CodingAgent } from "minagent/code";
import { reply, toolCall } from "minagent/testing";

const project = mkdtempSync(join(tmpdir(), "sample-math-"));
cpSync(new URL("./project/", import.meta.url), project, { recursive: true });

// What a model would do: run the tests, read the code, fix it, run the tests again, report.
const model = new FakeModel([
  reply("Let me run the tests first.", toolCall("Bash", { command: "npm test", description: "Run the tests" }, "call_1")),
  reply("The mean is off. Reading the code.", toolCall("Read", { file_path: "src/math.js" }, "call_2")),
  reply(
    "It divides by one less than the count.",
    toolCall("Edit", { file_path: "src/math.js", old_string: "values.length - 1", new_string: "values.length" }, "call_3"),
  ),
  reply("Running the tests again.", toolCall("Bash", { command: "npm test", description: "Run the tests" }, "call_4")),
  "Fixed `mean` in src/math.js: it divided by `values.length - 1` instead of `values.length`. The test passes now.",
]);

const agent = await CodingAgent.create(model, {
  workspace: project,
  settingsFiles: [], // no user or project settings: the rules below are the whole policy
  mode: "acceptEdits", // edits inside the workspace run without asking
  rules: { allow: ["Bash(npm test)"] }, // and so do the tests; any other command would ask
  onEvent: (event) => {
    if (event.type === "tool-call-start") console.log(`→ ${event.toolCall.name} ${JSON.stringify(event.toolCall.arguments)}`);
    if (event.type === "tool-call-end") console.log(`← ${event.result.content.split("\n").slice(0, 4).join("\n  ")}`);
  },
});
try {
  const result = await agent.run("The test in test/math.test.js fails. Fix the code, not the test.");
  console.log(`\n${result.final}`);
  const divisor = /return total \/ \((.*)\);/.exec(readFileSync(join(project, "src/math.js"), "utf8"))?.[1];
  console.log(`status: ${result.status}; src/math.js now divides by ${divisor}`);
} finally {
  rmSync(project, { recursive: true, force: true });
}
