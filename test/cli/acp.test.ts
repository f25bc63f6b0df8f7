import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicStream } from "../helpers/wire-bodies.js";
import { referenceServers } from "../mcp/reference-servers.js";
import { agentText, type EditorOptions, type StandInEditor, startEditor, statusesOf, updatesOf } from "./acp-editor.js";
import { builtBin } from "./built-bin.js";
import { answer, callTool, haiku, requestBody, sentMessages, sessionFiles, sessionMessages, useCodeFixture } from "./code-helpers.js";

// `minagent acp` driven by the ACP SDK's client side as a stand-in editor, the built bin in a child process and the
// scripted model (a local server speaking Anthropic's wire format) behind it.

const fixture = useCodeFixture();
const editors: StandInEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((editor) => editor.close()));
});

function env(): Record<string, string> {
  return {
    ANTHROPIC_API_KEY: "sk-ant-test-key",
    ANTHROPIC_BASE_URL: fixture.server.url,
    MINAGENT_HOME: fixture.home,
    CLAUDE_CONFIG_DIR: join(fixture.home, "claude"),
    HOME: fixture.home,
  };
}

function editor(options: Partial<EditorOptions> = {}): StandInEditor {
  const started = startEditor({ env: env(), ...options, args: ["--model", haiku, ...(options.args ?? [])] });
  editors.push(started);
  return started;
}

async function newSession(stand: StandInEditor, mcpServers: acp.McpServer[] = []): Promise<acp.NewSessionResponse> {
  await stand.initialize();
  return stand.agent.request("session/new", { cwd: fixture.workspace, mcpServers });
}

