import { describe, expect, test } from "vitest";
import { createToolCall } from "../../src/models/create-tool-call.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";

describe("createToolCall", () => {
  test.each([
    ['{"city":"Paris"}', { city: "Paris" }],
    [{ city: "Paris" }, { city: "Paris" }],
    ["", {}],
    ["  ", {}],
    [undefined, {}],
    [null, {}],
  ])("%j → arguments %j", (raw, expected) => {
    expect(createToolCall("id", "weather", raw)).toEqual({ id: "id", name: "weather", arguments: expected });
  });

  test.each([
    ['{"city": "Par', /^the arguments are not valid JSON \(.+\)\. Received: \{"city": "Par\.$/],
    ["[1,2]", /^the arguments are not a JSON object\. Received: \[1,2\]\.$/],
    ['"Paris"', /not a JSON object/],
    ["42", /not a JSON object/],
  ])("%j → an argumentsError and empty arguments", (raw, message) => {
    const call = createToolCall("id", "weather", raw);
    expect(call.arguments).toEqual({});
    expect(call.argumentsError).toMatch(message);
  });

  test("a cut-off response says so, and long input is shortened", () => {
    const call = createToolCall("id", "write", `{"text": "${"x".repeat(500)}`, { truncated: true });
    expect(call.argumentsError).toMatch(
      /^the response hit the output token limit \(max_tokens\) before the arguments were complete, so they are cut off\. Received: \{"text": "x+… \(510 characters\)\.$/,
    );
  });

  test("the executor answers an argumentsError with an error observation and does not run the tool", async () => {
    let runs = 0;
    const registry = new ToolRegistry().add({ name: "weather", description: "d", parameters: { type: "object" }, execute: () => ++runs });
    const result = await registry.execute(createToolCall("id", "weather", "{oops"));
    expect(runs).toBe(0);
    expect(result).toMatchObject({
      isError: true,
      content: expect.stringMatching(
        /^Invalid arguments for tool "weather": the arguments are not valid JSON .* Call it again with a JSON object matching its schema\.$/,
      ),
    });
  });
});
