import type { Message, ModelResponse, RunResult } from "../../core/types.js";
import { FakeModel } from "../../models/fake-model.js";
import { type PlanDecision, planMode } from "../../patterns/plan-mode.js";
import { ReActAgent } from "../../patterns/react.js";
import { reply, toolCall } from "../../testing/script.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import type { DemoContext } from "./demo-context.js";

const plan = "1. Read notes.txt\n2. Append “eggs” to the shopping line\n3. Write notes.txt back";

/**
 * Plan mode as tools: the agent starts in plan mode, its write is refused, it proposes a plan, the person
 * approves (or rejects) it, and only then does the write go through. The engine is the plain loop.
 */
export async function runPlanModeDemo({ io, yes, tracer }: DemoContext): Promise<RunResult> {
  const disk = new Map([["notes.txt", "shopping: milk"]]);
  const registry = new ToolRegistry()
    .add({
      name: "read_file",
      description: "Reads a file",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      readOnly: true,
      execute: ({ path }) => disk.get(path as string) ?? "no such file",
    })
    .add({
      name: "write_file",
      description: "Writes a file",
      parameters: { type: "object", properties: { path: { type: "string" }, text: { type: "string" } }, required: ["path", "text"] },
      execute: ({ path, text }) => {
        disk.set(path as string, text as string);
        return `wrote ${path}`;
      },
    });
  planMode({ startInPlanMode: true, approve: (proposed) => askApproval(io, proposed, yes) }).install(registry);
  const approved = (messages: Message[]) => messages.at(-1)?.content.startsWith("The user approved") ?? false;
  const model = new FakeModel([
    reply("I'll look at the notes first.", toolCall("read_file", { path: "notes.txt" }, "c1")),
    reply("Adding eggs now.", toolCall("write_file", { path: "notes.txt", text: "shopping: milk, eggs" }, "c2")),
    reply("I'm in plan mode, so here is my plan.", toolCall("ExitPlanMode", { plan }, "c3")),
    (messages): ModelResponse =>
      approved(messages)
        ? reply("Approved: writing the file.", toolCall("write_file", { path: "notes.txt", text: "shopping: milk, eggs" }, "c4"))
        : reply("Understood: I will not change the file."),
    (messages): ModelResponse =>
      reply(messages.at(-1)?.role === "tool" ? `Done: notes.txt now reads "${disk.get("notes.txt")}".` : "Nothing was changed."),
  ]);
  const agent = new ReActAgent(model, registry, { system: "You edit the user's files carefully." });
  const onEvent = tracer?.listener({ agentName: "file-editor" });
  return agent.run("Add eggs to my shopping list in notes.txt", onEvent ? { onEvent } : {});
}

/** Asks the person; "y" approves, anything else rejects (words other than "n" are passed on as feedback). */
async function askApproval(io: DemoContext["io"], proposed: string, yes: boolean): Promise<PlanDecision> {
  io.stdout(`\nProposed plan:\n${proposed.replace(/^/gm, "  ")}\nApprove this plan? [y/N, or type feedback] `);
  if (yes) {
    io.stdout("y (--yes)\n");
    return true;
  }
  const answer = (await io.readLine())?.trim() ?? "";
  if (/^y(es)?$/i.test(answer)) return true;
  return { approved: false, ...(answer !== "" && !/^no?$/i.test(answer) && { feedback: answer }) };
}
