import type { RunResult } from "../../core/types.js";
import { FakeModel } from "../../models/fake-model.js";
import { ReActAgent } from "../../patterns/react.js";
import { reply, toolCall, withUsage } from "../../testing/script.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import type { DemoContext } from "./demo-context.js";

const forecasts: Record<string, string> = { 北京: "晴 24°C", 上海: "多云 27°C" };

/** The book's two-city weather example (5.1.4) on a scripted model: think, act, observe, twice, then answer. */
export async function runReactDemo({ tracer }: Pick<DemoContext, "tracer"> = {}): Promise<RunResult> {
  const registry = new ToolRegistry().add({
    name: "weather",
    description: "查询某城市当前天气",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    readOnly: true,
    execute: ({ city }) => forecasts[city as string] ?? "未知",
  });
  // Plausible token counts, so that a trace of the demo shows what a real model's would.
  const model = new FakeModel([
    withUsage(reply("Thought: 用户要比两城天气，先查北京。", toolCall("weather", { city: "北京" }, "c1")), {
      inputTokens: 92,
      outputTokens: 31,
    }),
    withUsage(reply("Thought: 北京拿到了，再查上海。", toolCall("weather", { city: "上海" }, "c2")), {
      inputTokens: 141,
      outputTokens: 29,
    }),
    withUsage(reply("北京晴 24°C，上海多云 27°C，两地都适合出行。"), { inputTokens: 188, outputTokens: 24 }),
  ]);
  const agent = new ReActAgent(model, registry, { system: "你是一个天气助手，先想再做。" });
  const onEvent = tracer?.listener({ agentName: "weather-assistant" });
  return agent.run("对比北京和上海的天气", onEvent ? { onEvent } : {});
}
