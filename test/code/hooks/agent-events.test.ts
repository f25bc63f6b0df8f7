import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CodingAgent, CodingAgentOptions, HookConfiguration } from "../../../src/code/index.js";
import { FakeModel, type Message, type ModelResponse, ToolError } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { createHookAgent } from "../helpers/hook-agent.js";

let workspace: string;
beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), "minagent-agent-events-"));
  writeFileSync(join(workspace, "README.md"), "# Ledger\n\nRun `npm test`.\n");
  writeFileSync(join(workspace, "ledger.py"), "def total(entries):\n    return sum(e.amount for e in entries)\n");
});
// Every agent is closed: its transcript folder and sandbox go with it.
const agents: CodingAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
  rmSync(workspace, { recursive: true, force: true });
});

const read = (path: string) => readFileSync(join(workspace, path), "utf8");
const lines = (path: string) =>
  read(path)
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

async function create(model: FakeModel, hooks: HookConfiguration, options: Partial<CodingAgentOptions> = {}) {
  const agent = await createHookAgent(model, workspace, hooks, { mode: "bypassPermissions", ...options });
  agents.push(agent);
  return agent;
}

const lastUserContent = (response: { messages: readonly Message[] } | undefined) =>
  response?.messages.filter((message) => message.role === "tool").at(-1)?.content;

describe("PostToolUseFailure", () => {
  it("runs after a tool that threw, with the error the model reads; its context follows the error", async () => {
    const deploy = {
      name: "Deploy",
      description: "Deploys the ledger service",
      parameters: { type: "object" as const, properties: {}, additionalProperties: false },
      execute: () => {
        throw new ToolError("Exit code 1\nError: staging is locked by another deploy");
      },
    };
    const model = new FakeModel([reply("", toolCall("Deploy", {}, "d1")), "The deploy failed; staging is locked."]);
    const agent = await create(
      model,
      {
        PostToolUseFailure: [
          {
            matcher: "Deploy",
            hooks: [
              {
                type: "command",
                command: `cat > failure.json; echo '{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"Staging locks clear after 10 minutes."}}'`,
              },
            ],
          },
        ],
        PostToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: "touch post-tool-use-ran" }] }],
      },
      { tools: [deploy] },
    );

    await agent.run("Deploy to staging.");

    expect(lastUserContent(model.requests[1])).toBe(
      "Exit code 1\nError: staging is locked by another deploy\n\nPostToolUseFailure hook context:\nStaging locks clear after 10 minutes.",
    );
    expect(JSON.parse(read("failure.json"))).toMatchObject({
      hook_event_name: "PostToolUseFailure",
      tool_name: "Deploy",
      tool_use_id: "d1",
      tool_input: {},
      error: "Exit code 1\nError: staging is locked by another deploy",
      is_interrupt: false,
      permission_mode: "bypassPermissions",
      duration_ms: expect.any(Number),
    });
    expect(() => read("post-tool-use-ran")).toThrow(/ENOENT/);
  });
});

describe("PostToolBatch", () => {
  it("runs once after a turn's calls, with each call's result as the model reads it; its context comes with the results", async () => {
    const model = new FakeModel([
      reply("", toolCall("Read", { file_path: "README.md" }, "r1"), toolCall("Read", { file_path: "ledger.py" }, "r2")),
      "The ledger sums entry amounts.",
    ]);
    const agent = await create(model, {
      PostToolBatch: [
        {
          hooks: [
            {
              type: "command",
              command: `(cat; echo) >> batches.jsonl; echo '{"hookSpecificOutput":{"hookEventName":"PostToolBatch","additionalContext":"These files are the ledger module."}}'`,
            },
          ],
        },
      ],
    });

    const result = await agent.run("What does the ledger do?");

    expect(result.status).toBe("completed");
    const batches = lines("batches.jsonl");
    expect(batches).toHaveLength(1);
    expect(batches[0].tool_calls.map((call: { tool_name: string; tool_use_id: string }) => [call.tool_name, call.tool_use_id])).toEqual([
      ["Read", "r1"],
      ["Read", "r2"],
    ]);
    expect(batches[0].tool_calls[1].tool_input).toEqual({ file_path: "ledger.py" });
    expect(batches[0].tool_calls[1].tool_response).toMatch(/return sum\(e\.amount for e in entries\)/);
    expect(lastUserContent(model.requests[1])).toMatch(/\n\nPostToolBatch hook context:\nThese files are the ledger module\.$/);
  });

  it("a block stops the run before the next model call; the conversation keeps why", async () => {
    const model = new FakeModel([reply("", toolCall("Read", { file_path: "README.md" }, "r1")), "never sent"]);
    const agent = await create(model, {
      PostToolBatch: [{ hooks: [{ type: "command", command: `cat > /dev/null; echo "Budget for this task is spent." >&2; exit 2` }] }],
    });

    const result = await agent.run("What does the ledger do?");

    expect(model.requests).toHaveLength(1);
    expect(result).toMatchObject({
      status: "blocked",
      blockedBy: "PostToolBatch",
      blocked: "A PostToolBatch hook stopped the run: Budget for this task is spent.",
    });
    expect(result.messages.at(-2)).toMatchObject({ role: "tool", toolCallId: "r1" });
    expect(result.messages.at(-1)).toEqual({
      role: "user",
      content: "[A PostToolBatch hook stopped the run: Budget for this task is spent.]",
    });
  });
});

