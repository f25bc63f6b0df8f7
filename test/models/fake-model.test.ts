import { describe, expect, it } from "vitest";
import { FakeModel, type Message, type ModelStreamEvent, UsageError } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

const user = (content: string): Message => ({ role: "user", content });

describe("FakeModel", () => {
  it("answers strings as end_turn messages, ModelResponses as given, and functions with what they return", async () => {
    const model = new FakeModel([
      "plain",
      reply("with a call", toolCall("t", { a: 1 }, "x")),
      (messages, tools) => reply(`${messages.length} messages, ${tools.length} tools`),
    ]);
    expect(await model.complete([user("1")], [])).toEqual({ message: { role: "assistant", content: "plain" }, stopReason: "end_turn" });
    expect((await model.complete([user("2")], [])).stopReason).toBe("tool_use");
    expect((await model.complete([user("3"), user("4")], [])).message.content).toBe("2 messages, 0 tools");
  });

  it("keeps copies of each request as it was at the call", async () => {
    const model = new FakeModel(["a", "b"]);
    const messages = [user("first")];
    await model.complete(messages, []);
    messages.push(user("second"));
    await model.complete(messages, []);
    expect(model.requests.map((request) => request.messages.length)).toEqual([1, 2]);
  });

  it("rejects a call past the end of the script, saying which call", async () => {
    const model = new FakeModel(["only one"]);
    await model.complete([user("1")], []);
    const error = await model.complete([user("2")], []).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(
      "FakeModel script ran out: call 2 was made but the script has 1 item(s). Add a reply for this call.",
    );
  });

  it("replays a response as stream events when asked to stream", async () => {
    const events: ModelStreamEvent[] = [];
    const model = new FakeModel([reply("Let me look.", toolCall("weather", { city: "Rome" }, "c1"))]);
    const response = await model.complete([user("?")], [], { onEvent: (event) => events.push(event) });
    expect(events.map((event) => event.type)).toEqual(["text-delta", "tool-input-start", "tool-input-delta", "tool-input-end"]);
    expect(events[2]).toEqual({ type: "tool-input-delta", index: 0, argumentsDelta: '{"city":"Rome"}' });
    expect(response.message.toolCalls?.[0]?.id).toBe("c1");
  });

  it("rejects with an AbortError when the signal is aborted", async () => {
    await expect(new FakeModel(["x"]).complete([], [], { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
  });
});
