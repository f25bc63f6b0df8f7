import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ApprovalRequest, CodingAgent, CodingAgentOptions, HookConfiguration } from "../../../src/code/index.js";
import { FakeModel, type Message } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { createHookAgent } from "../helpers/hook-agent.js";

let workspace: string;
beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), "minagent-permission-hooks-"));
});
// Every agent is closed: its transcript folder and sandbox go with it.
const agents: CodingAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
  rmSync(workspace, { recursive: true, force: true });
});

/** `touch notes.txt` writes a file: default mode asks about it, dontAsk denies it. */
const touch = (id = "t1") => reply("Creating the notes file.", toolCall("Bash", { command: "touch notes.txt" }, id));
const observation = (messages: readonly Message[], id = "t1") =>
  messages.find((message) => message.role === "tool" && message.toolCallId === id);

async function agentWith(hooks: HookConfiguration, options: Partial<CodingAgentOptions> = {}) {
  const model = new FakeModel([touch(), "Done."]);
  const agent = await createHookAgent(model, workspace, hooks, options);
  agents.push(agent);
  return { agent, model };
}

const allowBash: HookConfiguration = {
  PreToolUse: [{ matcher: "Bash", hooks: [{ type: "function", run: () => ({ decision: "allow" }) }] }],
};

describe("a PreToolUse hook's decisions under the permission rules", () => {
  it("allow skips the mode's prompt: the call runs and nobody is asked", async () => {
    const askPerson = vi.fn<(request: ApprovalRequest) => { behavior: "deny"; message: string }>();
    const { agent } = await agentWith(allowBash, { askPerson });
    const result = await agent.run("Make a notes file.");
    expect(result.status).toBe("completed");
    expect(askPerson).not.toHaveBeenCalled();
    expect(existsSync(join(workspace, "notes.txt"))).toBe(true);
  });

  it("allow does not override a deny rule, nor an ask rule (the person is asked)", async () => {
    const denied = await agentWith(allowBash, { rules: { deny: ["Bash(touch *)"] } });
    const deniedRun = await denied.agent.run("Make a notes file.");
    expect(observation(deniedRun.messages)).toMatchObject({
      isError: true,
      content: expect.stringMatching(/deny rule `Bash\(touch \*\)`/),
    });

    const askPerson = vi.fn(() => ({ behavior: "deny" as const, message: "Not now." }));
    const asked = await agentWith(allowBash, { rules: { ask: ["Bash(touch *)"] }, askPerson });
    await asked.agent.run("Make a notes file.");
    expect(askPerson).toHaveBeenCalledOnce();
    expect(existsSync(join(workspace, "notes.txt"))).toBe(false);
  });

  it("allow does not let plan mode change files", async () => {
    const { agent } = await agentWith(allowBash, { mode: "plan" });
    const result = await agent.run("Make a notes file.");
    expect(observation(result.messages)?.content).toMatch(/plan mode does not allow/);
    expect(existsSync(join(workspace, "notes.txt"))).toBe(false);
  });

  it("ask with nobody to ask (askPerson denies, as -p's does) denies that call with the hook's reason; the run goes on", async () => {
    const hooks: HookConfiguration = {
      PreToolUse: [
        {
          matcher: "Bash",
          hooks: [{ type: "function", run: () => ({ decision: "ask", reason: "files are created by the release script" }) }],
        },
      ],
    };
    const askPerson = (request: ApprovalRequest) => ({ behavior: "deny" as const, message: `Nobody could approve it: ${request.reason}` });
    const { agent, model } = await agentWith(hooks, { askPerson, mode: "bypassPermissions", unattended: true });
    const result = await agent.run("Make a notes file.");
    expect(result.status).toBe("completed");
    expect(observation(model.requests[1]?.messages ?? [])).toMatchObject({
      isError: true,
      content: "Nobody could approve it: files are created by the release script",
    });
    expect(existsSync(join(workspace, "notes.txt"))).toBe(false);
  });
});

