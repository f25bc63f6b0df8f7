import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { describeProjectSettings } from "../../src/cli/code/project-trust.js";
import { loadSettings, settingsLocations } from "../../src/code/settings/load-settings.js";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { bin, hasTmux, Pane } from "./tmux-pane.js";
import { call, lastMessage, say, toolResults } from "./tmux-replies.js";

// `minagent code` as a person uses it: the built bin in a tmux pane, keys sent with send-keys, the screen read with
// capture-pane, the model a scripted Anthropic server on 127.0.0.1. Every wait polls the screen against a deadline.
// MINAGENT_TEST_BIN points at another build of the bin (a private --outDir) instead of dist/.

describe.skipIf(!hasTmux)("minagent code on a terminal (tmux)", () => {
  let server: WireServer;
  let workspace: string;
  let home: string;
  let pane: Pane;

  beforeEach(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: npm test builds it first (or set MINAGENT_TEST_BIN)`);
    server = await startWireServer();
    workspace = await mkdtemp(join(tmpdir(), "minagent-tmux-workspace-"));
    home = await mkdtemp(join(tmpdir(), "minagent-tmux-home-"));
    await writeFile(join(workspace, "math.js"), "export function add(a, b) {\n  return a - b;\n}\n");
    pane = new Pane();
  });

  afterEach(async () => {
    await pane.kill();
    await server.close();
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  const start = async (...args: string[]) => {
    const env = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home };
    await pane.start(workspace, env, ["--model", "anthropic:claude-haiku-4-5", ...args]);
    await pane.waitFor(/^>/m);
  };

  test("a prompt, the answer streamed as it is written, the status line, slash commands, Ctrl-C twice to leave", async () => {
    const words = "The answer arrives word by word, so that a person watching sees it grow and can stop it early.";
    server.reply(say(words, true));
    await start();
    expect(await pane.statusLine()).toMatch(/default mode \(shift\+tab to cycle\)\s+claude-haiku-4-5 · 0 tokens · \$0\.0000$/);

    await pane.type("What happens?");
    await pane.keys("Enter");
    // Part of the answer is on the screen before the rest has arrived.
    const partial = await pane.waitFor((screen) => screen.includes("The answer arrives") && !screen.includes("stop it early."));
    expect(partial).toContain("working (esc to interrupt)");
    const done = await pane.waitFor((screen) => screen.includes("stop it early.") && /^>\s*$/m.test(screen.split(words)[1] ?? ""));
    expect(done).toContain("> What happens?");
    expect(await pane.statusLine()).toMatch(/default mode .*claude-haiku-4-5 · 1,530 tokens · \$0\.0017 · context 1% of 200k$/);

    await pane.type("/co");
    await pane.waitFor("/cost  tokens and cost of this session");
    await pane.type("st");
    await pane.keys("Enter");
    await pane.waitFor(/Total cost: +\$0\.0017 at list prices\nTokens: +1,500 in · 30 out/);
    await pane.type("/help");
    await pane.keys("Enter");
    await pane.waitFor(/\/compact \[focus\] +summarise the conversation/);

    await pane.keys("C-c");
    await pane.waitFor("Press Ctrl-C again to exit");
    await pane.keys("C-c");
    const left = await pane.waitFor("[exit 130]");
    // The status row is given back to the shell.
    expect(left).not.toContain("shift+tab to cycle");
  }, 30_000);

  test("permission prompts: yes (with the edit's diff), no with a reason for the model, always for the session, always in settings.local.json", async () => {
    server.reply(
      call("r1", "Read", { file_path: "math.js" }, "Let me look."),
      call("e1", "Edit", { file_path: "math.js", old_string: "return a - b;", new_string: "return a + b;" }),
      call("b1", "Bash", { command: "touch a.txt", description: "Create a.txt" }),
      call("b2", "Bash", { command: "touch b.txt" }),
      call("b3", "Bash", { command: "touch b.txt" }),
      call("b4", "Bash", { command: "mkdir out" }),
      say("All done."),
    );
    // Unsandboxed: the sandbox would run these Bash calls without asking (the sandbox's own test is below).
    await start("--no-sandbox");
    await pane.type("fix add, then make some files");
    await pane.keys("Enter");

    const edit = await pane.waitFor("Allow Edit(math.js)?");
    expect(edit).toContain("✓ Read(math.js) · 3 lines");
    expect(edit).toMatch(/1 +export function add\(a, b\) \{\n +2 - +return a - b;\n +2 \+ +return a \+ b;\n +3 +\}/);
    expect(edit).toMatch(/› 1\. Yes\n +2\. Yes, and don't ask again this session for Edit\(\/math\.js\)/);
    expect(await pane.statusLine()).toContain("waiting for your answer");
    await pane.keys("1");
    await pane.waitFor("✓ Edit(math.js)");
    expect(await readFile(join(workspace, "math.js"), "utf8")).toContain("return a + b;");

    await pane.waitFor("Allow Bash(touch a.txt)?");
    await pane.keys("4");
    await pane.waitFor("Why not? (the agent reads this; Enter to skip) ›");
    await pane.type("make b.txt instead");
    await pane.keys("Enter");
    const denied = await pane.waitFor("✗ Bash(touch a.txt) · The user denied this call: make b.txt instead");
    expect(denied).not.toContain("Why not?");

    await pane.waitFor("Allow Bash(touch b.txt)?");
    await pane.keys("2");
    await pane.waitFor("Allowed for this session: Bash(touch b.txt)");
    // The same call again is not asked about.
    await pane.waitFor((screen) => screen.split("✓ Bash(touch b.txt)").length === 3);

    await pane.waitFor("Allow Bash(mkdir out)?");
    await pane.keys("3");
    await pane.waitFor("Saved to .minagent/settings.local.json: Bash(mkdir out)");
    await pane.waitFor("All done.");

    expect(toolResults(server.requests[3])).toEqual([
      { type: "tool_result", tool_use_id: "b1", content: "The user denied this call: make b.txt instead", is_error: true },
    ]);
    expect(existsSync(join(workspace, "a.txt"))).toBe(false);
    expect(existsSync(join(workspace, "b.txt"))).toBe(true);
    expect(existsSync(join(workspace, "out"))).toBe(true);
    const settings = JSON.parse(await readFile(join(workspace, ".minagent", "settings.local.json"), "utf8"));
    expect(settings).toEqual({ permissions: { allow: ["Bash(mkdir out)"] } });
    // The person saved that rule: the next session in this folder does not ask for its trust because of it.
    const next = await loadSettings(settingsLocations({ root: workspace, userDirectory: home }));
    expect(describeProjectSettings(next, workspace)).toEqual([]);
    await pane.type("/permissions");
    await pane.keys("Enter");
    // The saved rule is the file's; the other is this session's own.
    await pane.waitFor(
      /Allow rules\n +Bash\(mkdir out\) +\S*settings\.local\.json[\s\S]*Allowed for this session\n +Bash\(touch b\.txt\)\n/,
    );
  }, 40_000);

  test("Esc stops a slow Bash and Ctrl-C a streaming answer; the conversation goes on with the stopped call answered", async () => {
    server.reply(
      call("s1", "Bash", { command: "sleep 30" }, "Waiting for the build."),
      say("Understood: I stopped waiting."),
      say("This answer is long and slow, and the person will stop it before it gets anywhere near its very end.", true),
    );
    await start("--allowedTools", "Bash(sleep 30)");
    await pane.type("wait for the build");
    await pane.keys("Enter");
    await pane.waitFor("⋯ Bash(sleep 30)");
    const before = Date.now();
    await pane.keys("Escape");
    const stopped = await pane.waitFor("Interrupted · what should the agent do instead?", 3000);
    expect(Date.now() - before).toBeLessThan(3000);
    expect(stopped).toContain("✗ Bash(sleep 30) · interrupted");
    expect(stopped).not.toContain("⋯ Bash(sleep 30)");

    await pane.type("never mind");
    await pane.keys("Enter");
    await pane.waitFor("Understood: I stopped waiting.");
    expect(lastMessage(server.requests[1])).toEqual([
      expect.objectContaining({ type: "tool_result", tool_use_id: "s1", is_error: true, content: expect.stringContaining("interrupted") }),
      { type: "text", text: "[Request interrupted by user]" },
      { type: "text", text: "never mind" },
    ]);

    await pane.type("tell me a long story");
    await pane.keys("Enter");
    await pane.waitFor("This answer is long");
    await pane.keys("C-c");
    const cut = await pane.waitFor((screen) => screen.split("tell me a long story")[1]?.includes("Interrupted") === true, 3000);
    expect(cut).not.toContain("its very end.");
    // Ctrl-C at the prompt now only warns: a second one leaves.
    await pane.keys("C-c");
    await pane.waitFor("Press Ctrl-C again to exit");
    expect(await pane.screen()).not.toContain("[exit");
  }, 30_000);

  test("Shift+Tab cycles the permission mode; in plan mode the plan is shown for approval before anything changes", async () => {
    const plan = "1. Create README.md describing add().\n2. Nothing else.";
    server.reply(
      call("w0", "Write", { file_path: "early.md", content: "too soon\n" }, "Let me write first."),
      call("p1", "ExitPlanMode", { plan }),
      call("w1", "Write", { file_path: "README.md", content: "# math\n\nadd(a, b) adds two numbers.\n" }),
      say("Wrote README.md."),
    );
    await start();
    await pane.keys("BTab");
    await pane.waitFor(/⏵⏵ accept edits on \(shift\+tab to cycle\)/);
    await pane.keys("BTab");
    await pane.waitFor(/⏸ plan mode on \(shift\+tab to cycle\)/);

    await pane.type("document add()");
    await pane.keys("Enter");
    // The question and its choices may reach the screen in two writes: wait for the last choice.
    const asked = await pane.waitFor("3. No, keep planning");
    expect(asked).toContain("Approve this plan and leave plan mode?");
    expect(asked).toMatch(/✗ Write\(early\.md\) · .*plan mode/);
    expect(asked).toMatch(/The agent's plan:\n +1\. Create README\.md describing add\(\)\.\n +2\. Nothing else\./);
    expect(asked).toContain("1. Yes, and accept edits without asking");
    expect(existsSync(join(workspace, "early.md"))).toBe(false);
    await pane.keys("1");
    const done = await pane.waitFor("Wrote README.md.");
    // The plan stays on the screen; the question does not; the Write ran without a prompt.
    expect(done).toContain("The agent's plan:");
    expect(done).not.toContain("Approve this plan");
    expect(done).not.toContain("Allow Write");
    expect(done).toContain("✓ Write(README.md)");
    expect(await pane.statusLine()).toContain("⏵⏵ accept edits on");
    expect(toolResults(server.requests[2])[0]?.content).toContain("approved the plan");
    expect(await readFile(join(workspace, "README.md"), "utf8")).toContain("adds two numbers");
  }, 30_000);

  test("a project's MCP server: asked about at start, listed by /mcp, its call asked about with the server's hints", async () => {
    const filesystem = join(
      fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-filesystem/", import.meta.url)),
      "dist",
      "index.js",
    );
    await writeFile(
      join(workspace, ".mcp.json"),
      JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [filesystem, workspace] } } }),
    );
    server.reply(call("m1", "mcp__files__read_text_file", { path: join(workspace, "math.js") }, "Reading it."), say("It subtracts."));
    const env = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home };
    await pane.start(workspace, env, ["--model", "anthropic:claude-haiku-4-5"]);
    const question = await pane.waitFor("Yes, this session only");
    expect(question).toMatch(
      /This project's \.mcp\.json asks to start MCP servers, programs of the project's choosing:\n +files: \S*node \S*/,
    );
    await pane.keys("y");
    await pane.waitFor("remembered in .minagent/settings.local.json");
    expect(JSON.parse(await readFile(join(workspace, ".minagent", "settings.local.json"), "utf8"))).toEqual({
      enabledMcpjsonServers: ["files"],
    });

    // The server starts in the background: /mcp shows "starting" until it is ready.
    const ready = /files +ready +stdio +\(.*\.mcp\.json\)\n +14 tools: read_file, read_text_file/;
    for (let attempt = 1; ; attempt++) {
      await pane.type("/mcp");
      await pane.keys("Enter");
      const shown = await pane.waitFor(ready, 1500).then(
        () => true,
        (error: unknown) => {
          if (attempt === 10) throw error;
          return false;
        },
      );
      if (shown) break;
    }
    await pane.type("what does math.js do?");
    await pane.keys("Enter");
    const ask = await pane.waitFor("Allow mcp__files__read_text_file");
    expect(ask).toContain('MCP server "files" says: read-only');
    await pane.keys("1");
    await pane.waitFor("It subtracts.");
    expect(toolResults(server.requests[1])[0]?.content).toContain("return a - b;");
  }, 30_000);

  test("a folder whose own settings run hooks is asked about before anything runs: no starts without them, yes remembers", async () => {
    await mkdir(join(workspace, ".minagent"));
    const marker = join(workspace, "hook-ran.txt");
    await writeFile(
      join(workspace, ".minagent", "settings.json"),
      JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }] },
        permissions: { allow: ["Bash(rm:*)"] },
      }),
    );
    // An agent file's hooks are the folder's commands too.
    await mkdir(join(workspace, ".claude", "agents"), { recursive: true });
    await writeFile(
      join(workspace, ".claude", "agents", "deployer.md"),
      "---\nname: deployer\ndescription: Deploys the site.\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./audit-deploy.sh\n---\nDeploy with care.\n",
    );
    const env = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home };
    server.reply(say("First."), say("Second."));

    await pane.start(workspace, env, ["--model", "anthropic:claude-haiku-4-5"]);
    const question = await pane.waitFor("Trust this folder?");
    expect(question).toContain(".minagent/settings.json: hook UserPromptSubmit: touch ");
    expect(question).toContain(".minagent/settings.json: allow Bash(rm:*)");
    expect(question).toContain(".claude/agents/deployer.md: hook PreToolUse Bash: ./audit-deploy.sh");
    await pane.type("n");
    await pane.waitFor(/^>/m);
    await pane.type("hello");
    await pane.keys("Enter");
    await pane.waitFor("First.");
    expect(existsSync(marker)).toBe(false);
    // Without trust, the agent file with hooks is left out; with it, offered.
    const agentTool = (index: number) =>
      (server.requests[index]?.body as { tools: { name: string; description: string }[] } | undefined)?.tools.find(
        (tool) => tool.name === "Agent",
      );
    expect(agentTool(0)?.description).not.toContain("deployer");
    await pane.kill();

    pane = new Pane();
    await pane.start(workspace, env, ["--model", "anthropic:claude-haiku-4-5"]);
    await pane.waitFor("Trust this folder?");
    await pane.type("y");
    await pane.waitFor(/^>/m);
    await pane.type("hello again");
    await pane.keys("Enter");
    await pane.waitFor("Second.");
    expect(existsSync(marker)).toBe(true);
    expect(agentTool(1)?.description).toContain("deployer");
    expect(JSON.parse(await readFile(join(home, "settings.json"), "utf8"))).toEqual({ trustedProjects: [workspace] });
  }, 30_000);
});
