import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { Agent, FakeModel, type Message, type ModelStreamEvent, ToolRegistry, UsageError } from "../../src/index.js";
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

  it("requests[i].messages is exactly what call i was sent, through a run, a prepareTurn rewrite and a reused array", async () => {
    const registry = new ToolRegistry().add({ name: "t", description: "t", parameters: { type: "object" }, execute: () => "ok" });
    const model = new FakeModel([
      reply("1", toolCall("t", {}, "a")),
      reply("2", toolCall("t", {}, "b")),
      reply("3", toolCall("t", {}, "c")),
      "done",
    ]);
    const sent: Message[][] = [];
    const result = await new Agent(model, registry, {
      system: "s",
      // Turn 2 compacts the history to the system prompt and the last two messages.
      prepareTurn: ({ turn, messages }) => (turn === 2 ? { messages: [messages[0] as Message, ...messages.slice(-2)] } : undefined),
      onEvent: (event) => event.type === "model-call-start" && sent.push([...event.messages]),
    }).run("go");
    expect(result.status).toBe("completed");
    expect(model.requests.map((request) => request.messages)).toEqual(sent);
    expect(model.requests.map((request) => request.messages.length)).toEqual([2, 4, 3, 5]);
    expect(model.requests[3]?.messages).toEqual(result.messages.slice(0, -1));

    // A caller that empties and refills the same array: each request keeps what it was sent.
    const reused = new FakeModel(["a", "b", "c"]);
    const messages = [user("first")];
    await reused.complete(messages, []);
    messages.length = 0;
    messages.push(user("other"));
    await reused.complete(messages, []);
    messages.push(user("more"));
    await reused.complete(messages, []);
    expect(reused.requests.map((request) => request.messages.map((message) => message.content))).toEqual([
      ["first"],
      ["other"],
      ["other", "more"],
    ]);
    expect(JSON.parse(JSON.stringify(reused.requests[0]))).toEqual({ messages: [user("first")], tools: [] });
  });

  it("keeps its requests in linear memory: 10,000 steps hold well under 100 MB (a copy per call held ~800 MB)", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const steps = 10_000;
    const script = Array.from({ length: steps }, (_, i) =>
      reply(`Step ${i}: looking up item ${i}.`, toolCall("lookup", { id: i }, `call_${i}`)),
    );
    const model = new FakeModel([...script, "done"]);
    const registry = new ToolRegistry().add({ name: "lookup", description: "l", parameters: { type: "object" }, execute: () => "fine" });
    gc();
    const before = process.memoryUsage().heapUsed;
    const result = await new Agent(model, registry, { maxSteps: steps + 1 }).run("go");
    gc();
    const growth = process.memoryUsage().heapUsed - before;
    expect(result.status).toBe("completed");
    expect(model.requests).toHaveLength(steps + 1);
    expect(growth).toBeLessThan(100_000_000);
    expect(model.requests[steps]?.messages).toHaveLength(2 * steps + 1);
    expect(model.requests[1]?.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
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
