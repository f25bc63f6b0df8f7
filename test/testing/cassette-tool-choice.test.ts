import { AssertionError } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Message, ToolSchema } from "../../src/core/types.js";
import { FakeModel } from "../../src/models/fake-model.js";
import { type Cassette, type CassetteRequest, RecordingModel, ReplayModel, reply, toolCall } from "../../src/testing/index.js";
import { temporaryFolder } from "../helpers/temporary-folder.js";

const messages: Message[] = [{ role: "user", content: "Plan the trip." }];
const tools: ToolSchema[] = [{ name: "write_plan", description: "Write the plan", parameters: { type: "object" } }];
const planCall = reply("", toolCall("write_plan", { steps: ["go"] }, "toolu_1"));
const cassettePath = () => join(temporaryFolder("minagent-tool-choice-"), "cassette.json");

/** A cassette of two calls: the first forced to the plan tool, the second free. */
async function recordPlanAndAnswer(): Promise<{ path: string; cassette: Cassette }> {
  const path = cassettePath();
  const recorder = new RecordingModel(new FakeModel([planCall, "Done."]), { path });
  await recorder.complete(messages, tools, { toolChoice: { name: "write_plan" } });
  await recorder.complete(messages, tools);
  return { path, cassette: recorder.cassette };
}

async function rejection(promise: Promise<unknown>): Promise<AssertionError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AssertionError);
  return error as AssertionError;
}

describe("cassettes and the tool choice", () => {
  it("records the tool choice of a call that had one, and nothing for a call without", async () => {
    const { path } = await recordPlanAndAnswer();
    const saved = JSON.parse(readFileSync(path, "utf8")) as Cassette;
    expect(saved.interactions[0]?.request.toolChoice).toEqual({ name: "write_plan" });
    expect(saved.interactions[1]?.request).not.toHaveProperty("toolChoice");
  });

  it("replays when the tool choice is the recorded one", async () => {
    const { path } = await recordPlanAndAnswer();
    const replay = new ReplayModel(path);
    expect((await replay.complete(messages, tools, { toolChoice: { name: "write_plan" } })).message.toolCalls?.[0]?.name).toBe(
      "write_plan",
    );
    expect((await replay.complete(messages, tools, { toolChoice: undefined })).message.content).toBe("Done.");
    expect(replay.remaining).toBe(0);
  });

  it("a changed tool choice is a changed request, reported in the diff", async () => {
    const { path } = await recordPlanAndAnswer();
    const changed = await rejection(new ReplayModel(path).complete(messages, tools, { toolChoice: "required" }));
    expect(changed.message).toContain('  toolChoice:\n    recorded: {"name":"write_plan"}\n    now:      "required"');
    const dropped = await rejection(new ReplayModel(path).complete(messages, tools));
    expect(dropped.message).toContain('  toolChoice:\n    recorded: {"name":"write_plan"}\n    now:      (absent)');
  });

  it("match: { toolChoice: false } ignores it; a custom matcher sees it", async () => {
    const { path } = await recordPlanAndAnswer();
    const loose = new ReplayModel(path, { match: { toolChoice: false } });
    await expect(loose.complete(messages, tools, { toolChoice: "auto" })).resolves.toMatchObject({ stopReason: "tool_use" });
    const seen: [CassetteRequest["toolChoice"], CassetteRequest["toolChoice"]][] = [];
    const custom = new ReplayModel(path, { match: (recorded, actual) => seen.push([recorded.toolChoice, actual.toolChoice]) > 0 });
    await custom.complete(messages, tools, { toolChoice: "none" });
    expect(seen).toEqual([[{ name: "write_plan" }, "none"]]);
  });

  it("a cassette recorded before tool choices were kept still replays; a call that now forces a tool no longer matches it", async () => {
    const old: Cassette = {
      format: "minagent-cassette",
      version: 1,
      model: { provider: "anthropic", modelId: "claude-sonnet-4-5" },
      interactions: [{ request: { messages, tools }, response: reply("Done.") }],
    };
    await expect(new ReplayModel(old).complete(messages, tools)).resolves.toMatchObject({ message: { content: "Done." } });
    const error = await rejection(new ReplayModel(old).complete(messages, tools, { toolChoice: { name: "write_plan" } }));
    expect(error.message).toContain('  toolChoice:\n    recorded: (absent)\n    now:      {"name":"write_plan"}');
  });
});