function prompt(stand: StandInEditor, sessionId: string, text: string): Promise<acp.PromptResponse> {
  return stand.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A streamed reply that calls several tools at once. */
function callTools(...calls: { id: string; name: string; input: Record<string, unknown> }[]) {
  return {
    sse: anthropicStream(
      calls.map((call) => ({ type: "tool_use" as const, ...call })),
      "tool_use",
    ),
  };
}

/** A reply that is not streamed (a subagent's model call): the whole message as JSON. */
function wholeMessage(content: Record<string, unknown>[], stopReason: string) {
  return {
    json: {
      id: "msg_whole",
      type: "message",
      role: "assistant",
      model: "claude-haiku-4-5",
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { input_tokens: 50, output_tokens: 10 },
    },
  };
}

/** A streamed reply that thinks, then answers. */
function thinkThenAnswer(thought: string, text: string) {
  return {
    sse: anthropicStream(
      [
        { type: "thinking", thinking: thought },
        { type: "text", text },
      ],
      "end_turn",
    ),
    chunkSize: 40,
  };
}

describe("minagent acp: initialize and a prompt", () => {
  it("answers initialize with protocol version 1, loadSession and the prompt capabilities the engine has", async () => {
    const stand = editor();
    const response = await stand.initialize();
    expect(response.protocolVersion).toBe(1);
    expect(response.agentCapabilities?.loadSession).toBe(true);
    expect(response.agentCapabilities?.promptCapabilities).toMatchObject({ image: true, embeddedContext: true });
    expect(response.authMethods).toEqual([]);
    expect(response.agentInfo?.name).toBe("minagent");
  });

  it("streams thinking and text as chunks before the prompt's response, ends end_turn, and saves the session", async () => {
    fixture.server.reply(thinkThenAnswer("The notes file says it.", "The answer is 42, as notes.txt says."));
    const stand = editor();
    const { sessionId, modes } = await newSession(stand);
    expect(modes?.currentModeId).toBe("default");
    expect(modes?.availableModes.map((mode) => mode.id)).toEqual(["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"]);
    const updatesBefore = stand.updates.length;
    const response = await prompt(stand, sessionId, "What is the answer?");
    // Everything the turn said had arrived when the response did.
    expect(response.stopReason).toBe("end_turn");
    expect(stand.updates.length).toBeGreaterThan(updatesBefore);
    expect(agentText(stand, sessionId)).toBe("The answer is 42, as notes.txt says.");
    expect(updatesOf(stand, "agent_message_chunk", sessionId).length).toBeGreaterThan(1);
    const thought = updatesOf(stand, "agent_thought_chunk", sessionId)
      .map((update) => (update.content.type === "text" ? update.content.text : ""))
      .join("");
    expect(thought).toBe("The notes file says it.");
    // The session is minagent code's: its file holds the conversation under the id the editor got.
    const files = await sessionFiles(fixture);
    expect(Object.keys(files)).toContain(sessionId);
    const saved = sessionMessages(files[sessionId] as string).filter((message) => message.role !== "system");
    expect(saved.map((message) => [message.role, message.content])).toEqual([
      ["user", "What is the answer?"],
      ["assistant", "The answer is 42, as notes.txt says."],
    ]);
  });

  it("sends a pasted image and an embedded selection to the model with the prompt", async () => {
    fixture.server.reply(answer("A red dot, and the notes say 42."));
    const stand = editor();
    const { sessionId } = await newSession(stand);
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    await stand.agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "What is in the picture, and what do the notes say?" },
        { type: "image", mimeType: "image/png", data: png },
        { type: "resource", resource: { uri: `file://${join(fixture.workspace, "notes.txt")}`, text: "The answer is 42.\n" } },
      ],
    });
    const { messages } = requestBody<{ messages: { content: { type: string; text?: string; source?: { data: string } }[] }[] }>(fixture, 0);
    const blocks = messages.at(-1)?.content ?? [];
    expect(blocks.find((block) => block.type === "image")?.source?.data).toBe(png);
    expect(blocks.find((block) => block.type === "text")?.text).toContain('<context source="notes.txt">\nThe answer is 42.');
  });

  it("maps the model stopping at its token limit to max_tokens", async () => {
    fixture.server.reply({ sse: anthropicStream([{ type: "text", text: "The answer is" }], "max_tokens") });
    const stand = editor();
    const { sessionId } = await newSession(stand);
    expect((await prompt(stand, sessionId, "Go")).stopReason).toBe("max_tokens");
  });

  it("answers a prompt whose model call failed with an error that says why, and takes the next prompt", async () => {
    fixture.server.reply(
      { status: 401, json: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } },
      answer("Working again."),
    );
    const stand = editor();
    const { sessionId } = await newSession(stand);
    await expect(prompt(stand, sessionId, "Go")).rejects.toMatchObject({ message: expect.stringMatching(/invalid x-api-key/) });
    expect((await prompt(stand, sessionId, "Again")).stopReason).toBe("end_turn");
  });

  it("maps the turn limit to max_turn_requests", async () => {
    fixture.server.reply(callTool("toolu_1", "Read", { file_path: "notes.txt" }));
    const stand = editor({ args: ["--max-turns", "1"] });
    const { sessionId } = await newSession(stand);
    expect((await prompt(stand, sessionId, "Go")).stopReason).toBe("max_turn_requests");
  });
});

