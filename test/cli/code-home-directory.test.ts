import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { answer, anthropicEnv, callTool, printArgs, requestBody, runCode, useCodeFixture } from "./code-helpers.js";

const fixture = useCodeFixture();

test("MINAGENT_HOME is the one user folder: its settings, memory file and agent files all count, and ~/.minagent's do not", async () => {
  // fixture.home is MINAGENT_HOME (anthropicEnv): nothing of the user's real ~/.minagent is read.
  await writeFile(join(fixture.home, "settings.json"), JSON.stringify({ permissions: { deny: ["Read(notes.txt)"] } }));
  await writeFile(join(fixture.home, "AGENTS.md"), "Always answer in French.\n");
  await mkdir(join(fixture.home, "agents"));
  await writeFile(
    join(fixture.home, "agents", "reviewer.md"),
    "---\nname: reviewer\ndescription: Reviews a change for bugs\n---\nYou review changes.\n",
  );
  fixture.server.reply(answer("Bonjour."));
  const outcome = await runCode(printArgs(fixture, "Hello"), anthropicEnv(fixture));
  expect(outcome).toMatchObject({ exit: 0, stdout: "Bonjour.\n" });
  const body = requestBody<{ system: { text: string }[] | string; tools: { name: string; description: string }[] }>(fixture, 0);
  const system = typeof body.system === "string" ? body.system : body.system.map((part) => part.text).join("\n");
  expect(system).toContain("Always answer in French.");
  expect(body.tools.find((tool) => tool.name === "Agent")?.description).toContain("reviewer: Reviews a change for bugs");
  // The deny rule of the same folder's settings.json reaches the permissions: the model may not read notes.txt.
  fixture.server.reply(callTool("toolu_r", "Read", { file_path: "notes.txt" }), answer("Je ne peux pas."));
  const denied = await runCode(printArgs(fixture, "Read the notes", "--permission-mode", "bypassPermissions"), anthropicEnv(fixture));
  expect(denied.exit).toBe(0);
  const sent = JSON.stringify(fixture.server.requests.at(-1)?.body);
  expect(sent).toContain('"is_error":true');
  expect(sent).not.toContain("The answer is 42.");
});
