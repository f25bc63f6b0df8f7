import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { projectFolderName } from "../../src/code/sessions/json-lines-session-store.js";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { startTraceServer } from "../../src/trace/viewer/trace-server.js";
import type { TraceSummary } from "../../src/trace/viewer/trace-summary.js";
import { bin, hasTmux, Pane } from "./tmux-pane.js";
import { say } from "./tmux-replies.js";

// Sessions have names, as a person meets them: the first prompt titles a session in /resume's list, /rename gives it
// a name that every list shows at once (/resume, the --resume picker of a new process, the trace viewer), and
// --resume takes the name. The built bin in tmux panes, the model a scripted Anthropic server.

describe.skipIf(!hasTmux)("session names on a terminal (tmux)", () => {
  let server: WireServer;
  let workspace: string;
  let home: string;
  let pane: Pane;

  beforeEach(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: npm test builds it first (or set MINAGENT_TEST_BIN)`);
    server = await startWireServer();
    workspace = await mkdtemp(join(tmpdir(), "minagent-names-workspace-"));
    home = await mkdtemp(join(tmpdir(), "minagent-names-home-"));
    await writeFile(join(workspace, "login.test.js"), "// flaky\n");
    pane = new Pane();
  });

  afterEach(async () => {
    await pane.kill();
    await server.close();
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  /** A new minagent process in a new pane (the last one's is ended). */
  const start = async (...args: string[]) => {
    await pane.kill();
    pane = new Pane({ columns: 140, rows: 40 });
    const env = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home };
    await pane.start(workspace, env, ["--model", "anthropic:claude-haiku-4-5", ...args]);
  };
  const command = async (text: string) => {
    await pane.type(text);
    await pane.keys("Enter");
  };
  const leave = async () => {
    await pane.keys("C-c");
    await pane.waitFor("Press Ctrl-C again to exit");
    await pane.keys("C-c");
    await pane.waitFor("[exit 130]");
  };
  /** The rows of /resume's list (or the --resume picker), read off the screen. */
  const resumeList = async () => {
    const screen = await pane.waitFor(/Resume a conversation:[\s\S]*Esc: stay here/);
    return screen.split("Resume a conversation:")[1]?.split("Esc: stay here")[0] ?? "";
  };

  test("the first prompt titles a session in /resume; /rename names it at once, in /resume and in a new process's --resume", async () => {
    server.reply(say("It races the server start."), say("Here is the second conversation."));
    await start();
    await pane.waitFor(/^>/m);
    await command("Why does the login test   fail sometimes?");
    await pane.waitFor("It races the server start.");
    await command("/clear");
    await pane.waitFor("New conversation.");

    // The first prompt, on one line, titles it.
    await command("/resume");
    let list = await resumeList();
    expect(list).toMatch(/› 1\. .*1 prompt, 1 turn · Why does the login test fail sometimes\?/);
    await pane.keys("Enter");
    await pane.waitFor(/Session [0-9a-f-]{36} · \d+ messages/);

    // Without a name, /rename says the title and how to name it.
    await command("/rename");
    await pane.waitFor('Titled "Why does the login test fail sometimes?" (its first prompt). /rename <name> renames it.');
    await command("/rename Login flake");
    await pane.waitFor("Named \"Login flake\". Go back to it with: minagent code --resume='Login flake'");
    await command("/rename");
    await pane.waitFor('Titled "Login flake". /rename <name> renames it.');

    // A second conversation, titled by its prompt; the first is listed by its name at once.
    await command("/clear");
    await pane.waitFor((screen) => screen.includes("New conversation.") && !screen.includes("Login flake"));
    await command("Now something else entirely");
    await pane.waitFor("Here is the second conversation.");
    await command("/resume");
    list = await resumeList();
    expect(list).toContain("· Login flake");
    expect(list).not.toContain("Why does the login test");
    await pane.keys("Escape");
    await pane.waitFor((screen) => !screen.includes("Resume a conversation:"));
    await leave();

    // A new process: the --resume picker lists both, by name and by first prompt, and opens the one chosen.
    await start("--resume");
    list = await resumeList();
    expect(list).toMatch(/1\. .*· Now something else entirely\n.*2\. .*· Login flake/);
    await pane.keys("2");
    await pane.waitFor(/Session "Login flake" · [0-9a-f-]{36} · \d+ messages/);
    await leave();

    // --resume= takes the name (case aside) as well as the id.
    await start("--resume=login FLAKE");
    const resumed = await pane.waitFor(/Session "Login flake" · [0-9a-f-]{36} · \d+ messages/);
    expect(resumed).toContain("> Why does the login test fail sometimes?");
    await leave();

    // The trace viewer's list of the folder's session files titles them the same way.
    const viewer = await startTraceServer({ path: join(home, "projects", projectFolderName(workspace)) });
    try {
      const listed = JSON.parse(await get(viewer.port, "/api/traces")) as TraceSummary[];
      expect(listed.map((trace) => trace.title).sort()).toEqual(["Login flake", "Now something else entirely"]);
    } finally {
      await viewer.close();
    }
  }, 60_000);

  test("a name given before the first prompt is kept with it; --resume names the sessions a name is ambiguous between", async () => {
    server.reply(say("First."), say("Second."));
    await start();
    await pane.waitFor(/^>/m);
    await command("/rename Release notes");
    await pane.waitFor('Named "Release notes" (saved with the first prompt).');
    await command("draft them");
    await pane.waitFor("First.");
    await command("/clear");
    await pane.waitFor("New conversation.");
    await command("/rename release notes");
    await pane.waitFor("Another session of this folder has that name too: --resume by name will ask for the id.");
    await command("draft them again");
    await pane.waitFor("Second.");
    await leave();

    await start("--resume=Release notes");
    const refused = await pane.waitFor("[exit 2]");
    expect(refused).toMatch(
      /2 sessions in .* are named "Release notes"; give its id:\n\s+[0-9a-f-]{36} .* release notes\n\s+[0-9a-f-]{36} .* Release notes/,
    );
  }, 60_000);
});

/** The body of a GET to the viewer. */
function get(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const call = request({ host: "127.0.0.1", port, path, headers: { host: `127.0.0.1:${port}` } }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () => resolve(body));
    });
    call.on("error", reject);
    call.end();
  });
}