describe("minagent acp: tool calls", () => {
  it("reports a call pending, then in progress, then completed, with a kind, a title and its location", async () => {
    fixture.server.reply(callTool("toolu_r", "Read", { file_path: "notes.txt" }), answer("It says 42."));
    const stand = editor();
    const { sessionId } = await newSession(stand);
    await prompt(stand, sessionId, "Read the notes");
    const [announced] = updatesOf(stand, "tool_call", sessionId);
    expect(announced).toMatchObject({ toolCallId: "toolu_r", kind: "read", title: "Read(notes.txt)", status: "pending" });
    expect(announced?.locations).toEqual([{ path: join(fixture.workspace, "notes.txt") }]);
    expect(statusesOf(stand, "toolu_r")).toEqual(["pending", "in_progress", "completed"]);
  });

  it("puts a Bash command's output in the call's content, and fails a command that exits non-zero", async () => {
    fixture.server.reply(
      callTool("toolu_b", "Bash", { command: "echo hello from bash" }),
      callTool("toolu_f", "Bash", { command: "ls no-such-file" }),
      answer("Done."),
    );
    const stand = editor({ args: ["--allowedTools", "Bash(echo:*)", "Bash(ls:*)"] });
    const { sessionId } = await newSession(stand);
    await prompt(stand, sessionId, "Say hello");
    expect(statusesOf(stand, "toolu_b")).toEqual(["pending", "in_progress", "completed"]);
    const done = updatesOf(stand, "tool_call_update", sessionId).find(
      (update) => update.toolCallId === "toolu_b" && update.status === "completed",
    );
    const text = done?.content?.[0]?.type === "content" && done.content[0].content.type === "text" ? done.content[0].content.text : "";
    expect(text).toContain("hello from bash");
    expect(updatesOf(stand, "tool_call", sessionId).find((update) => update.toolCallId === "toolu_b")?.kind).toBe("execute");
  });

  it("shows every call of a response in progress, those after an edit too, and a Write's diff", async () => {
    fixture.server.reply(
      callTools(
        { id: "toolu_w1", name: "Write", input: { file_path: "a.txt", content: "one\n" } },
        { id: "toolu_r", name: "Read", input: { file_path: "notes.txt" } },
        { id: "toolu_w2", name: "Write", input: { file_path: "notes.txt", content: "The answer is 43.\n" } },
      ),
      answer("Done."),
    );
    const stand = editor({ args: ["--permission-mode", "acceptEdits"] });
    const { sessionId } = await newSession(stand);
    await prompt(stand, sessionId, "Go");
    for (const id of ["toolu_w1", "toolu_r", "toolu_w2"]) expect(statusesOf(stand, id)).toEqual(["pending", "in_progress", "completed"]);
    const diffOf = (id: string) =>
      updatesOf(stand, "tool_call_update", sessionId)
        .filter((update) => update.toolCallId === id)
        .flatMap((update) => update.content ?? [])
        .find((content) => content.type === "diff");
    expect(diffOf("toolu_w1")).toEqual({ type: "diff", path: join(fixture.workspace, "a.txt"), oldText: null, newText: "one\n" });
    expect(diffOf("toolu_w2")).toEqual({
      type: "diff",
      path: join(fixture.workspace, "notes.txt"),
      oldText: "The answer is 42.\n",
      newText: "The answer is 43.\n",
    });
  });

  it("ends a subagent's call that the editor was asked about", async () => {
    fixture.server.reply(
      callTool("toolu_agent", "Agent", { description: "Write a file", prompt: "Write sub.txt", subagent_type: "general-purpose" }),
      // A subagent's calls are not streamed: whole messages.
      wholeMessage(
        [{ type: "tool_use", id: "toolu_sub", name: "Write", input: { file_path: "sub.txt", content: "from the subagent\n" } }],
        "tool_use",
      ),
      wholeMessage([{ type: "text", text: "I wrote sub.txt." }], "end_turn"),
      answer("The subagent wrote it."),
    );
    const stand = editor({ answerPermission: () => "allow_once" });
    const { sessionId } = await newSession(stand);
    expect((await prompt(stand, sessionId, "Delegate")).stopReason).toBe("end_turn");
    expect(stand.permissionRequests.map((request) => request.toolCall.toolCallId)).toEqual(["toolu_sub"]);
    expect(statusesOf(stand, "toolu_sub")).toEqual(["pending", "in_progress", "completed"]);
    expect(statusesOf(stand, "toolu_agent")).toEqual(["pending", "in_progress", "completed"]);
    // The subagent's words are not the agent's answer.
    expect(agentText(stand, sessionId)).toBe("The subagent wrote it.");
  });

  it("turns TodoWrite into a plan update", async () => {
    fixture.server.reply(
      callTool("toolu_t", "TodoWrite", {
        todos: [
          { content: "Read the notes", status: "completed", activeForm: "Reading the notes" },
          { content: "Write the answer", status: "in_progress", activeForm: "Writing the answer" },
        ],
      }),
      answer("Planned."),
    );
    const stand = editor();
    const { sessionId } = await newSession(stand);
    await prompt(stand, sessionId, "Plan it");
    const [plan] = updatesOf(stand, "plan", sessionId);
    expect(plan?.entries).toEqual([
      { content: "Read the notes", status: "completed", priority: "medium" },
      { content: "Write the answer", status: "in_progress", priority: "medium" },
    ]);
  });
});

