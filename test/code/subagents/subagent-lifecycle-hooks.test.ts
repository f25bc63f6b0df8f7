import { describe, expect, it } from "vitest";
import { HookRunner } from "../../../src/code/hooks/index.js";
import { parseSubagentDefinition } from "../../../src/code/subagents/index.js";
import { Agent, FakeModel, type Message, ToolRegistry } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { makeScriptFolder } from "../hooks/scripts.js";
import { agentToolFor } from "./helpers.js";

// Around each subagent the session's SubagentStart and SubagentStop hooks run, as in Claude Code; an agent file's
// Stop hooks are its SubagentStop hooks, and every hook of a subagent's run is told its agent_id and agent_type.

const startWorker = (prompt: string) => toolCall("Agent", { description: "do the work", prompt, subagent_type: "worker" }, "a1");
const toolTexts = (messages: readonly Message[]) => messages.filter((message) => message.role === "tool").map((message) => message.content);

describe("SubagentStart and SubagentStop", () => {
  it("the session's SubagentStart adds context before the prompt; its SubagentStop sends the subagent back once", async () => {
    const seen: { event: string; agentId: string; agentType: string }[] = [];
    const sessionHooks = new HookRunner({
      sessionId: "session-1",
      cwd: process.cwd(),
      hooks: {
        SubagentStart: [
          {
            matcher: "worker",
            hooks: [
              {
                type: "function",
                run: ({ agentId, agentType }) => {
                  seen.push({ event: "start", agentId, agentType });
                  return { additionalContext: "This repository uses pnpm, not npm." };
                },
              },
            ],
          },
        ],
        SubagentStop: [
          {
            hooks: [
              {
                type: "function",
                run: ({ agentId, agentType, stopHookActive }) => {
                  seen.push({ event: "stop", agentId, agentType });
                  return stopHookActive ? undefined : { decision: "block", reason: "Name the files you looked at." };
                },
              },
            ],
          },
        ],
      },
    });
    const model = new FakeModel([
      reply("", startWorker("Find the build script.")),
      "It is build.sh.",
      "It is build.sh, read in package.json.",
      "Done.",
    ]);
    const result = await new Agent(model, new ToolRegistry().add(agentToolFor(model, { sessionHooks }))).run("Go.");
    expect(model.requests[1]?.messages.at(-1)?.content).toMatch(/This repository uses pnpm, not npm\.[\s\S]*\n\nFind the build script\.$/);
    expect(model.requests[2]?.messages.at(-1)?.content).toMatch(
      /^SubagentStop hook feedback: you may not stop yet\.\nName the files you looked at\./,
    );
    expect(toolTexts(result.messages)).toEqual(["It is build.sh, read in package.json."]);
    expect(seen.map((entry) => `${entry.event} ${entry.agentType}`)).toEqual(["start worker", "stop worker", "stop worker"]);
    expect(new Set(seen.map((entry) => entry.agentId)).size).toBe(1);
  });

  it("an agent file's Stop hooks run as SubagentStop, and its hooks are told the agent's id and type", async () => {
    const folder = await makeScriptFolder();
    try {
      const log = JSON.stringify(folder.path("inputs.jsonl"));
      const logInput = await folder.script("log-input.sh", `cat >> ${log}\necho >> ${log}`);
      const untilEchoed = await folder.script(
        "until-echoed.sh",
        `input=$(cat)\necho "$input" >> ${log}\ncase "$input" in *'"stop_hook_active":true'*) exit 0;; esac\necho "Run the echo first." >&2\nexit 2`,
      );
      const file = parseSubagentDefinition(
        [
          "---",
          "name: worker",
          "description: Does the work.",
          "tools: echo",
          "hooks:",
          "  PreToolUse:",
          "    - matcher: echo",
          "      hooks:",
          `        - { type: command, command: ${JSON.stringify(logInput)} }`,
          "  Stop:",
          `    - hooks: [{ type: command, command: ${JSON.stringify(untilEchoed)} }]`,
          "---",
          "You are a worker.",
        ].join("\n"),
        "/repo/.claude/agents/worker.md",
      );
      const model = new FakeModel([
        reply("", startWorker("Work.")),
        "Finished.",
        reply("", toolCall("echo", { text: "hi" }, "e1")),
        "Echoed.",
        "Done.",
      ]);
      const agentTool = agentToolFor(model, { definitions: [file], hooks: { sessionId: "session-2", cwd: folder.dir } });
      const result = await new Agent(model, new ToolRegistry().add(agentTool)).run("Go.");
      expect(model.requests[2]?.messages.at(-1)?.content).toMatch(
        /^SubagentStop hook feedback: you may not stop yet\.\nRun the echo first\./,
      );
      expect(toolTexts(result.messages)).toEqual(["Echoed."]);
      const inputs = (await folder.read("inputs.jsonl"))
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(inputs.map((input) => [input.hook_event_name, input.agent_type, input.session_id, input.stop_hook_active])).toEqual([
        ["SubagentStop", "worker", "session-2", false],
        ["PreToolUse", "worker", "session-2", undefined],
        ["SubagentStop", "worker", "session-2", true],
      ]);
      expect(new Set(inputs.map((input) => input.agent_id)).size).toBe(1);
    } finally {
      await folder.remove();
    }
  });
});
