import { execFileSync } from "node:child_process";
import { existsSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FakeModel } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { checkpointAgent, checkpointWorkspace, gitFingerprint, readText, writeText } from "./checkpoint-fixtures.js";

const bash = (command: string, id: string) => reply("", toolCall("Bash", { command }, id));

/** A session that writes, edits and runs shell commands (git status among them), then the rewind to before it. */
function scriptedSession(): FakeModel {
  return new FakeModel([
    reply("", toolCall("Read", { file_path: "tracked.txt" }, "r1")),
    reply("", toolCall("Edit", { file_path: "tracked.txt", old_string: "one", new_string: "ONE" }, "e1")),
    reply("", toolCall("Write", { file_path: "written.txt", content: "written\n" }, "w1")),
    bash("git status --short > /dev/null; echo changed >> untracked.txt && echo made > made-by-bash.txt", "b1"),
    "Done.",
  ]);
}

function git(root: string, ...args: string[]): string {
  return execFileSync("git", ["-C", root, "-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { encoding: "utf8" });
}

describe("checkpoints in a git repository", () => {
  it("a session and its rewind leave status, refs, stash, index bytes and object count as they were", async () => {
    const where = checkpointWorkspace({ "tracked.txt": "one\n", "staged.txt": "base\n", ".gitignore": "ignored.log\n" });
    git(where.root, "init", "-q", "-b", "main");
    git(where.root, "add", "tracked.txt", "staged.txt", ".gitignore");
    git(where.root, "commit", "-q", "-m", "first");
    git(where.root, "branch", "feature");
    writeText(join(where.root, "staged.txt"), "stashed\n");
    git(where.root, "stash", "push", "-q", "-m", "a stash entry");
    writeText(join(where.root, "staged.txt"), "staged change\n");
    git(where.root, "add", "staged.txt");
    writeText(join(where.root, "untracked.txt"), "untracked\n");
    writeText(join(where.root, "ignored.log"), "ignored\n");
    // Files older than the index, and the index refreshed: no entry is "racy", so no later git command rewrites
    // the index of its own accord, and its bytes can be compared.
    const anHourAgo = new Date(Date.now() - 3_600_000);
    for (const name of ["tracked.txt", "staged.txt", ".gitignore", "untracked.txt", "ignored.log"])
      utimesSync(join(where.root, name), anHourAgo, anHourAgo);
    git(where.root, "status", "--short");
    const before = gitFingerprint(where.root);

    const agent = await checkpointAgent(scriptedSession(), where);
    const result = await agent.run("Change things.");
    expect(result.status).toBe("completed");
    expect(readText(where.root, "tracked.txt")).toBe("ONE\n");
    expect(readText(where.root, "untracked.txt")).toBe("untracked\nchanged\n");
    const changed = agent.checkpoints?.checkpoints[0]?.changes.map((change) => [change.path.slice(where.root.length + 1), change.by]);
    expect(changed).toEqual([
      ["tracked.txt", "Edit"],
      ["written.txt", "Write"],
      ["made-by-bash.txt", "Bash"],
      ["untracked.txt", "Bash"],
    ]);
    // Nothing of the checkpoints went into .git: git status ran mid-session and may refresh the index's stat
    // data, but no object was written.
    expect(gitFingerprint(where.root).objects).toBe(before.objects);

    const outcome = await agent.rewind(1);
    expect(outcome.conflicts).toEqual([]);
    await agent.close();
    expect(readText(where.root, "tracked.txt")).toBe("one\n");
    expect(readText(where.root, "untracked.txt")).toBe("untracked\n");
    expect(existsSync(join(where.root, "written.txt"))).toBe(false);
    expect(existsSync(join(where.root, "made-by-bash.txt"))).toBe(false);
    const after = gitFingerprint(where.root);
    expect(after.status).toBe(before.status);
    expect(after.refs).toBe(before.refs);
    expect(after.stash).toBe(before.stash);
    expect(after.objects).toBe(before.objects);
    expect(after.index).toBe(before.index);
  });

  it("the same session in a folder that is not a repository", async () => {
    const where = checkpointWorkspace({ "tracked.txt": "one\n", "untracked.txt": "untracked\n" });
    const agent = await checkpointAgent(scriptedSession(), where);
    await agent.run("Change things.");
    expect(agent.checkpoints?.checkpoints[0]?.changes).toHaveLength(4);
    await agent.rewind(1);
    await agent.close();
    expect(readText(where.root, "tracked.txt")).toBe("one\n");
    expect(readText(where.root, "untracked.txt")).toBe("untracked\n");
    expect(existsSync(join(where.root, "written.txt"))).toBe(false);
    expect(existsSync(join(where.root, "made-by-bash.txt"))).toBe(false);
    expect(existsSync(join(where.root, ".git"))).toBe(false);
  });
});
