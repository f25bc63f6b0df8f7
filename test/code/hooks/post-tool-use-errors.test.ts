import { expect, it } from "vitest";
import { HookRunner, withPostToolUseHooks } from "../../../src/code/hooks/index.js";
import { Agent, FakeModel, ToolRegistry } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";

it("PostToolUse: a plain Error's text meets the hooks too, so a redacting hook filters it", async () => {
  const hooks = new HookRunner({
    sessionId: "s",
    cwd: process.cwd(),
    hooks: {
      PostToolUse: [
        {
          hooks: [
            {
              type: "function",
              run: ({ toolResponse }) => ({ updatedOutput: String(toolResponse).replace(/sk-[a-z0-9]+/g, "[redacted]") }),
            },
          ],
        },
      ],
    },
  });
  const leaky = withPostToolUseHooks(
    {
      name: "leaky",
      description: "",
      parameters: { type: "object" },
      execute: () => {
        throw new Error("connection failed with key sk-abc123");
      },
    },
    hooks,
  );
  const result = await new Agent(new FakeModel([reply("", toolCall("leaky", {}, "l")), "ok"]), new ToolRegistry().add(leaky)).run("go");
  expect(result.messages[2]).toMatchObject({ isError: true, content: "Error: connection failed with key [redacted]" });
});
