import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HookRunner, type HookRunReport } from "../../../src/code/hooks/index.js";
import { makeScriptFolder } from "./scripts.js";

let folder: Awaited<ReturnType<typeof makeScriptFolder>>;
beforeEach(async () => {
  folder = await makeScriptFolder();
});
afterEach(() => folder.remove());

const completed = { status: "completed" as const, final: "Found 2 issues in src/cart.ts: an off-by-one in total()." };

describe("SubagentStart", () => {
  it("hooks matched on the agent type read the subagent's id and type and give it context; others do not run", async () => {
    const review = await folder.script(
      "review-context.sh",
      `cat > subagent-start.json
echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"Review against docs/STYLE.md."}}'`,
    );
    const explore = await folder.script("explore.sh", "touch explore-ran");
    const runner = new HookRunner({
      sessionId: "session-7",
      cwd: folder.dir,
      transcriptPath: () => "/tmp/session-7/transcript.jsonl",
      permissionMode: () => "acceptEdits",
      settingsFiles: [
        {
          path: "/project/.claude/settings.json",
          settings: {
            hooks: {
              SubagentStart: [
                { matcher: "code-reviewer", hooks: [{ type: "command", command: review }] },
                { matcher: "Explore", hooks: [{ type: "command", command: explore }] },
              ],
            },
          },
        },
      ],
    });

    const start = await runner.runSubagentStartHooks({ agentId: "agent-3f2a", agentType: "code-reviewer" });

    expect(start.context).toBe("SubagentStart hook context:\nReview against docs/STYLE.md.");
    expect(JSON.parse(await folder.read("subagent-start.json"))).toEqual({
      hook_event_name: "SubagentStart",
      session_id: "session-7",
      cwd: folder.dir,
      transcript_path: "/tmp/session-7/transcript.jsonl",
      permission_mode: "acceptEdits",
      agent_id: "agent-3f2a",
      agent_type: "code-reviewer",
    });
    await expect(folder.read("explore-ran")).rejects.toThrow(/ENOENT/);
  });

  it("exit 2 cannot stop a subagent: no context, and the host is told what the hook wrote", async () => {
    const reports: HookRunReport[] = [];
    const refuse = await folder.script("refuse.sh", `cat > /dev/null; echo "reviewers are off today" >&2; exit 2`);
    const runner = new HookRunner({
      sessionId: "s",
      cwd: folder.dir,
      hooks: { SubagentStart: [{ hooks: [{ type: "command", command: refuse }] }] },
      onHookRun: (report) => reports.push(report),
    });
    expect(await runner.runSubagentStartHooks({ agentId: "a1", agentType: "code-reviewer" })).toEqual({});
    expect(reports).toMatchObject([{ event: "SubagentStart", outcome: "blocked", message: "reviewers are off today" }]);
  });
});

describe("SubagentStop", () => {
  it("a block sends the subagent on with the reason; the next stop reads stop_hook_active, the transcript and the answer", async () => {
    const gate = await folder.script(
      "gate.sh",
      `input=$(cat)
echo "$input" >> subagent-stop.jsonl
case "$input" in
  *'"stop_hook_active":false'*) echo '{"decision":"block","reason":"List the line numbers of each issue."}' ;;
esac`,
    );
    const runner = new HookRunner({
      sessionId: "s",
      cwd: folder.dir,
      hooks: { SubagentStop: [{ matcher: "code-reviewer", hooks: [{ type: "command", command: gate }] }] },
    });
    const identity = { agentId: "agent-9", agentType: "code-reviewer", agentTranscriptPath: "/tmp/s/subagents/agent-9.jsonl" };

    const first = await runner.runSubagentStopHooks(completed, { ...identity, continuations: 0 });
    const second = await runner.runSubagentStopHooks(completed, { ...identity, continuations: 1 });

    expect(first).toEqual({ continue: "SubagentStop hook feedback: you may not stop yet.\nList the line numbers of each issue." });
    expect(second).toBeUndefined();
    const inputs = (await folder.read("subagent-stop.jsonl"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(inputs.map((input) => input.stop_hook_active)).toEqual([false, true]);
    expect(inputs[0]).toMatchObject({
      hook_event_name: "SubagentStop",
      agent_id: "agent-9",
      agent_type: "code-reviewer",
      agent_transcript_path: "/tmp/s/subagents/agent-9.jsonl",
      last_assistant_message: completed.final,
    });
  });

  it("feedback through additionalContext also sends it on; other agent types, unfinished runs and the loop guard do not", async () => {
    const runner = new HookRunner({
      sessionId: "s",
      cwd: folder.dir,
      maxStopContinuations: 2,
      hooks: {
        SubagentStop: [
          {
            matcher: "^code-",
            hooks: [{ type: "function", run: () => ({ additionalContext: "Run the tests in test/cart.test.ts before you answer." }) }],
          },
        ],
      },
    });
    const identity = { agentId: "agent-1", agentType: "code-reviewer" };
    expect(await runner.runSubagentStopHooks(completed, { ...identity, continuations: 0 })).toEqual({
      continue: "SubagentStop hook feedback:\nRun the tests in test/cart.test.ts before you answer.",
    });
    expect(await runner.runSubagentStopHooks(completed, { agentId: "agent-2", agentType: "Explore", continuations: 0 })).toBeUndefined();
    expect(await runner.runSubagentStopHooks({ status: "max_steps", final: "" }, { ...identity, continuations: 0 })).toBeUndefined();
    expect(await runner.runSubagentStopHooks(completed, { ...identity, continuations: 2 })).toBeUndefined();
  });

  it("a runner made for a subagent sends its id and type with every event", async () => {
    const seen: unknown[] = [];
    const runner = new HookRunner({
      sessionId: "s",
      cwd: folder.dir,
      agent: { id: "agent-5", type: "Explore" },
      hooks: { PreToolUse: [{ hooks: [{ type: "function", run: (input) => void seen.push(input) }] }] },
    });
    await runner.runPreToolUseHooks({ id: "c1", name: "Grep", arguments: { pattern: "TODO" } });
    expect(seen).toMatchObject([{ hookEventName: "PreToolUse", agentId: "agent-5", agentType: "Explore", toolName: "Grep" }]);
  });
});