describe("minagent acp: the editor's files and permissions", () => {
  it("reads the editor's unsaved buffer, asks before the edit, and writes the whole new text through the editor", async () => {
    const notes = join(fixture.workspace, "notes.txt");
    fixture.server.reply(
      callTool("toolu_r", "Read", { file_path: "notes.txt" }),
      callTool("toolu_e", "Edit", { file_path: "notes.txt", old_string: "43", new_string: "44" }),
      answer("Changed it."),
    );
    let whenAsked: { buffer: string | undefined; disk: string } | undefined;
    const stand: StandInEditor = editor({
      answerPermission: async () => {
        whenAsked = { buffer: stand.buffers.get(notes), disk: await readFile(notes, "utf8") };
        return "allow_once";
      },
    });
    // The person changed the file in the editor and has not saved it.
    stand.buffers.set(notes, "The answer is 43 (unsaved).\n");
    const { sessionId } = await newSession(stand);
    expect((await prompt(stand, sessionId, "Make it 44")).stopReason).toBe("end_turn");
    // The model saw the buffer, not the disk.
    const afterRead = sentMessages(requestBody(fixture, 1)).flatMap((message) => message.content);
    expect(afterRead.join("\n")).toContain("The answer is 43 (unsaved).");
    // The edit was asked about, for that call, with the three kinds of answer.
    expect(stand.permissionRequests).toHaveLength(1);
    const [asked] = stand.permissionRequests;
    expect(asked?.toolCall.toolCallId).toBe("toolu_e");
    expect(asked?.options.map((option) => option.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
    // Nothing was written while the question was open.
    expect(whenAsked).toEqual({ buffer: "The answer is 43 (unsaved).\n", disk: "The answer is 42.\n" });
    // Written through the editor, whole; the diff shows the old and the new text at the absolute path.
    expect(stand.fileRequests).toContainEqual(["write", notes]);
    expect(stand.buffers.get(notes)).toBe("The answer is 44 (unsaved).\n");
    const diff = updatesOf(stand, "tool_call_update", sessionId)
      .filter((update) => update.toolCallId === "toolu_e")
      .flatMap((update) => update.content ?? [])
      .find((content) => content.type === "diff");
    expect(diff).toEqual({ type: "diff", path: notes, oldText: "The answer is 43 (unsaved).\n", newText: "The answer is 44 (unsaved).\n" });
    expect(statusesOf(stand, "toolu_e")).toEqual(["pending", "in_progress", "completed"]);
  });

  it("refuses an edit when the buffer changed after the model read it", async () => {
    const notes = join(fixture.workspace, "notes.txt");
    let stand: StandInEditor | undefined;
    fixture.server.reply(
      callTool("toolu_r", "Read", { file_path: "notes.txt" }),
      () => {
        // Between the Read and the Edit, the person types in the buffer.
        stand?.buffers.set(notes, "The answer is 42, or is it?\n");
        return callTool("toolu_e", "Edit", { file_path: "notes.txt", old_string: "42", new_string: "44" });
      },
      answer("It changed under me."),
    );
    stand = editor({ args: ["--permission-mode", "acceptEdits"] });
    const { sessionId } = await newSession(stand);
    await prompt(stand, sessionId, "Make it 44");
    expect(statusesOf(stand, "toolu_e").at(-1)).toBe("failed");
    const toolResult = sentMessages(requestBody(fixture, 2))
      .flatMap((message) => message.content)
      .join("\n");
    expect(toolResult).toMatch(/changed .*since it was read/);
    expect(await readFile(notes, "utf8")).toBe("The answer is 42.\n");
  });

  it("sends a rejection to the model as a refusal, writes nothing, and goes on with the turn", async () => {
    fixture.server.reply(
      callTool("toolu_w", "Write", { file_path: "out.txt", content: "hello\n" }),
      answer("Understood, I did not write it."),
    );
    const stand = editor({ answerPermission: () => "reject_once" });
    const { sessionId } = await newSession(stand);
    const response = await prompt(stand, sessionId, "Write out.txt");
    expect(response.stopReason).toBe("end_turn");
    expect(readdirSync(fixture.workspace)).not.toContain("out.txt");
    expect(statusesOf(stand, "toolu_w")).toEqual(["pending", "failed"]);
    expect(
      sentMessages(requestBody(fixture, 1))
        .flatMap((message) => message.content)
        .join("\n"),
    ).toContain("rejected this call in the editor");
    expect(agentText(stand, sessionId)).toBe("Understood, I did not write it.");
  });

  it("saves allow-always as the interactive CLI does, and does not ask again", async () => {
    fixture.server.reply(
      callTool("toolu_w1", "Write", { file_path: "src/a.txt", content: "a\n" }),
      callTool("toolu_w2", "Write", { file_path: "src/b.txt", content: "b\n" }),
      answer("Both written."),
    );
    const stand = editor({ fileSystem: false, answerPermission: () => "allow_always" });
    const { sessionId } = await newSession(stand);
    await prompt(stand, sessionId, "Write two files");
    expect(stand.permissionRequests).toHaveLength(1);
    expect(await readFile(join(fixture.workspace, "src", "b.txt"), "utf8")).toBe("b\n");
    const saved = JSON.parse(await readFile(join(fixture.workspace, ".minagent", "settings.local.json"), "utf8"));
    expect(saved.permissions.allow).toEqual(["Edit(/src/**)"]);
  });

  it("switches modes with session/set_mode, and refuses one it does not have", async () => {
    fixture.server.reply(callTool("toolu_w", "Write", { file_path: "out.txt", content: "hello\n" }), answer("Written."));
    const stand = editor();
    const { sessionId } = await newSession(stand);
    await stand.agent.request("session/set_mode", { sessionId, modeId: "acceptEdits" });
    await prompt(stand, sessionId, "Write out.txt");
    expect(stand.permissionRequests).toHaveLength(0);
    expect(await readFile(join(fixture.workspace, "out.txt"), "utf8")).toBe("hello\n");
    await expect(stand.agent.request("session/set_mode", { sessionId, modeId: "yolo" })).rejects.toMatchObject({ code: -32602 });
  });
});

describe("minagent acp: the project's commands and settings", () => {
  it("announces the custom commands, and runs one a prompt starts with", async () => {
    await mkdir(join(fixture.workspace, ".claude", "commands"), { recursive: true });
    await writeFile(
      join(fixture.workspace, ".claude", "commands", "review.md"),
      "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $ARGUMENTS carefully.\n",
    );
    fixture.server.reply(answer("Reviewed."));
    const stand = editor();
    const { sessionId } = await newSession(stand);
    await until(() => updatesOf(stand, "available_commands_update", sessionId).length > 0);
    expect(updatesOf(stand, "available_commands_update", sessionId)[0]?.availableCommands).toEqual([
      { name: "review", description: "Review a file", input: { hint: "<file>" } },
    ]);
    await prompt(stand, sessionId, "/review notes.txt");
    expect(sentMessages(requestBody(fixture, 0)).at(-1)?.content.join("")).toContain("Review notes.txt carefully.");
  });

  it("answers refusal when a UserPromptSubmit hook blocks the prompt, and shows its reason", async () => {
    // The user's own settings: their hooks run in every folder.
    await mkdir(join(fixture.home, "claude"), { recursive: true });
    await writeFile(
      join(fixture.home, "claude", "settings.json"),
      JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo 'No prompts about secrets.' >&2; exit 2" }] }] },
      }),
    );
    const stand = editor();
    const { sessionId } = await newSession(stand);
    expect((await prompt(stand, sessionId, "Tell me the secrets")).stopReason).toBe("refusal");
    expect(agentText(stand, sessionId)).toContain("No prompts about secrets.");
    expect(fixture.server.requests).toHaveLength(0);
  });

  it("asks before leaving plan mode, and tells the editor the mode the approved plan chose", async () => {
    fixture.server.reply(callTool("toolu_plan", "ExitPlanMode", { plan: "1. Change notes.txt" }), answer("Leaving plan mode."));
    const stand = editor({ answerPermission: () => "allow_always" });
    const { sessionId } = await newSession(stand);
    await stand.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    await prompt(stand, sessionId, "Plan the change");
    const [asked] = stand.permissionRequests;
    expect(asked?.toolCall.kind).toBe("switch_mode");
    expect(asked?.options.map((option) => option.kind)).toEqual(["allow_always", "allow_once", "reject_once"]);
    expect(updatesOf(stand, "current_mode_update", sessionId).at(-1)?.currentModeId).toBe("acceptEdits");
  });

  it("leaves out an untrusted folder's hooks, and says so in the editor", async () => {
    const ran = join(fixture.home, "hook-ran");
    await mkdir(join(fixture.workspace, ".claude"), { recursive: true });
    await writeFile(
      join(fixture.workspace, ".claude", "settings.json"),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${ran}` }] }] } }),
    );
    fixture.server.reply(answer("Hello."));
    const stand = editor();
    const { sessionId } = await newSession(stand);
    await prompt(stand, sessionId, "Hi");
    expect(existsSync(ran)).toBe(false);
    expect(agentText(stand, sessionId)).toMatch(/not trusted yet[\s\S]*run minagent code there once/);
    expect(agentText(stand, sessionId)).toMatch(/Hello\.$/);
  });
});

describe("minagent acp: sessions", () => {
  it("loads a session an earlier process saved: replays it before answering, then goes on with the conversation", async () => {
    fixture.server.reply(callTool("toolu_r", "Read", { file_path: "notes.txt" }), answer("It says 42."));
    const first = editor();
    const { sessionId } = await newSession(first);
    await prompt(first, sessionId, "Read the notes");
    await first.close();

    fixture.server.reply(answer("You asked me to read the notes."));
    const second = editor();
    await second.initialize();
    const listed = await second.agent.request("session/list", { cwd: fixture.workspace });
    expect(listed.sessions).toMatchObject([{ sessionId, cwd: fixture.workspace, title: "Read the notes" }]);
    await second.agent.request("session/load", { sessionId, cwd: fixture.workspace, mcpServers: [] });
    // The replay came before the response.
    const replayed = second.updates.map(({ update }) => update.sessionUpdate);
    expect(replayed).toEqual(["user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]);
    expect(updatesOf(second, "tool_call_update", sessionId)[0]).toMatchObject({ toolCallId: "toolu_r", status: "completed" });
    await prompt(second, sessionId, "What did I ask?");
    const sent = sentMessages(requestBody(fixture, -1));
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(sent[0]?.content.join("")).toContain("Read the notes");
  });

  it("loads a session minagent code -p started", async () => {
    fixture.server.reply(answer("Forty-two."));
    const code = spawn(process.execPath, [builtBin, "code", "-p", "What is the answer?", "--model", haiku, "--cwd", fixture.workspace], {
      env: { PATH: process.env.PATH ?? "", ...env() },
      stdio: ["ignore", "pipe", "pipe"],
    });
    await new Promise((resolve) => code.on("exit", resolve));
    const [sessionId] = Object.keys(await sessionFiles(fixture));
    const stand = editor();
    await stand.initialize();
    await stand.agent.request("session/load", { sessionId: sessionId as string, cwd: fixture.workspace, mcpServers: [] });
    expect(updatesOf(stand, "user_message_chunk")[0]?.content).toEqual({ type: "text", text: "What is the answer?" });
    expect(agentText(stand)).toBe("Forty-two.");
  });

  it("offers the tools of the MCP servers the editor gives, beside the project's", async () => {
    fixture.server.reply(answer("I see the memory tools."));
    const memory = referenceServers.memory(join(fixture.home, "memory.jsonl"));
    const stand = editor();
    const { sessionId } = await newSession(stand, [
      {
        name: "memory",
        command: memory.command,
        args: [...(memory.args ?? [])],
        env: [{ name: "MEMORY_FILE_PATH", value: join(fixture.home, "memory.jsonl") }],
      },
    ]);
    // The server starts in the background: wait for its tools to reach the model.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await prompt(stand, sessionId, "What tools do you have?");
    const tools = (requestBody<{ tools: { name: string }[] }>(fixture, 0).tools ?? []).map((tool) => tool.name);
    expect(tools).toContain("mcp__memory__read_graph");
  });
});

describe("minagent acp: cancel, bad input and the editor going away", () => {
  /** Processes whose command line holds `marker`, by pid (to see whether a command's process is gone). */
  function processesWith(marker: string): number[] {
    const pids: number[] = [];
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) pids.push(Number(entry));
      } catch {
        // gone meanwhile
      }
    }
    return pids;
  }

  it("ends a prompt cancelled during a long command with cancelled, kills the command, and takes the next prompt", async () => {
    const marker = `${Date.now() % 1000}.271828`;
    fixture.server.reply(callTool("toolu_s", "Bash", { command: `sleep ${marker}` }), answer("Back again."));
    const stand = editor({ args: ["--allowedTools", "Bash(sleep:*)"] });
    const { sessionId } = await newSession(stand);
    const running = prompt(stand, sessionId, "Wait a long time");
    await until(() => statusesOf(stand, "toolu_s").includes("in_progress") && processesWith(`sleep ${marker}`).length > 0);
    const cancelledAt = Date.now();
    await stand.agent.notify("session/cancel", { sessionId });
    expect((await running).stopReason).toBe("cancelled");
    expect(Date.now() - cancelledAt).toBeLessThan(2_500);
    // SIGTERM at once, SIGKILL two seconds later for what ignores it.
    await until(() => processesWith(`sleep ${marker}`).length === 0, 4_000);
    expect(statusesOf(stand, "toolu_s").at(-1)).toBe("failed");
    // The next prompt works as ever.
    expect((await prompt(stand, sessionId, "Hello again")).stopReason).toBe("end_turn");
    expect(agentText(stand, sessionId)).toContain("Back again.");
  });

  it("cancels a prompt still queued behind the running one, and replays a cancelled call as failed", async () => {
    fixture.server.reply(callTool("toolu_s", "Bash", { command: "sleep 30" }));
    const stand = editor({ args: ["--allowedTools", "Bash(sleep:*)"] });
    const { sessionId } = await newSession(stand);
    const first = prompt(stand, sessionId, "Wait");
    const second = prompt(stand, sessionId, "And then this");
    await until(() => statusesOf(stand, "toolu_s").includes("in_progress"));
    await stand.agent.notify("session/cancel", { sessionId });
    expect((await first).stopReason).toBe("cancelled");
    expect((await second).stopReason).toBe("cancelled");
    expect(fixture.server.requests).toHaveLength(1);
    await stand.close();
    // Loaded elsewhere, the cut-short call does not spin.
    const again = editor();
    await again.initialize();
    await again.agent.request("session/load", { sessionId, cwd: fixture.workspace, mcpServers: [] });
    expect(statusesOf(again, "toolu_s")).toEqual(["pending", "failed"]);
  });

  it("withdraws a permission question when the turn is cancelled, and writes nothing", async () => {
    fixture.server.reply(callTool("toolu_w", "Write", { file_path: "out.txt", content: "late\n" }));
    let stand: StandInEditor | undefined;
    stand = editor({
      answerPermission: async () => {
        await stand?.agent.notify("session/cancel", { sessionId: stand.permissionRequests[0]?.sessionId ?? "" });
        // The editor answers late, with allow: it must not count.
        await new Promise((resolve) => setTimeout(resolve, 200));
        return "allow_once";
      },
    });
    const { sessionId } = await newSession(stand);
    expect((await prompt(stand, sessionId, "Write it")).stopReason).toBe("cancelled");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(join(fixture.workspace, "out.txt"))).toBe(false);
    expect(statusesOf(stand, "toolu_w").at(-1)).toBe("failed");
  });

  it("kills a command that ignores SIGTERM when stdin closes, unsandboxed too", async () => {
    const marker = `${Date.now() % 1000}.161803`;
    fixture.server.reply(callTool("toolu_s", "Bash", { command: `trap '' TERM; sleep ${marker}` }));
    const stand = editor({ args: ["--permission-mode", "bypassPermissions", "--no-sandbox"] });
    const { sessionId } = await newSession(stand);
    void prompt(stand, sessionId, "Wait").catch(() => {});
    await until(() => processesWith(`sleep ${marker}`).length > 0);
    stand.child.stdin?.end();
    await stand.exited;
    await until(() => processesWith(`sleep ${marker}`).length === 0, 2_000);
  });

  it("exits within two seconds of stdin closing, with a session open and a command running, leaving no process behind", async () => {
    const marker = `${Date.now() % 1000}.314159`;
    fixture.server.reply(callTool("toolu_s", "Bash", { command: `sleep ${marker}` }));
    const stand = editor({ args: ["--allowedTools", "Bash(sleep:*)"] });
    const { sessionId } = await newSession(stand);
    void prompt(stand, sessionId, "Wait a long time").catch(() => {});
    await until(() => processesWith(`sleep ${marker}`).length > 0);
    const closedAt = Date.now();
    stand.child.stdin?.end();
    const code = await stand.exited;
    expect(Date.now() - closedAt).toBeLessThan(2_500);
    expect(code).toBe(0);
    await until(() => processesWith(`sleep ${marker}`).length === 0, 3_000);
  });

  it("answers bad lines with JSON-RPC errors and keeps running; stdout carries only JSON-RPC", async () => {
    const child = spawn(process.execPath, [builtBin, "acp", "--model", haiku], {
      env: { PATH: process.env.PATH ?? "", ...env() },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const lines: Record<string, unknown>[] = [];
    const raw: string[] = [];
    createInterface({ input: child.stdout }).on("line", (line) => {
      raw.push(line);
      lines.push(JSON.parse(line));
    });
    const send = (text: string) => child.stdin.write(`${text}\n`);
    try {
      send("this is not JSON");
      send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } }));
      // Requests before initialize has been answered are refused (-32600): wait for it, as an editor does.
      await until(() => lines.some((line) => line.id === 1));
      send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "no/such_method", params: {} }));
      send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd: 42 } }));
      send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 4,
          method: "session/prompt",
          params: { sessionId: "nope", prompt: [{ type: "text", text: "hi" }] },
        }),
      );
      send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "session/new", params: { cwd: "relative/folder", mcpServers: [] } }));
      send(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "session/new", params: { cwd: fixture.workspace, mcpServers: [] } }));
      await until(() => lines.some((line) => line.id === 6));
      const byId = (id: number | null) =>
        lines.find((line) => line.id === id) as { error?: { code: number; message: string }; result?: unknown };
      expect(byId(null).error?.code).toBe(-32700);
      expect(byId(1).result).toMatchObject({ protocolVersion: 1 });
      expect(byId(2).error?.code).toBe(-32601);
      expect(byId(3).error?.code).toBe(-32602);
      expect(byId(4).error?.message).toMatch(/no session nope/);
      expect(byId(5).error?.message).toMatch(/absolute path/);
      expect(byId(6).result).toMatchObject({ sessionId: expect.any(String) });
      expect(raw.every((line) => (JSON.parse(line) as { jsonrpc?: string }).jsonrpc === "2.0")).toBe(true);
    } finally {
      child.stdin.end();
      await new Promise((resolve) => child.on("exit", resolve));
    }
  });

  it("says what is wrong with a flag that does not apply, exit 2", async () => {
    const child = spawn(process.execPath, [builtBin, "acp", "--continue"], {
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise((resolve) => child.on("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain("--continue does not apply to minagent acp");
  });
});
