import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { startWireServer, type WireResponse, type WireServer } from "../../src/testing/wire-server.js";
import { fakeIo } from "../helpers/fake-io.js";
import { anthropicStream } from "../helpers/wire-bodies.js";

// What `minagent run` shows when the provider misbehaves: retries, dropped streams, stalls, echoed keys.

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

const apiKey = "proxy-credential-3c1d9e7f22ab";
const model = ["--model", "anthropic:claude-haiku-4-5"];
const answer = "Paris is the capital of France.";
const stream = () => anthropicStream([{ type: "text", text: answer }], "end_turn", { input_tokens: 10, output_tokens: 8 });
/** The stream, cut right after its first text delta ("Paris "). */
function cutStream(): WireResponse {
  const sse = stream();
  const firstDelta = sse.indexOf("Paris ");
  return { sse, dropAfterBytes: Buffer.byteLength(sse.slice(0, sse.indexOf("\n\n", firstDelta) + 2)) };
}
const env = () => ({ ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: server.url });

/** A fake io whose stdout is a terminal; everything printed is also kept in order, as a terminal shows it. */
function terminalIo() {
  const screen: string[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (text) => {
      out.push(text);
      screen.push(text);
    },
    stderr: (text) => {
      err.push(text);
      screen.push(text);
    },
    readLine: async () => undefined,
    env: env(),
    isTerminal: true,
  };
  return { io, stdout: () => out.join(""), stderr: () => err.join(""), screen: () => screen.join("") };
}

describe("minagent run: a stream that drops part-way is retried", () => {
  test("into a pipe, stdout holds only the final attempt's answer; stderr says why it retried", async () => {
    server.reply(cutStream(), { sse: stream() });
    const { io, stdout, stderr } = fakeIo(env());
    expect(await main(["run", "Capital of France?", ...model], io)).toBe(0);
    expect(stdout()).toBe(`${answer}\n`);
    expect(stderr()).toMatch(
      /^… connection_error the connection dropped while the response was arriving \(other side closed\); retrying in 0\.\d s\ntokens: /,
    );
    expect(server.requests).toHaveLength(2);
  });

  test("on a terminal, the cut-off text stays, a note says it starts again, and the answer follows on a fresh line", async () => {
    server.reply(cutStream(), { sse: stream() });
    const { io, stdout, screen } = terminalIo();
    expect(await main(["run", "Capital of France?", ...model], io)).toBe(0);
    expect(stdout()).toBe(`Paris \n${answer}\n`);
    expect(screen()).toMatch(
      new RegExp(
        `^Paris \\n… connection_error the connection dropped while the response was arriving \\(other side closed\\); retrying in 0\\.\\d s \\(the answer above was cut off; it starts again\\)\\n${answer}\\ntokens: `,
      ),
    );
  });

  test("past the budget it exits 1 with a typed connection error, never 'minagent: terminated'", async () => {
    server.reply(cutStream());
    const { io, stdout, stderr } = fakeIo(env());
    expect(await main(["run", "Capital of France?", ...model, "--max-retries", "0"], io)).toBe(1);
    expect(stdout()).toBe("");
    expect(stderr()).toBe(
      "minagent run: anthropic connection_error: the connection dropped while the response was arriving (other side closed)\n",
    );
  });
});

describe("minagent run --timeout", () => {
  test("a stream that stalls is abandoned after --timeout seconds, and retried", async () => {
    server.reply({ sse: stream(), stallAfterBytes: 200 }, { sse: stream() });
    const { io, stdout, stderr } = fakeIo(env());
    const started = Date.now();
    expect(await main(["run", "Capital of France?", ...model, "--timeout", "0.3"], io)).toBe(0);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(stdout()).toBe(`${answer}\n`);
    expect(stderr()).toMatch(/^… timeout the model call took longer than its 0\.3 s timeout \(timeoutMs: 300\); retrying in 0\.\d s\n/);
  });

  test("past the budget it exits 1 saying it timed out", async () => {
    server.reply({ sse: stream(), stallAfterBytes: 0 });
    const { io, stderr } = fakeIo(env());
    expect(await main(["run", "hi", ...model, "--timeout=0.2", "--max-retries", "0"], io)).toBe(1);
    expect(stderr()).toBe("minagent run: anthropic timeout: the model call took longer than its 0.2 s timeout (timeoutMs: 200)\n");
  });

  test.each(["0", "-1", "soon"])("--timeout %s is refused (exit 2)", async (value) => {
    const { io, stderr } = fakeIo(env());
    expect(await main(["run", "hi", ...model, "--timeout", value], io)).toBe(2);
    expect(stderr()).toMatch(new RegExp(`--timeout must be a number of seconds > 0, got "${value}"`));
    expect(server.requests).toHaveLength(0);
  });

  test("--help lists --timeout", async () => {
    const { io, stdout } = fakeIo({});
    await main(["run", "--help"], io);
    expect(stdout()).toMatch(/--timeout <seconds>/);
  });
});

describe("minagent run: an error body that echoes the API key", () => {
  const echo = (status: number): WireResponse => ({
    status,
    json: {
      type: "error",
      error: { type: status === 401 ? "authentication_error" : "api_error", message: `credential ${apiKey} refused` },
    },
  });

  test("the key appears neither in the retry lines nor in the final error", async () => {
    server.reply(echo(500), echo(401));
    const { io, stdout, stderr } = fakeIo(env());
    expect(await main(["run", "hi", ...model], io)).toBe(1);
    expect(stderr()).toMatch(
      /^… 500 credential \[redacted\] refused; retrying in 0\.\d s\nminagent run: anthropic 401 authentication_error: credential \[redacted\] refused \(gave up after 2 attempts\)\n$/,
    );
    expect(`${stdout()}${stderr()}`).not.toContain(apiKey);
  });
});
