import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { answer, anthropicEnv, callTool, printArgs, runCode, sentMessages, useCodeFixture } from "./code-helpers.js";

const fixture = useCodeFixture();

/** One -p prompt whose model runs `command` with Bash, then answers; resolves to the session id. */
async function bashTurn(prompt: string, command: string, ...flags: string[]): Promise<string> {
  fixture.server.reply(callTool(`toolu_${prompt.length}`, "Bash", { command }), answer("Done."));
  const outcome = await runCode(
    printArgs(fixture, prompt, "--output-format", "json", "--permission-mode", "bypassPermissions", "--no-sandbox", ...flags),
    anthropicEnv(fixture),
  );
  expect(outcome.exit, outcome.stderr).toBe(0);
  return JSON.parse(outcome.stdout).session_id;
}

const read = (path: string) => readFileSync(join(fixture.workspace, path), "utf8");
const rewindArgs = (...more: string[]) => ["-p", "--model", "anthropic:claude-haiku-4-5", "--cwd", fixture.workspace, ...more];

describe("minagent code -p --rewind", () => {
  test("lists a resumed session's checkpoints, rewinds code and conversation, and goes on from there", async () => {
    const id = await bashTurn("make a file", "echo one > made.txt && sed -i 's/42/43/' notes.txt");
    await bashTurn("make another", "echo two > other.txt", "--resume", id);
    expect(read("notes.txt")).toBe("The answer is 43.\n");

    const listed = await runCode(rewindArgs("--resume", id, "--rewind", "list"), anthropicEnv(fixture));
    expect(listed.exit, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^#1 {2}2 files \+2 −1 {2}make a file\n#2 {2}1 file \+1 −0 {2}make another\n$/);

    // Back to before the first prompt, and a new prompt from there: the model sees none of the old conversation.
    fixture.server.reply(answer("Fresh start."));
    const rewound = await runCode(rewindArgs("--resume", id, "--rewind", "1", "start over"), anthropicEnv(fixture));
    expect(rewound.exit, rewound.stderr).toBe(0);
    expect(rewound.stderr).toContain("rewound to before #1: 3 files restored");
    expect(read("notes.txt")).toBe("The answer is 42.\n");
    expect(existsSync(join(fixture.workspace, "made.txt"))).toBe(false);
    expect(existsSync(join(fixture.workspace, "other.txt"))).toBe(false);
    const sent = sentMessages(fixture.server.requests.at(-1)?.body);
    expect(sent.map((message) => message.content.join(" "))).toEqual(["start over"]);

    // The rewind is checkpoint 3; undoing it brings files and conversation back.
    const undone = await runCode(rewindArgs("--resume", id, "--rewind", "3", "--output-format", "json"), anthropicEnv(fixture));
    expect(undone.exit, undone.stderr).toBe(0);
    expect(JSON.parse(undone.stdout)).toMatchObject({ type: "rewind", to: 3, restored: ["made.txt", "notes.txt", "other.txt"] });
    expect(read("other.txt")).toBe("two\n");
  });

  test("refuses to overwrite a file changed by hand, names it, and changes nothing; keep leaves it", async () => {
    const id = await bashTurn("change", "echo agent > a.txt && echo agent > b.txt");
    writeFileSync(join(fixture.workspace, "a.txt"), "mine\n");
    const refused = await runCode(rewindArgs("--resume", id, "--rewind", "1"), anthropicEnv(fixture));
    expect(refused.exit).toBe(1);
    expect(refused.stderr).toMatch(/a\.txt: changed after the agent's last change/);
    expect(read("b.txt")).toBe("agent\n");
    const kept = await runCode(rewindArgs("--resume", id, "--rewind", "1", "--rewind-conflicts", "keep"), anthropicEnv(fixture));
    expect(kept.exit, kept.stderr).toBe(0);
    expect(read("a.txt")).toBe("mine\n");
    expect(existsSync(join(fixture.workspace, "b.txt"))).toBe(false);
  });

  test("a fork starts with its parent's checkpoints; rewinding the fork never touches the parent's later files", async () => {
    const parent = await bashTurn("base", "echo base > base.txt");
    const fork = await bashTurn("in the fork", "echo fork > fork.txt", "--resume", parent, "--fork-session");
    expect(fork).not.toBe(parent);
    await bashTurn("parent goes on", "echo later > parent-later.txt", "--resume", parent);

    const forkList = await runCode(rewindArgs("--resume", fork, "--rewind", "list"), anthropicEnv(fixture));
    expect(forkList.stdout).toMatch(/^#1 .* base\n#2 .* in the fork\n$/);
    const rewound = await runCode(rewindArgs("--resume", fork, "--rewind", "1", "--rewind-scope", "code"), anthropicEnv(fixture));
    expect(rewound.exit, rewound.stderr).toBe(0);
    expect(existsSync(join(fixture.workspace, "fork.txt"))).toBe(false);
    expect(existsSync(join(fixture.workspace, "base.txt"))).toBe(false);
    expect(read("parent-later.txt")).toBe("later\n");

    const parentList = await runCode(rewindArgs("--resume", parent, "--rewind", "list"), anthropicEnv(fixture));
    expect(parentList.stdout).toMatch(/^#1 .* base\n#2 .* parent goes on\n$/);
  });

  test("bad flags say what is wrong", async () => {
    const env = anthropicEnv(fixture);
    expect((await runCode(rewindArgs("--rewind", "1"), env)).stderr).toContain("--continue or --resume");
    expect((await runCode(rewindArgs("--continue", "--rewind", "1", "--rewind-scope", "files"), env)).stderr).toContain(
      '--rewind-scope must be both, code or conversation, got "files"',
    );
  });
});
