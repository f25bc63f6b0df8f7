// The scripted tasks every framework runs, with the counters that prove a run did the work.
// The script and the tools live here, outside the adapters, so a framework cannot skip work unnoticed.
import { z } from "zod";

/** Thrown when a run did not do what the scenario asked: such a run is a failure, never a figure. */
export class VerificationError extends Error {
  name = "VerificationError";
}

const stepSchema = { type: "object", properties: { i: { type: "integer" } }, required: ["i"] };

/**
 * S1/S4: `n` turns that each call the `step` tool once (with a short thought), then a final answer.
 * Past `deadline` (a performance.now() value) the model answers early, so a run too slow to finish is bounded;
 * `verify` then reports it as unfinished.
 */
export function sequentialWorkload(n) {
  const state = { modelCalls: 0, toolRuns: 0, outOfOrder: 0, deadline: Number.POSITIVE_INFINITY, stoppedEarly: false };
  const tools = [
    {
      name: "step",
      description: "Carries out step i of the task and reports on it.",
      schema: z.object({ i: z.number().int() }),
      jsonSchema: stepSchema,
      execute: ({ i }) => {
        if (i !== state.toolRuns) state.outOfOrder++;
        state.toolRuns++;
        return `step ${i} done`;
      },
    },
  ];
  const respond = () => {
    const call = state.modelCalls++;
    if (call < n && performance.now() < state.deadline) {
      return { text: `Step ${call}.`, toolCalls: [{ id: `call_${call}`, name: "step", args: { i: call } }] };
    }
    if (call < n) state.stoppedEarly = true;
    return { text: "done", toolCalls: [] };
  };
  return {
    tools,
    respond,
    state,
    reset() {
      state.modelCalls = 0;
      state.toolRuns = 0;
      state.outOfOrder = 0;
      state.stoppedEarly = false;
    },
    verify(final) {
      const problems = [];
      if (state.toolRuns !== n) problems.push(`tool executed ${state.toolRuns} times, expected ${n}`);
      if (state.modelCalls !== n + 1) problems.push(`model called ${state.modelCalls} times, expected ${n + 1}`);
      if (state.outOfOrder > 0) problems.push(`${state.outOfOrder} tool calls out of order`);
      if (final !== "done") problems.push(`final answer ${JSON.stringify(final)}, expected "done"`);
      return problems.length > 0 ? problems.join("; ") : undefined;
    },
  };
}

/** S2: one turn with `calls` calls of a tool that takes `toolMs`, then a final answer. */
export function parallelWorkload(calls, toolMs) {
  const state = { modelCalls: 0, toolRuns: 0, inFlight: 0, maxInFlight: 0, firstStart: 0, lastEnd: 0, slowest: 0 };
  const tools = [
    {
      name: "wait",
      description: `Waits ${toolMs} ms, like a slow API call.`,
      schema: z.object({ i: z.number().int() }),
      jsonSchema: stepSchema,
      execute: async () => {
        const started = performance.now();
        state.maxInFlight = Math.max(state.maxInFlight, ++state.inFlight);
        await new Promise((resolve) => setTimeout(resolve, toolMs));
        state.inFlight--;
        state.toolRuns++;
        state.slowest = Math.max(state.slowest, performance.now() - started);
        return "waited";
      },
    },
  ];
  const respond = () => {
    const call = state.modelCalls++;
    if (call > 0) return { text: "done", toolCalls: [] };
    return { text: "", toolCalls: Array.from({ length: calls }, (_, i) => ({ id: `call_${i}`, name: "wait", args: { i } })) };
  };
  return {
    tools,
    respond,
    state,
    reset() {
      Object.assign(state, { modelCalls: 0, toolRuns: 0, inFlight: 0, maxInFlight: 0, slowest: 0 });
    },
    verify(final) {
      const problems = [];
      if (state.toolRuns !== calls) problems.push(`tool executed ${state.toolRuns} times, expected ${calls}`);
      if (state.modelCalls !== 2) problems.push(`model called ${state.modelCalls} times, expected 2`);
      if (final !== "done") problems.push(`final answer ${JSON.stringify(final)}, expected "done"`);
      return problems.length > 0 ? problems.join("; ") : undefined;
    },
  };
}

/** S3: the weather tool of the book's demo; the local server scripts the model's side. */
export function weatherTools(counter) {
  return [
    {
      name: "weather",
      description: "Current weather of a city",
      schema: z.object({ city: z.string() }),
      jsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      execute: ({ city }) => {
        counter.toolRuns++;
        return `${city}: sunny 24°C`;
      },
    },
  ];
}

export const wireInput = "Compare the weather in Beijing, Shanghai and Guangzhou.";
const cities = ["Beijing", "Shanghai", "Guangzhou", "Shenzhen", "Chengdu"];

/** The server's side of S3: the assistant message of request `index`; turn k asks for city k, the last turn answers. */
export function scriptWeatherTurns(turns) {
  return (index) => {
    if (index >= turns) return { role: "assistant", content: "done" };
    const city = cities[index % cities.length];
    return {
      role: "assistant",
      content: null,
      tool_calls: [{ id: `call_${index}`, type: "function", function: { name: "weather", arguments: JSON.stringify({ city }) } }],
    };
  };
}

/**
 * S3's reference: the bare body of request `index` — model, messages, and the tools with their schemas as
 * given — that a hand-written client sends for the same conversation. What a framework sends beyond it is its overhead.
 */
export function bareWireRequest(index, { turns, modelId }) {
  const reply = scriptWeatherTurns(turns);
  const messages = [{ role: "user", content: wireInput }];
  for (let turn = 0; turn < index; turn++) {
    const message = reply(turn);
    messages.push(message);
    for (const call of message.tool_calls ?? []) {
      messages.push({ role: "tool", tool_call_id: call.id, content: `${JSON.parse(call.function.arguments).city}: sunny 24°C` });
    }
  }
  const tools = weatherTools({ toolRuns: 0 }).map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.jsonSchema },
  }));
  return { model: modelId, messages, tools };
}
