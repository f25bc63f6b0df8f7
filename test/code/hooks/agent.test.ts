import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type HookConfiguration,
  type HookFunction,
  HookRunner,
  withPostToolUseHooks,
  withPreToolUseHooks,
} from "../../../src/code/hooks/index.js";
import {
  AbortError,
  Agent,
  type CanUseTool,
  FakeModel,
  type Message,
  type ToolContext,
  ToolError,
  ToolRegistry,
} from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { makeScriptFolder } from "./scripts.js";

let folder: Awaited<ReturnType<typeof makeScriptFolder>>;
beforeEach(async () => {
  folder = await makeScriptFolder();
});
afterEach(() => folder.remove());

/** A stand-in Bash tool: records what it was asked to run. */
function bashTool(needsApproval = false) {
  const execute = vi.fn(({ command }: Record<string, unknown>) => `ran: ${command}`);
  return {
    execute,
    tool: {
      name: "Bash",
      description: "Runs a shell command",
      parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"], additionalProperties: false },
      needsApproval,
      execute,
    },
  };
}

const toolMessage = (messages: readonly Message[], id: string) =>
  messages.find((message) => message.role === "tool" && message.toolCallId === id);

describe("hooks on an Agent: what the model reads", () => {
  it("PreToolUse: exit 2's stderr is the observation; a rewrite runs the rewritten call; PostToolUse context follows the result", async () => {
    const guard = await folder.script(
      "guard.sh",
      `input=$(cat)\ncase "$input" in *'rm -rf'*) echo "Blocked: rm -rf is not allowed. Remove the files by name." >&2; exit 2;; esac\nexit 0`,
    );
    const lint = await folder.script(
      "lint.sh",
      `cat > /dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"2 lint warnings in src/app.ts"}}'`,
    );
    const hooks = new HookRunner({
      sessionId: "session-1",
      cwd: folder.dir,
      settings: {
        hooks: {
          PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard, timeout: 10 }] }],
          PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: lint }] }],
        },
      },
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              {
                type: "function",
                run: ({ toolInput }) => (toolInput.command === "npm test" ? { updatedInput: { command: "npm test -- --run" } } : undefined),
              },
            ],
          },
        ],
      },
    });
    const { tool, execute } = bashTool();
    const registry = new ToolRegistry().add(withPostToolUseHooks(tool, hooks));
    const model = new FakeModel([
      reply("Cleaning up.", toolCall("Bash", { command: "rm -rf build" }, "c1")),
      reply("Running the tests.", toolCall("Bash", { command: "npm test" }, "c2")),
      "Tests pass.",
    ]);
    const result = await new Agent(model, registry, { canUseTool: withPreToolUseHooks(hooks) }).run("Clean up and test");

    expect(result.status).toBe("completed");
    expect(execute.mock.calls.map(([args]) => args)).toEqual([{ command: "npm test -- --run" }]);
    expect(toolMessage(model.requests[1]?.messages ?? [], "c1")).toMatchObject({
      isError: true,
      content: "A PreToolUse hook blocked this call: Blocked: rm -rf is not allowed. Remove the files by name.",
    });
    expect(toolMessage(model.requests[2]?.messages ?? [], "c2")).toMatchObject({
      content: "ran: npm test -- --run\n\nPostToolUse hook context:\n2 lint warnings in src/app.ts",
    });
  });

  it("PostToolUse: a redacting hook replaces what the model reads; if it crashes, the model is told the tool ran and the output is withheld", async () => {
    const redact = await folder.script(
      "redact.sh",
      `output=$(sed -n 's/.*"tool_response":"\\([^"]*\\)".*/\\1/p' | sed 's/sk-[a-z0-9]*/[redacted]/g')\nprintf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"%s"}}' "$output"`,
    );
    const crash = await folder.script("crash.sh", `echo "redactor: config missing" >&2; exit 1`);
    const secretTool = {
      name: "read_env",
      description: "Reads .env",
      parameters: { type: "object", properties: {} },
      execute: () => "API_KEY=sk-abc123",
    };
    const run = async (command: string) => {
      const hooks = new HookRunner({
        sessionId: "s",
        cwd: folder.dir,
        // A redactor guards what the model reads: it says failClosed, so that its crash withholds the output.
        settings: { hooks: { PostToolUse: [{ matcher: "read_env", hooks: [{ type: "command", command, failClosed: true }] }] } },
      });
      const model = new FakeModel([reply("", toolCall("read_env", {}, "r")), "ok"]);
      await new Agent(model, new ToolRegistry().add(withPostToolUseHooks(secretTool, hooks))).run("show env");
      return toolMessage(model.requests[1]?.messages ?? [], "r");
    };
    expect(await run(redact)).toEqual({ role: "tool", toolCallId: "r", content: "API_KEY=[redacted]" });
    const failed = await run(crash);
    expect(failed).toMatchObject({
      isError: true,
      content:
        'Tool "read_env" ran, but a PostToolUse hook withheld its result: PostToolUse hook #1 failed: it exited with code 1: redactor: config missing.',
    });
    expect(failed?.content).not.toContain("sk-abc123");
  });

  it("PostToolUse: a ToolError's text goes through the hooks too (replaced, context added, or withheld); an AbortError passes", async () => {
    const failing = (error: Error) => ({
      name: "Bash",
      description: "Runs a shell command",
      parameters: { type: "object", properties: {} },
      execute: () => {
        throw error;
      },
    });
    const timedOut = new ToolError("The command timed out. Output so far:\nAPI_KEY=sk-abc123");
    const run = async (hook: HookFunction<"PostToolUse">) => {
      const hooks = new HookRunner({
        sessionId: "s",
        cwd: folder.dir,
        // A redactor guards what the model reads: failClosed, so that a crash withholds the output.
        hooks: { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "function", run: hook, failClosed: true }] }] },
      });
      const model = new FakeModel([reply("", toolCall("Bash", {}, "b")), "ok"]);
      await new Agent(model, new ToolRegistry().add(withPostToolUseHooks(failing(timedOut), hooks))).run("run it");
      return { message: toolMessage(model.requests[1]?.messages ?? [], "b") };
    };
    const redacted = await run(({ toolResponse }) => ({ updatedOutput: String(toolResponse).replace(/sk-\w+/, "[redacted]") }));
    expect(redacted.message).toMatchObject({ isError: true, content: "The command timed out. Output so far:\nAPI_KEY=[redacted]" });
    expect((await run(() => ({ additionalContext: "note" }))).message).toMatchObject({
      isError: true,
      content: `${timedOut.message}\n\nPostToolUse hook context:\nnote`,
    });
    const crashed = await run(() => {
      throw new Error("redactor: config missing");
    });
    expect(crashed.message).toMatchObject({ isError: true, content: expect.stringContaining("withheld its result") });
    expect(crashed.message?.content).not.toContain("sk-abc123");
    const plain = await run(() => undefined);
    expect(plain.message).toMatchObject({ isError: true, content: timedOut.message });

    const hooks = new HookRunner({
      sessionId: "s",
      cwd: folder.dir,
      hooks: { PostToolUse: [{ hooks: [{ type: "function", run: () => ({}) }] }] },
    });
    const aborted = new AbortError("The operation was aborted");
    const context = { signal: new AbortController().signal, toolCallId: "b" } as ToolContext;
    await expect(withPostToolUseHooks(failing(aborted), hooks).execute({}, context)).rejects.toBe(aborted);
  });

  it("a hook's ask interrupts the run, and a Stop hook sends a completed agent back to work once", async () => {
    const hooks = new HookRunner({
      sessionId: "s",
      cwd: folder.dir,
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              {
                type: "function",
                run: ({ toolInput }) =>
                  String(toolInput.command).startsWith("git push") ? { decision: "ask", reason: "pushes need a person" } : {},
              },
            ],
          },
        ],
        Stop: [
          {
            hooks: [
              {
                type: "function",
                run: ({ stopHookActive }) => (stopHookActive ? {} : { decision: "block", reason: "Also update CHANGELOG.md." }),
              },
            ],
          },
        ],
      },
    });
    const { tool } = bashTool();
    const model = new FakeModel([reply("", toolCall("Bash", { command: "git push" }, "p")), "Done.", "CHANGELOG updated too."]);
    const agent = new Agent(model, new ToolRegistry().add(tool), { canUseTool: withPreToolUseHooks(hooks) });

    const interrupted = await agent.run("Ship it");
    expect(interrupted.status).toBe("interrupted");
    expect(interrupted.pending).toEqual([{ toolCall: expect.objectContaining({ id: "p" }), reason: "pushes need a person" }]);
    let result = await agent.resume(interrupted, { p: { behavior: "allow" } });
    const inputs: string[] = [];
    for (let continuations = 0; ; continuations++) {
      const next = await hooks.runStopHooks(result, { continuations });
      if (!next) break;
      inputs.push(next.continue);
      result = await agent.run(next.continue, { history: result.messages });
    }
    expect(inputs).toEqual(["Stop hook feedback: you may not stop yet.\nAlso update CHANGELOG.md."]);
    expect(model.requests[2]?.messages.at(-1)).toEqual({ role: "user", content: inputs[0] });
    expect(result.final).toBe("CHANGELOG updated too.");
  });
});

