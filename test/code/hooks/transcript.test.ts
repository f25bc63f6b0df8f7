import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeModel } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { createHookAgent } from "../helpers/hook-agent.js";

let workspace: string;
beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), "minagent-transcript-"));
});
afterEach(() => rmSync(workspace, { recursive: true, force: true }));

describe("transcript_path", () => {
  it("is a private JSON Lines file in Claude Code's line shape holding the conversation so far; close() removes it", async () => {
    const token = "ghp_4f9Qm2LxT7vR8kZs1NwY3pDa6cHe0uJb5GiK";
    process.env.RELEASE_BOT_TOKEN = token;
    try {
      const model = new FakeModel([
        reply("Checking the changelog.", toolCall("Bash", { command: `echo ${token} | gh auth login --with-token` }, "b1")),
        reply("", toolCall("Bash", { command: "git log --oneline -1" }, "b2")),
        "Released.",
      ]);
      const snapshots: { path: string; lines: unknown[]; mode: string | undefined }[] = [];
      const agent = await createHookAgent(
        model,
        workspace,
        {
          PreToolUse: [
            {
              hooks: [
                {
                  type: "function",
                  run: ({ transcriptPath, permissionMode }) => {
                    const path = transcriptPath as string;
                    const text = readFileSync(path, "utf8");
                    snapshots.push({
                      path,
                      lines: text
                        .trim()
                        .split("\n")
                        .map((line) => JSON.parse(line)),
                      mode: permissionMode,
                    });
                  },
                },
              ],
            },
          ],
        },
        { mode: "bypassPermissions" },
      );

      await agent.run("Cut the release.");

      expect(snapshots).toHaveLength(2);
      const [first, second] = snapshots;
      expect(second?.path).toBe(first?.path);
      expect(first?.mode).toBe("bypassPermissions");
      expect((statSync(first?.path as string).mode & 0o777).toString(8)).toBe("600");
      // Before the first call: the prompt and the assistant's turn with its tool_use block; no system prompt.
      expect(first?.lines).toMatchObject([
        { type: "user", message: { role: "user", content: "Cut the release." }, parentUuid: null, cwd: workspace },
        {
          type: "assistant",
          message: {
            role: "assistant",
            content: [
              { type: "text", text: "Checking the changelog." },
              { type: "tool_use", id: "b1", name: "Bash", input: { command: expect.stringContaining("gh auth login") } },
            ],
          },
        },
      ]);
      // Before the second: the first call's result and the next turn were appended.
      expect(second?.lines).toHaveLength(4);
      expect(second?.lines[2]).toMatchObject({
        type: "user",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: "b1" }] },
      });
      const [, turn, result] = (second?.lines ?? []) as { uuid: string; parentUuid: string }[];
      expect(result?.parentUuid).toBe(turn?.uuid);
      // A credential from the environment is hidden, as in session files.
      expect(readFileSync(first?.path as string, "utf8")).not.toContain(token);

      await agent.close();
      expect(existsSync(first?.path as string)).toBe(false);
    } finally {
      delete process.env.RELEASE_BOT_TOKEN;
    }
  });
});
