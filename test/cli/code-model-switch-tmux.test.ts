import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startWireServer, type WireRequest, type WireServer } from "../../src/testing/wire-server.js";
import { responsesOutput, responsesResponse, responsesStream } from "../helpers/wire-bodies.js";
import { bin, hasTmux, Pane } from "./tmux-pane.js";
import { say } from "./tmux-replies.js";

// `/model` as a person uses it: the built bin in a tmux pane, one local server answering as Anthropic
// (/v1/messages) and as OpenAI's Responses API (/v1/responses), what each request asked for read back.

/** An OpenAI Responses answer (streamed) with the same token counts as `say`'s. */
const openAISay = (text: string) => ({
  sse: responsesStream(responsesResponse(responsesOutput(text, []), { usage: [1500, 30] })),
  chunkSize: 64,
});

const modelOf = (request: WireRequest | undefined) => (request?.body as { model?: string } | undefined)?.model;

describe.skipIf(!hasTmux)("/model on a terminal (tmux)", () => {
  let server: WireServer;
  let workspace: string;
  let home: string;
  let pane: Pane;

  beforeEach(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: npm test builds it first (or set MINAGENT_TEST_BIN)`);
    server = await startWireServer();
    workspace = await mkdtemp(join(tmpdir(), "minagent-tmux-model-workspace-"));
    home = await mkdtemp(join(tmpdir(), "minagent-tmux-model-home-"));
    pane = new Pane();
  });

  afterEach(async () => {
    await pane.kill();
    await server.close();
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  const anthropicEnv = () => ({ ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home });
  const start = async (env: Record<string, string>, ...args: string[]) => {
    await pane.start(workspace, env, ["--model", "anthropic:claude-haiku-4-5", ...args]);
    await pane.waitFor(/^>/m);
  };
  const prompt = async (text: string, answer: string) => {
    await pane.type(text);
    await pane.keys("Enter");
    await pane.waitFor((screen) => screen.includes(answer) && /^>\s*$/m.test(screen.split(answer)[1] ?? ""));
  };
  const command = async (text: string, expected: string | RegExp) => {
    await pane.type(text);
    await pane.keys("Enter");
    return pane.waitFor(expected);
  };

  test("Haiku, then Sonnet, then OpenAI's GPT-5: each next prompt goes to the new model, the status line and /cost follow; a bad model string changes nothing", async () => {
    server.reply(say("One."), say("Two."), openAISay("Three."));
    await start({ ...anthropicEnv(), OPENAI_API_KEY: "sk-openai-test", OPENAI_BASE_URL: `${server.url}/v1` });
    expect(await pane.statusLine()).toMatch(/default mode \(shift\+tab to cycle\)\s+claude-haiku-4-5 · 0 tokens · \$0\.0000$/);

    await prompt("First?", "One.");
    expect(modelOf(server.requests[0])).toBe("claude-haiku-4-5");
    expect(await pane.statusLine()).toMatch(/claude-haiku-4-5 · 1,530 tokens · \$0\.0017 · context 1% of 200k$/);

    // No model behind it: said, and the session stays where it was.
    await command("/model nosuch:thing", "The session stays on anthropic:claude-haiku-4-5.");
    expect(await pane.screen()).toMatch(/Could not switch to nosuch:thing: Model "nosuch:thing": unknown provider "nosuch"/);
    expect(await pane.statusLine()).toMatch(/claude-haiku-4-5 · 1,530 tokens/);

    await command("/model anthropic:claude-sonnet-4-5", "Switched to anthropic:claude-sonnet-4-5: the next prompt goes to it.");
    await pane.waitFor((screen) => /claude-sonnet-4-5 · 1,530 tokens · \$0\.0017 · context 1% of 200k\s*$/.test(screen));
    await prompt("Second?", "Two.");
    expect(modelOf(server.requests[1])).toBe("claude-sonnet-4-5");
    // The same conversation goes on: the first answer is in what Sonnet was sent.
    expect(JSON.stringify(server.requests[1]?.body)).toContain("One.");
    // Haiku's $0.00165 and Sonnet's $0.00495.
    expect(await pane.statusLine()).toMatch(/claude-sonnet-4-5 · 3,060 tokens · \$0\.0066 · context 1% of 200k$/);

    // Another provider: OpenAI's Responses API, its key and base URL from the environment, its window (272k of input).
    const switched = await command("/model openai:gpt-5", "Switched to openai:gpt-5");
    expect(switched).toMatch(/Context window: 272,000 tokens\nList price: \$1\.25 in \/ \$10 out per million tokens/);
    await prompt("Third?", "Three.");
    expect(server.requests[2]?.path).toBe("/v1/responses");
    expect(modelOf(server.requests[2])).toBe("gpt-5");
    expect(JSON.stringify(server.requests[2]?.body)).toContain("Two.");
    expect(await pane.statusLine()).toMatch(/gpt-5 · 4,590 tokens · \$0\.0088 · context 1% of 272k$/);

    // Each call priced at the model that made it.
    const cost = await command("/cost", "By model:");
    await pane.waitFor(/gpt-5 +\$0\.0022/);
    const lines = (await pane.screen()).split("\n");
    expect(cost).toMatch(/Total cost: +\$0\.0088 at list prices/);
    expect(lines.find((line) => line.includes("claude-haiku-4-5 ") && line.includes("call"))).toMatch(
      /claude-haiku-4-5 +\$0\.0017 · 1,500 in · 30 out · 1 call/,
    );
    expect(lines.find((line) => line.includes("claude-sonnet-4-5 ") && line.includes("call"))).toMatch(
      /claude-sonnet-4-5 +\$0\.0050 · 1,500 in · 30 out · 1 call/,
    );
    expect(lines.find((line) => /^\s+gpt-5 /.test(line))).toMatch(/gpt-5 +\$0\.0022 · 1,500 in · 30 out · 1 call/);

    await command("/model", "Switch with /model <provider>:<model>");
    expect(await pane.screen()).toMatch(/Model: openai:gpt-5\nContext window: 272,000 tokens\nList price: \$1\.25 in/);
  }, 45_000);

  test("a model without its API key keeps the old one; `sonnet` is this provider's; --continue says which model the conversation last talked to", async () => {
    server.reply(say("On Sonnet."));
    await start(anthropicEnv());
    await command("/model openai:gpt-5", "The session stays on anthropic:claude-haiku-4-5.");
    expect(await pane.screen()).toMatch(/Could not switch to openai:gpt-5: openai:gpt-5 needs an API key\. Set the OPENAI_API_KEY/);
    expect(await pane.statusLine()).toMatch(/claude-haiku-4-5 · 0 tokens/);

    await command("/model sonnet", "Switched to anthropic:claude-sonnet-4-6");
    await prompt("Which model?", "On Sonnet.");
    expect(server.requests.map(modelOf)).toEqual(["claude-sonnet-4-6"]);
    await pane.keys("C-d");
    await pane.waitFor("[exit 0]");
    await pane.kill();

    // The session file recorded the switch: going on with the conversation, the session says so.
    pane = new Pane();
    await start(anthropicEnv(), "--continue");
    // (The line is wider than the pane: read with the wraps taken out.)
    await pane.waitFor((screen) =>
      screen
        .replace(/\n/g, "")
        .includes(
          "This conversation last talked to anthropic:claude-sonnet-4-6; it goes on with anthropic:claude-haiku-4-5 (/model anthropic:claude-sonnet-4-6 to switch back).",
        ),
    );
    expect(await pane.statusLine()).toMatch(/claude-haiku-4-5 · 0 tokens/);
  }, 45_000);
});
