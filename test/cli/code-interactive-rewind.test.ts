import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runInteractiveSession } from "../../src/cli/code/interactive/index.js";
import type { CodeSession, CodeSessionContext } from "../../src/cli/code/session-context.js";
import { CodingAgent } from "../../src/code/coding-agent.js";
import type { Message } from "../../src/core/types.js";
import { FakeModel, type FakeModelScriptItem } from "../../src/models/fake-model.js";
import { reply, toolCall } from "../../src/testing/script.js";
import { temporaryFolder } from "../helpers/temporary-folder.js";
import { type FakeTerminal, fakeTerminal, interactiveOptions, until } from "./interactive-harness.js";

// /rewind, Esc Esc and /diff in the interactive session, in process: a scripted model whose Bash calls change real
// files in a temporary workspace, checkpoints in a store of their own, keys written to a fake terminal.

type RecordingSession = CodeSession & { marked: string[]; rewound: { messages: readonly Message[]; checkpointId: string }[] };

function recordingSession(id: string): RecordingSession {
  const session: RecordingSession = {
    id,
    file: `/sessions/${id}.jsonl`,
    history: [],
    record: () => {},
    flush: async () => {},
    marked: [],
    rewound: [],
    markCheckpoint: (checkpointId) => void session.marked.push(checkpointId),
    conversationBefore: async () => undefined,
    rewindConversation: (messages, checkpointId) => void session.rewound.push({ messages, checkpointId }),
    name: undefined,
    rename: () => {},
    addMessages: () => {},
  };
  return session;
}

let workspace: string;
let store: string;
const agents: CodingAgent[] = [];
beforeEach(async () => {
  workspace = temporaryFolder("minagent-rewind-ui-");
  store = temporaryFolder("minagent-rewind-ui-store-");
  await writeFile(join(workspace, "notes.txt"), "original\n");
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
  for (const folder of [workspace, store]) await rm(folder, { recursive: true, force: true });
});

function setUp(script: FakeModelScriptItem[], { checkpoints = true } = {}) {
  const terminal = fakeTerminal();
  const model = new FakeModel(script);
  const session = recordingSession("session-1");
  const context: CodeSessionContext = {
    io: { stdout: () => {}, stderr: () => {}, readLine: async () => undefined, env: {} },
    terminal,
    model: { spec: "anthropic:claude-haiku-4-5", id: "claude-haiku-4-5", instance: model },
    options: interactiveOptions(workspace),
    createAgent: async (overrides) => {
      const agent = await CodingAgent.create(model, {
        workspace,
        settingsFiles: [],
        rules: { allow: ["Bash"] },
        sandbox: false,
        sessionId: session.id,
        ...(checkpoints && { checkpoints: { directory: store } }),
        ...overrides,
      });
      agents.push(agent);
      return agent;
    },
    session,
    sessions: {
      create: async () => recordingSession("session-2"),
      open: async () => session,
      list: async () => [],
      remove: async () => false,
    },
    spending: { usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, isBudgetExceeded: () => false },
    signal: new AbortController().signal,
  };
  return { context, terminal, model, session, exit: runInteractiveSession(context) };
}

/** A first prompt answered without tools, then "change it", whose Bash call rewrites notes.txt and creates made.txt. */
const twoPrompts = (...after: FakeModelScriptItem[]): FakeModelScriptItem[] => [
  "Hi.",
  reply("Changing.", toolCall("Bash", { command: "echo changed > notes.txt && echo new > made.txt" }, "b1")),
  "Changed.",
  ...after,
];

async function runTwoPrompts(terminal: FakeTerminal): Promise<void> {
  await until(terminal, "/help for commands");
  terminal.press("hello\r");
  await until(terminal, "Hi.");
  terminal.press("change it\r");
  await until(terminal, "Changed.");
}

const read = (name: string) => readFile(join(workspace, name), "utf8");
/** The screen from the last occurrence of `marker` on. */
const fromLast = (screen: string, marker: string) => screen.slice(screen.lastIndexOf(marker));
/** What the model was last sent, without the system prompt. */
const lastSent = (model: FakeModel) => model.requests.at(-1)?.messages.filter((message) => message.role !== "system") ?? [];

