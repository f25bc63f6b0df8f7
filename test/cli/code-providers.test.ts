import { describe, expect, test } from "vitest";
import { bedrockStreamEvents, encodeBedrockEvents } from "../helpers/bedrock-event-stream.js";
import { geminiStream, responsesOutput, responsesResponse, responsesStream } from "../helpers/wire-bodies.js";
import { requestBody, runCode, useCodeFixture } from "./code-helpers.js";

// `minagent code` on the providers beyond Anthropic and OpenAI: a whole session (a tool round trip, the answer on
// stdout) through the real SDK against the local wire server, chosen by the model string and the SDK's own variables.

const fixture = useCodeFixture();

describe("minagent code -p --model google:…", () => {
  test("a Gemini session: Read the notes, answer; the function response names the call's function", async () => {
    fixture.server.reply(
      { sse: geminiStream("", [{ name: "Read", args: { file_path: "notes.txt" } }], "STOP"), chunkSize: 40 },
      { sse: geminiStream("It says 42.", [], "STOP"), chunkSize: 40 },
    );
    const env = { GEMINI_API_KEY: "gemini-test-key", GOOGLE_GEMINI_BASE_URL: fixture.server.url, MINAGENT_HOME: fixture.home };
    const outcome = await runCode(["-p", "What do the notes say?", "--model", "google:gemini-2.5-flash", "--cwd", fixture.workspace], env);
    expect(outcome).toEqual({ exit: 0, stdout: "It says 42.\n", stderr: "" });
    expect(fixture.server.requests.map((request) => request.path)).toEqual([
      "/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
      "/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    ]);
    type Contents = { contents: { role: string; parts: Record<string, { name?: string; response?: { output?: string } }>[] }[] };
    const answered = requestBody<Contents>(fixture, 1).contents.at(-1);
    expect(answered?.role).toBe("user");
    expect(answered?.parts[0]?.functionResponse).toMatchObject({
      name: "Read",
      response: { output: expect.stringContaining("The answer is 42.") },
    });
  });

  test("without a key it says which variables to set", async () => {
    const outcome = await runCode(["-p", "hi", "--model", "google:gemini-2.5-flash", "--cwd", fixture.workspace], {
      MINAGENT_HOME: fixture.home,
    });
    expect(outcome.exit).toBe(2);
    expect(outcome.stderr).toMatch("Set the GOOGLE_API_KEY (or GEMINI_API_KEY) environment variable");
    expect(fixture.server.requests).toHaveLength(0);
  });
});

describe("minagent code -p --model bedrock:…", () => {
  test("a Bedrock session through ConverseStream: signed requests, Read the notes, answer", async () => {
    const eventStream = (blocks: Parameters<typeof bedrockStreamEvents>[0], stop: string) => ({
      bytes: encodeBedrockEvents(bedrockStreamEvents(blocks, stop)),
      headers: { "content-type": "application/vnd.amazon.eventstream" },
      chunkSize: 50,
    });
    fixture.server.reply(
      eventStream([{ type: "toolUse", id: "tooluse_1", name: "Read", input: { file_path: "notes.txt" } }], "tool_use"),
      eventStream([{ type: "text", text: "It says 42." }], "end_turn"),
    );
    const env = {
      AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
      AWS_SECRET_ACCESS_KEY: "bedrock-test-secret",
      AWS_REGION: "eu-west-3",
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: fixture.server.url,
      MINAGENT_HOME: fixture.home,
    };
    const model = "bedrock:eu.anthropic.claude-sonnet-4-5-20250929-v1:0";
    const outcome = await runCode(["-p", "What do the notes say?", "--model", model, "--cwd", fixture.workspace], env);
    expect(outcome).toEqual({ exit: 0, stdout: "It says 42.\n", stderr: "" });
    const path = "/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream";
    expect(fixture.server.requests.map((request) => request.path)).toEqual([path, path]);
    // SigV4-signed: a signature date, and an Authorization header (the wire server records it redacted).
    expect(fixture.server.requests[0]?.headers).toMatchObject({
      "x-amz-date": expect.stringMatching(/^\d{8}T\d{6}Z$/),
      authorization: "<redacted>",
    });
    type Converse = { messages: { role: string; content: { toolResult?: { toolUseId: string; content: { text: string }[] } }[] }[] };
    const answered = requestBody<Converse>(fixture, 1).messages.at(-1);
    expect(answered?.content[0]?.toolResult).toMatchObject({
      toolUseId: "tooluse_1",
      content: [{ text: expect.stringContaining("The answer is 42.") }],
    });
  });
});

describe("minagent code -p --model openai:… (the Responses API)", () => {
  test("a session on /v1/responses: the function call's output goes back under its call_id, nothing stored", async () => {
    fixture.server.reply(
      {
        sse: responsesStream(responsesResponse(responsesOutput("", [{ name: "Read", arguments: { file_path: "notes.txt" } }]))),
        chunkSize: 40,
      },
      { sse: responsesStream(responsesResponse(responsesOutput("It says 42.", []))), chunkSize: 40 },
    );
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fixture.server.url}/v1`, MINAGENT_HOME: fixture.home };
    const outcome = await runCode(["-p", "What do the notes say?", "--model", "openai:gpt-5-mini", "--cwd", fixture.workspace], env);
    expect(outcome).toEqual({ exit: 0, stdout: "It says 42.\n", stderr: "" });
    expect(fixture.server.requests.map((request) => request.path)).toEqual(["/v1/responses", "/v1/responses"]);
    const sent = requestBody<{ store: boolean; input: { type?: string; call_id?: string; output?: string }[] }>(fixture, 1);
    expect(sent.store).toBe(false);
    expect(sent.input.at(-1)).toMatchObject({
      type: "function_call_output",
      call_id: "call_0",
      output: expect.stringContaining("The answer is 42."),
    });
  });
});