describe("PreCompact and PostCompact", () => {
  const history: Message[] = [
    { role: "user", content: "Add a parser for ledger CSV files." },
    { role: "assistant", content: "Added src/parse.py with parse_csv(); it skips the header row." },
    { role: "user", content: "Now add tests for it." },
    { role: "assistant", content: "Added tests/test_parse.py with three cases." },
  ];

  it("/compact runs PreCompact (manual, with its focus) before and PostCompact (with the summary) after", async () => {
    const model = new FakeModel(["## Summary\nA CSV parser and its tests were added.", "Docs written."]);
    const agent = await create(
      model,
      {
        PreCompact: [{ matcher: "manual", hooks: [{ type: "command", command: "cat > pre-compact.json" }] }],
        PostCompact: [{ matcher: "manual|auto", hooks: [{ type: "command", command: "cat > post-compact.json" }] }],
      },
      { compaction: { keepRecentTokens: 0 } },
    );
    agent.compactor?.compactNow("keep the parser's behaviour");

    await agent.run("Document the parser in README.md.", { history });

    expect(JSON.parse(read("pre-compact.json"))).toMatchObject({
      hook_event_name: "PreCompact",
      trigger: "manual",
      custom_instructions: "keep the parser's behaviour",
    });
    expect(JSON.parse(read("post-compact.json"))).toMatchObject({
      hook_event_name: "PostCompact",
      trigger: "manual",
      compact_summary: "## Summary\nA CSV parser and its tests were added.",
    });
  });

  it("a PreCompact block leaves the conversation as it was and says why", async () => {
    const model = new FakeModel(["Docs written."]);
    const events: unknown[] = [];
    const agent = await create(
      model,
      { PreCompact: [{ hooks: [{ type: "command", command: `echo "back up the transcript first" >&2; exit 2` }] }] },
      { compaction: { keepRecentTokens: 0 }, onEvent: (event) => event.type === "compaction" && events.push(event) },
    );
    agent.compactor?.compactNow();

    const result = await agent.run("Document the parser in README.md.", { history });

    expect(result.status).toBe("completed");
    expect(model.requests[0]?.messages.slice(0, 4)).toEqual(history);
    expect(events).toMatchObject([{ stage: "summary", error: "a PreCompact hook blocked the compaction: back up the transcript first" }]);
  });
});

describe("SessionStart and SessionEnd", () => {
  it("end() runs SessionEnd with its reason once; after end('clear') the next conversation starts with source clear", async () => {
    const responses: (string | ModelResponse)[] = ["Hello.", "Hello again."];
    const model = new FakeModel(responses);
    const agent = await create(model, {
      SessionStart: [{ hooks: [{ type: "command", command: `(cat; echo) >> starts.jsonl` }] }],
      SessionEnd: [
        { matcher: "clear", hooks: [{ type: "command", command: `(cat; echo) >> ends.jsonl` }] },
        { matcher: "prompt_input_exit", hooks: [{ type: "command", command: "touch wrong-reason" }] },
      ],
    });

    await agent.run("Hi.");
    await agent.end("clear");
    await agent.end("clear");
    await agent.run("Hi again.");

    expect(lines("starts.jsonl").map((start) => start.source)).toEqual(["startup", "clear"]);
    expect(lines("ends.jsonl")).toMatchObject([{ hook_event_name: "SessionEnd", reason: "clear" }]);
    expect(() => read("wrong-reason")).toThrow(/ENOENT/);
  });

  it("the first run of an agent that goes on with a conversation runs SessionStart with source resume", async () => {
    const model = new FakeModel(["Picking up where we left off."]);
    const agent = await create(model, {
      SessionStart: [{ matcher: "resume", hooks: [{ type: "command", command: `echo "Branch: feature/csv"` }] }],
    });
    await agent.run("Go on.", {
      history: [
        { role: "user", content: "Add a parser." },
        { role: "assistant", content: "Added." },
      ],
    });
    expect(model.requests[0]?.messages.at(-1)?.content).toBe("Branch: feature/csv\n\nGo on.");
  });
});