describe("/rewind in the interactive session", () => {
  test("lists the checkpoints newest first, restores the files and the conversation, puts the prompt back on the line", async () => {
    const { terminal, model, session, exit } = setUp(twoPrompts("Again."));
    await runTwoPrompts(terminal);
    expect(await read("notes.txt")).toBe("changed\n");
    expect(session.marked).toHaveLength(2);

    terminal.press("/rewind\r");
    const list = await until(terminal, /Rewind to before which prompt\?[\s\S]*1\. #2 .*\n.*2\. #1 /);
    expect(list).toMatch(/› 1\. #2 {2}just now {2}2 files \+2 −1 {2}change it\n +2\. #1 {2}just now {2}no file changes {2}hello\n/);
    terminal.press("\r");
    await until(terminal, "3. Code only");
    terminal.press("1");
    const summary = fromLast(await until(terminal, "Undo: /rewind and choose #3"), "Rewound");
    expect(summary).toContain("Rewound the code and the conversation to before #2.");
    expect(summary).toMatch(/2 files restored:\n {4}D made\.txt \+0 −1\n {4}M notes\.txt \+1 −1\n/);
    expect(await read("notes.txt")).toBe("original\n");
    expect(existsSync(join(workspace, "made.txt"))).toBe(false);
    // The session file is rewritten to the conversation before "change it", under the rewind's checkpoint.
    expect(session.rewound).toHaveLength(1);
    expect(session.rewound[0]?.messages.filter((message) => message.role !== "system").map((message) => message.content)).toEqual([
      "hello",
      "Hi.",
    ]);
    // The rewound prompt is back on the line to edit; sent again, the model sees the shorter conversation.
    await until(terminal, /> change it$/);
    terminal.press(" again\r");
    await until(terminal, "Again.");
    expect(lastSent(model).map((message) => message.content)).toEqual(["hello", "Hi.", "change it again"]);
    terminal.press("/exit\r");
    expect(await exit).toBe(0);
  });

  test("code only restores the files and keeps the conversation; conversation only keeps the files", async () => {
    const { terminal, model, session, exit } = setUp(twoPrompts("Next.", "Last."));
    await runTwoPrompts(terminal);
    terminal.press("/rewind 2\r");
    await until(terminal, "3. Code only");
    terminal.press("3");
    await until(terminal, "Rewound the code to before #2.");
    expect(await read("notes.txt")).toBe("original\n");
    expect(session.rewound).toHaveLength(0);
    terminal.press("next\r");
    await until(terminal, "Next.");
    // The whole conversation goes on: the Bash call and its result included.
    expect(lastSent(model).map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant", "tool", "assistant", "user"]);

    // Undo the code rewind (#3), then the conversation alone back to before #2: the files stay as the agent left them.
    terminal.press("/rewind 3\r");
    await until(terminal, /Rewind to before #3 .*\n[\s\S]*3\. Code only/);
    terminal.press("3");
    await until(terminal, "Rewound the code to before #3.");
    expect(await read("notes.txt")).toBe("changed\n");
    terminal.press("/rewind 2\r");
    await until(terminal, /Rewind to before #2 [\s\S]*Rewind to before #2 [\s\S]*3\. Code only/);
    terminal.press("2");
    const summary = fromLast(await until(terminal, "Rewound the conversation to before #2."), "Rewound the conversation");
    expect(summary).not.toContain("restored");
    expect(await read("notes.txt")).toBe("changed\n");
    expect(session.rewound.map((rewind) => rewind.messages.filter((message) => message.role !== "system").length)).toEqual([2]);
    await until(terminal, /> change it$/);
    terminal.press("\x15last\r");
    await until(terminal, "Last.");
    expect(lastSent(model).map((message) => message.content)).toEqual(["hello", "Hi.", "last"]);
    terminal.press("/exit\r");
    expect(await exit).toBe(0);
  });

  test("a prompt of several lines comes back whole", async () => {
    const { terminal, exit } = setUp(["One.", "Two."]);
    await until(terminal, "/help for commands");
    terminal.press("first line\\\rsecond line\r");
    await until(terminal, "One.");
    terminal.press("/rewind 1\r");
    await until(terminal, "4. Cancel");
    terminal.press("2");
    await until(terminal, /Undo: \/rewind and choose #2\n> first line\n {2}second line$/);
    // Ctrl-C clears the line it was put on.
    terminal.press("\x03/exit\r");
    expect(await exit).toBe(0);
  });

  test("a file changed by hand since is asked about: keep leaves it, overwrite restores it", async () => {
    const { terminal, exit } = setUp(twoPrompts());
    await runTwoPrompts(terminal);
    await writeFile(join(workspace, "notes.txt"), "mine\n");
    terminal.press("/rewind 2\r");
    await until(terminal, "3. Code only");
    terminal.press("3");
    const asked = await until(terminal, "3. Cancel\n");
    expect(asked).toMatch(/A file was changed after the agent's last change:\n {2}notes\.txt: changed after the agent's last change/);
    expect(asked).toMatch(/1\. Keep my versions of these files\n +2\. Overwrite them\n +3\. Cancel\n/);
    terminal.press("1");
    await until(terminal, "Undo: /rewind and choose #3");
    expect(fromLast(terminal.text(), "Kept as they are")).toMatch(
      /^Kept as they are: notes\.txt\nRewound the code to before #2\.\n {2}1 file restored:\n {4}D made\.txt/,
    );
    expect(await read("notes.txt")).toBe("mine\n");
    expect(existsSync(join(workspace, "made.txt"))).toBe(false);

    terminal.press("/rewind 2\r");
    await until(terminal, /Kept as they are[\s\S]*3\. Code only/);
    terminal.press("3");
    await until(terminal, /Kept as they are[\s\S]*2\. Overwrite them/);
    terminal.press("2");
    await until(terminal, "Undo: /rewind and choose #4");
    expect(await read("notes.txt")).toBe("original\n");
    terminal.press("/exit\r");
    expect(await exit).toBe(0);
  });

  test("Esc Esc on an empty prompt opens the list (not on a line with text); Esc there cancels", async () => {
    const { terminal, exit } = setUp(twoPrompts());
    await until(terminal, "/help for commands");
    terminal.press("\x1b\x1b");
    await until(terminal, "No checkpoints yet");
    await runTwoPrompts(terminal);
    terminal.press("abc\x1b\x1bd");
    await until(terminal, /> abcd$/);
    expect(fromLast(terminal.text(), "Changed.")).not.toContain("Rewind to before");
    terminal.press("\x15\x1b\x1b");
    await until(terminal, /Rewind to before which prompt\?[\s\S]*#1 /);
    terminal.press("\x1b");
    await until(terminal, "Rewind cancelled.");
    expect(await read("notes.txt")).toBe("changed\n");
    terminal.press("/exit\r");
    expect(await exit).toBe(0);
  });

  test("/diff shows the session's changes as a unified diff, or one checkpoint's; nothing changed is said", async () => {
    const { terminal, exit } = setUp(twoPrompts());
    await until(terminal, "/help for commands");
    terminal.press("/diff\r");
    await until(terminal, "No file changes in this session yet.");
    await runTwoPrompts(terminal);
    terminal.press("/diff\r");
    const diff = fromLast(await until(terminal, /\+\+\+ b\/notes\.txt[\s\S]*\+changed\n/), "/diff");
    expect(diff).toMatch(/--- \/dev\/null\t?.*\n\+\+\+ b\/made\.txt\t?.*\n@@ -0,0 \+1(,1)? @@\n\+new\n/);
    expect(diff).toMatch(/--- a\/notes\.txt\t?.*\n\+\+\+ b\/notes\.txt\t?.*\n@@ -1,1 \+1,1 @@\n-original\n\+changed\n/);
    terminal.press("/diff 1\r");
    await until(terminal, "No file changes after checkpoint #1.");
    terminal.press("/help\r");
    const help = await until(terminal, "/diff [n]");
    expect(help).toMatch(/\/rewind \[n\] +go back to before a prompt/);
    terminal.press("/exit\r");
    expect(await exit).toBe(0);
  });

  test("/clear goes on with the new session's checkpoints, /resume with the old one's", async () => {
    const { terminal, exit } = setUp(twoPrompts());
    await runTwoPrompts(terminal);
    terminal.press("/clear\r");
    await until(terminal, "New conversation.");
    terminal.press("/rewind\r");
    await until(terminal, "No checkpoints yet");
    terminal.press("/resume session-1\r");
    await until(terminal, "Session session-1");
    terminal.press("/rewind\r");
    await until(terminal, /Rewind to before which prompt\?[\s\S]*1\. #2 .*change it/);
    terminal.press("\x1b");
    await until(terminal, "Rewind cancelled.");
    terminal.press("/exit\r");
    expect(await exit).toBe(0);
  });

  test("without checkpoints /rewind names the setting that turned them off", async () => {
    const { terminal, exit } = setUp([], { checkpoints: false });
    await until(terminal, "/help for commands");
    terminal.press("/rewind\r");
    await until(terminal, 'Checkpoints are off for this session ("checkpoints": {"enabled": false} in a settings file)');
    terminal.press("/exit\r");
    expect(await exit).toBe(0);
  });
});