describe("PermissionRequest hooks answer instead of the person", () => {
  it("allow runs the call without asking; its updatedInput is what runs", async () => {
    const seen: unknown[] = [];
    const askPerson = vi.fn(() => ({ behavior: "deny" as const, message: "no" }));
    const { agent } = await agentWith(
      {
        PermissionRequest: [
          {
            matcher: "Bash",
            hooks: [
              {
                type: "function",
                run: (input) => {
                  seen.push(input);
                  return { decision: "allow", updatedInput: { command: "touch approved-notes.txt" } };
                },
              },
            ],
          },
        ],
      },
      { askPerson },
    );
    const result = await agent.run("Make a notes file.");
    expect(result.status).toBe("completed");
    expect(askPerson).not.toHaveBeenCalled();
    expect(existsSync(join(workspace, "approved-notes.txt"))).toBe(true);
    expect(existsSync(join(workspace, "notes.txt"))).toBe(false);
    expect(seen).toMatchObject([
      { hookEventName: "PermissionRequest", toolName: "Bash", toolInput: { command: "touch notes.txt" }, permissionMode: "default" },
    ]);
  });

  it("deny refuses it with the hook's message; an allow still meets the deny rules for its rewritten input", async () => {
    const deny = await agentWith({
      PermissionRequest: [
        {
          hooks: [
            {
              type: "command",
              command: `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Use the Write tool for new files."}}}'`,
            },
          ],
        },
      ],
    });
    const denied = await deny.agent.run("Make a notes file.");
    expect(observation(denied.messages)?.content).toBe("A PermissionRequest hook denied this call: Use the Write tool for new files.");

    const rewrite = await agentWith(
      {
        PermissionRequest: [{ hooks: [{ type: "function", run: () => ({ decision: "allow", updatedInput: { command: "rm -rf src" } }) }] }],
      },
      { rules: { deny: ["Bash(rm *)"] } },
    );
    const refused = await rewrite.agent.run("Make a notes file.");
    expect(observation(refused.messages)?.content).toMatch(/deny rule `Bash\(rm \*\)`/);
  });

  it("they are not asked about a call the rules allow, and one that fails denies (it guards the call)", async () => {
    const run = vi.fn(() => ({ decision: "deny" as const, reason: "never" }));
    const allowed = await agentWith(
      { PermissionRequest: [{ hooks: [{ type: "function", run }] }] },
      { rules: { allow: ["Bash(touch *)"] } },
    );
    await allowed.agent.run("Make a notes file.");
    expect(run).not.toHaveBeenCalled();
    expect(existsSync(join(workspace, "notes.txt"))).toBe(true);

    const broken = await agentWith(
      { PermissionRequest: [{ hooks: [{ type: "command", command: "exit 1" }] }] },
      { askPerson: () => ({ behavior: "allow" }) },
    );
    const result = await broken.agent.run("Make a notes file.");
    expect(observation(result.messages)?.content).toMatch(
      /^A PermissionRequest hook denied this call: PermissionRequest hook #1 failed: it exited with code 1/,
    );
  });
});

describe("PermissionDenied hooks hear of the mode's denials", () => {
  it("dontAsk's denial runs them with the reason, and retry tells the model it may try again; a deny rule's does not", async () => {
    const inputs: unknown[] = [];
    const hooks: HookConfiguration = {
      PermissionDenied: [
        {
          matcher: "Bash",
          hooks: [
            {
              type: "function",
              run: (input) => {
                inputs.push(input);
                return { retry: true };
              },
            },
          ],
        },
      ],
    };
    const { agent } = await agentWith(hooks, { mode: "dontAsk" });
    const result = await agent.run("Make a notes file.");
    const content = observation(result.messages)?.content ?? "";
    expect(content).toMatch(/dontAsk mode denies whatever no allow rule allows\.\nA PermissionDenied hook says you may retry this call\.$/);
    expect(inputs).toMatchObject([
      {
        hookEventName: "PermissionDenied",
        toolName: "Bash",
        toolUseId: "t1",
        permissionMode: "dontAsk",
        reason: expect.stringMatching(/dontAsk/),
      },
    ]);

    inputs.length = 0;
    const byRule = await agentWith(hooks, { rules: { deny: ["Bash(touch *)"] } });
    await byRule.agent.run("Make a notes file.");
    expect(inputs).toEqual([]);
  });

  it("with nobody to ask (unattended), the denial of a call that needed approval runs them too", async () => {
    const run = vi.fn(() => ({}));
    const { agent } = await agentWith(
      { PermissionDenied: [{ hooks: [{ type: "function", run }] }] },
      { unattended: true, askPerson: () => ({ behavior: "deny", message: "Not approved: nobody could approve it (-p)." }) },
    );
    await agent.run("Make a notes file.");
    expect(run).toHaveBeenCalledOnce();
  });
});

describe("the if filter", () => {
  it("runs a hook only for the calls its rule matches: any part of a Bash line, assignments taken off", async () => {
    const commands: string[] = [];
    const model = new FakeModel([
      reply("", toolCall("Bash", { command: "npm test" }, "a")),
      reply("", toolCall("Bash", { command: "ls && CI=1 git status" }, "b")),
      reply("", toolCall("Read", { file_path: "notes.md" }, "c")),
      "Done.",
    ]);
    const agent = await createHookAgent(
      model,
      workspace,
      {
        PreToolUse: [
          { hooks: [{ type: "function", if: "Bash(git *)", run: ({ toolInput }) => void commands.push(String(toolInput.command)) }] },
          { hooks: [{ type: "function", if: "Read(*.md)", run: ({ toolInput }) => void commands.push(String(toolInput.file_path)) }] },
        ],
      },
      { mode: "bypassPermissions" },
    );
    agents.push(agent);
    await agent.run("Look around.");
    expect(commands).toEqual(["ls && CI=1 git status", "notes.md"]);
  });
});
