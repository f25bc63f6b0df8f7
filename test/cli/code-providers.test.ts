import { describe, expect, test } from "vitest";
import { geminiStream } from "../helpers/wire-bodies.js";
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
