import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { UsageError } from "../../src/errors.js";
import { FakeModel } from "../../src/models/fake-model.js";
import { cassetteModel, ReplayModel } from "../../src/testing/index.js";
import { temporaryFolder } from "../helpers/temporary-folder.js";

const directory = temporaryFolder("minagent-malformed-");
const request = { messages: [{ role: "user", content: "hi" }], tools: [] };
const response = { message: { role: "assistant", content: "Hello" }, stopReason: "end_turn" };
const cassette = (changes: Record<string, unknown>) => ({
  format: "minagent-cassette",
  version: 1,
  model: { provider: "fake" },
  interactions: [{ request, response }],
  ...changes,
});

describe("a malformed cassette fails at once with an error that names the file and the problem", () => {
  test.each([
    ["no model", { model: undefined }, /"model" is missing/],
    [
      "a null interaction",
      { interactions: [{ request, response }, null] },
      /interaction 1 \(call 2\) is null, not \{ "request", "response" \}/,
    ],
    ["an interaction without a request", { interactions: [{ response }] }, /interaction 0 \(call 1\) has no "request"/],
    [
      "an interaction without a response or an error",
      { interactions: [{ request }] },
      /interaction 0 \(call 1\) has neither a "response" nor an "error"/,
    ],
    [
      "messages that are not an array",
      { interactions: [{ request: { messages: "hi", tools: [] }, response }] },
      /"request.messages" is not an array/,
    ],
    [
      "tools that are not an array",
      { interactions: [{ request: { messages: [], tools: null }, response }] },
      /"request.tools" is not an array/,
    ],
    [
      "a null message",
      { interactions: [{ request: { messages: [null], tools: [] }, response }] },
      /"request.messages" holds something that is not a message/,
    ],
    ["a response without a message", { interactions: [{ request, response: { stopReason: "end_turn" } }] }, /"response" has no "message"/],
    ["an error without a message", { interactions: [{ request, error: { name: "Error" } }] }, /"error" needs a "message" string/],
  ])("%s", (name, changes, problem) => {
    const path = join(directory, `${name.replaceAll(" ", "-")}.json`);
    writeFileSync(path, JSON.stringify(cassette(changes)));
    for (const open of [() => new ReplayModel(path), () => cassetteModel(path, () => new FakeModel([]), { mode: "replay" })]) {
      expect(open).toThrow(UsageError);
      expect(open).toThrow(problem);
      expect(open).toThrow(`Cassette ${path} is malformed: `);
    }
  });

  test("a cassette object given directly is checked too", () => {
    expect(() => new ReplayModel(cassette({ interactions: [null] }) as never)).toThrow(
      /^The cassette is malformed: interaction 0 \(call 1\) is null/,
    );
  });

  test("a well-formed cassette still replays", async () => {
    const path = join(directory, "fine.json");
    writeFileSync(path, JSON.stringify(cassette({})));
    expect((await new ReplayModel(path).complete([{ role: "user", content: "hi" }], [])).message.content).toBe("Hello");
  });
});
