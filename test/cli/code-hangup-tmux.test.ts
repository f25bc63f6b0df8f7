import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { findBubblewrap } from "../../src/code/sandbox/bubblewrap.js";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { bin, hasTmux, Pane } from "./tmux-pane.js";

// Closing the terminal window: tmux's kill-server hangs up the pane as a closed window does (SIGHUP). The session
// must end as it does on SIGTERM: SessionEnd hooks run, and the folders it made under $TMPDIR are gone.

const hasBubblewrap = !("problem" in (await findBubblewrap()));

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
}

describe.skipIf(!hasTmux || !hasBubblewrap)("minagent code when its terminal is closed (tmux)", () => {
  let server: WireServer;
  let root: string;
  let pane: Pane;

  beforeEach(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: npm test builds it first (or set MINAGENT_TEST_BIN)`);
    server = await startWireServer();
    root = await mkdtemp(join(tmpdir(), "minagent-hangup-"));
    pane = new Pane({ columns: 100, rows: 20 });
  });

  afterEach(async () => {
    await pane.kill();
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  test("a hang-up ends the session as SIGTERM does: SessionEnd hooks run and the sandbox's temporary folder is removed", async () => {
    const [workspace, home, temporary] = ["workspace", "home", "tmp"].map((name) => join(root, name)) as [string, string, string];
    for (const folder of [workspace, home, temporary]) await mkdir(folder);
    const ended = join(root, "session-end.json");
    await writeFile(
      join(home, "settings.json"),
      JSON.stringify({ hooks: { SessionEnd: [{ hooks: [{ type: "command", command: `cat > ${ended}` }] }] } }),
    );
    const env = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home, TMPDIR: temporary };
    await pane.start(workspace, env, ["--model", "anthropic:claude-haiku-4-5"]);
    await pane.waitFor(/^>/m);
    // A command in the sandbox makes the session's folder under $TMPDIR.
    await pane.type("! echo inside the sandbox");
    await pane.keys("Enter");
    await pane.waitFor("⎿ inside the sandbox");
    const made = (await readdir(temporary)).filter((name) => name.startsWith("minagent-sandbox-"));
    expect(made).toHaveLength(1);

    await pane.kill();

    await waitUntil(async () => existsSync(ended), 10_000, "the SessionEnd hook");
    // Node 22's compile cache (node-compile-cache) is Node's own and stays; minagent's folders must go.
    const ours = async () => (await readdir(temporary)).filter((name) => name.startsWith("minagent-"));
    await waitUntil(async () => (await ours()).length === 0, 10_000, `the minagent folders in ${temporary} to be removed`);
    expect(JSON.parse(await readFile(ended, "utf8"))).toMatchObject({ hook_event_name: "SessionEnd", reason: "other", cwd: workspace });
  }, 40_000);
});
