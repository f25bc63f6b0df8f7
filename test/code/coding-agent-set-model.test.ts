import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { CodingAgent } from "../../src/code/index.js";
import type { AgentEvent, Model } from "../../src/index.js";
import { FakeModel } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "minagent-set-model-"));
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

/** A scripted model under another name, as a switch to Gemini would give. */
function named(provider: string, modelId: string, fake: FakeModel): Model {
  return { provider, modelId, complete: (messages, tools, options) => fake.complete(messages, tools, options) };
}

test("setModel: the next run, its compaction window and an inherit subagent follow the new model; the first model is asked no more", async () => {
  const first = new FakeModel(["One."]);
  const second = new FakeModel([
    reply("", toolCall("Agent", { description: "look", prompt: "Look around.", subagent_type: "general-purpose" }, "agent-1")),
    "The subagent's answer.",
    "Two.",
  ]);
  const events: AgentEvent[] = [];
  const agent = await CodingAgent.create(first, {
    workspace: project,
    settingsFiles: [],
    memory: false,
    mode: "bypassPermissions",
    onEvent: (event) => events.push(event),
  });
  try {
    const one = await agent.run("Say one.");
    expect(agent.compactor?.contextWindow).toBe(32_768); // fake-model: the default
    const gemini = named("google", "gemini-2.5-pro", second);
    agent.setModel(gemini);
    expect(agent.model).toBe(gemini);
    expect(agent.compactor?.contextWindow).toBe(1_048_576);
    const two = await agent.run("Say two.", { history: one.messages });
    expect(two.final).toBe("Two.");
    expect(first.requests).toHaveLength(1);
    // The parent's call, the subagent's (its model is inherit), the parent's again: all to the new model.
    expect(second.requests).toHaveLength(3);
    expect(second.requests[0]?.messages.map((message) => message.content)).toContain("One.");
    expect(second.requests[1]?.messages.at(-1)?.content).toContain("Look around.");
    // The run says which model answered it: the session file's `model` line and the spending read it.
    const starts = events.filter((event) => event.type === "run-start" && event.runId === two.runId);
    expect(starts).toMatchObject([{ model: { provider: "google", modelId: "gemini-2.5-pro" } }]);
  } finally {
    await agent.close();
  }
});
