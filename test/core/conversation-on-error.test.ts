import { describe, expect, it } from "vitest";
import { interruptedCallText } from "../../src/core/run-state.js";
import { Agent, conversationOf, FakeModel, type Message, type Model, ToolRegistry } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

/** Three tools: `fast` answers at once, `slow` after 30 ms, `hang` never (until its signal aborts, which it ignores). */
function tools(): ToolRegistry {
  return new ToolRegistry()
    .add({ name: "fast", description: "answers at once", parameters: { type: "object" }, execute: () => "fast result" })
    .add({
      name: "slow",
      description: "answers after 30 ms",
      parameters: { type: "object" },
      execute: () => new Promise((resolve) => setTimeout(() => resolve("slow result"), 30)),
    })
    .add({ name: "hang", description: "never answers", parameters: { type: "object" }, execute: () => new Promise(() => {}) });
}

describe("a run that rejects hands back its conversation (conversationOf)", () => {
  it("aborted among parallel calls: the calls that ended keep their results in call order, the others are answered as interrupted", async () => {
    const calls = [toolCall("hang", {}, "h1"), toolCall("slow", {}, "s1"), toolCall("fast", {}, "f1")];
    const model = new FakeModel([reply("first", toolCall("fast", {}, "f0")), reply("three at once", ...calls), "never sent"]);
    const controller = new AbortController();
    const history: Message[] = [
      { role: "user", content: "earlier" },
      { role: "assistant", content: "earlier answer" },
    ];
    const run = new Agent(model, tools()).run("go", { history, signal: controller.signal });
    setTimeout(() => controller.abort(), 80);
    const error = await run.catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: "AbortError" });
    expect(conversationOf(error)).toEqual([
      ...history,
      { role: "user", content: "go" },
      { role: "assistant", content: "first", toolCalls: [{ id: "f0", name: "fast", arguments: {} }] },
      { role: "tool", content: "fast result", toolCallId: "f0" },
      { role: "assistant", content: "three at once", toolCalls: calls },
      { role: "tool", content: "slow result", toolCallId: "s1" },
      { role: "tool", content: "fast result", toolCallId: "f1" },
      { role: "tool", content: interruptedCallText, toolCallId: "h1", isError: true },
    ]);
    // The conversation is the next run's history as it is: the model is sent it with nothing left unanswered.
    const next = new FakeModel(["going on"]);
    await new Agent(next, tools()).run("go on", { history: conversationOf(error) });
    expect(next.requests[0]?.messages.slice(0, -1)).toEqual(conversationOf(error));
  });

  it("a failed model call: the conversation up to the call that failed", async () => {
    let calls = 0;
    const failing: Model = {
      complete: async () => {
        calls++;
        if (calls === 1) return reply("looking", toolCall("fast", {}, "f0"));
        throw new Error("the provider is down");
      },
    };
    const error = await new Agent(failing, tools(), { system: "be brief" }).run("go").catch((caught: unknown) => caught);
    expect(error).toMatchObject({ message: "the provider is down" });
    expect(conversationOf(error)).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "go" },
      { role: "assistant", content: "looking", toolCalls: [{ id: "f0", name: "fast", arguments: {} }] },
      { role: "tool", content: "fast result", toolCallId: "f0" },
    ]);
    // Not enumerable: logging or serializing the error does not print the conversation.
    expect(Object.keys(error as object)).not.toContain("conversation");
  });

  it("is undefined for values that did not come from a run", () => {
    expect(conversationOf(new Error("elsewhere"))).toBeUndefined();
    expect(conversationOf("a string")).toBeUndefined();
    expect(conversationOf(undefined)).toBeUndefined();
  });
});