describe("withPreToolUseHooks and the inner check", () => {
  const hooksWith = (configuration: HookConfiguration) => new HookRunner({ sessionId: "s", cwd: folder.dir, hooks: configuration });
  const context = (needsApproval = false) => ({ runId: "run", tool: bashTool().tool, signal: new AbortController().signal, needsApproval });
  const call = { id: "c", name: "Bash", arguments: { command: "npm test" } };

  it("the inner check sees the rewritten call, and its allow keeps the rewrite", async () => {
    const inner = vi.fn<CanUseTool>(() => ({ behavior: "allow" }));
    const check = withPreToolUseHooks(
      hooksWith({
        PreToolUse: [{ hooks: [{ type: "function", run: () => ({ decision: "allow", updatedInput: { command: "npm test -- --run" } }) }] }],
      }),
      inner,
    );
    expect(await check(call, context())).toEqual({ behavior: "allow", arguments: { command: "npm test -- --run" } });
    expect(inner.mock.calls[0]?.[0]).toEqual({ ...call, arguments: { command: "npm test -- --run" } });
  });

  it("a hook's deny stands without asking the inner check; a hook's allow does not override the inner deny", async () => {
    const inner = vi.fn<CanUseTool>(() => ({ behavior: "deny", message: "rules say no" }));
    const deny = withPreToolUseHooks(
      hooksWith({ PreToolUse: [{ hooks: [{ type: "function", run: () => ({ decision: "deny", reason: "hook says no" }) }] }] }),
      inner,
    );
    expect(await deny(call, context())).toEqual({ behavior: "deny", message: "A PreToolUse hook blocked this call: hook says no" });
    expect(inner).not.toHaveBeenCalled();
    const allow = withPreToolUseHooks(
      hooksWith({ PreToolUse: [{ hooks: [{ type: "function", run: () => ({ decision: "allow" }) }] }] }),
      inner,
    );
    expect(await allow(call, context())).toEqual({ behavior: "deny", message: "rules say no" });
  });

  it("without an inner check: no decision keeps needsApproval's ask, a hook's allow approves", async () => {
    expect(await withPreToolUseHooks(hooksWith({}))(call, context(true))).toEqual({ behavior: "ask" });
    expect(await withPreToolUseHooks(hooksWith({}))(call, context(false))).toEqual({ behavior: "allow" });
    const approve = hooksWith({ PreToolUse: [{ hooks: [{ type: "function", run: () => ({ decision: "allow" }) }] }] });
    expect(await withPreToolUseHooks(approve)(call, context(true))).toEqual({ behavior: "allow" });
  });

  it("an ask with a rewrite shows the person the arguments the hooks would use", async () => {
    const check = withPreToolUseHooks(
      hooksWith({
        PreToolUse: [
          { hooks: [{ type: "function", run: () => ({ decision: "ask", reason: "sure?", updatedInput: { command: "npm ci" } }) }] },
        ],
      }),
    );
    expect(await check(call, context())).toEqual({
      behavior: "ask",
      reason: 'sure?\nThe PreToolUse hooks would run it with these arguments: {"command":"npm ci"}',
    });
  });

  it("rewritten arguments that break the tool's schema are refused by the engine before the tool runs", async () => {
    const hooks = hooksWith({ PreToolUse: [{ hooks: [{ type: "function", run: () => ({ updatedInput: { cmd: 42 } }) }] }] });
    const { tool, execute } = bashTool();
    const model = new FakeModel([reply("", toolCall("Bash", { command: "ls" }, "b")), "ok"]);
    await new Agent(model, new ToolRegistry().add(tool), { canUseTool: withPreToolUseHooks(hooks) }).run("list");
    expect(execute).not.toHaveBeenCalled();
    expect(toolMessage(model.requests[1]?.messages ?? [], "b")?.content).toMatch(
      /The arguments a permission check gave tool "Bash" are invalid/,
    );
  });
});
