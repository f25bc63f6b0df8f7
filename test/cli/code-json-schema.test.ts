import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { answer, anthropicEnv, printArgs, requestBody, runCode, useCodeFixture } from "./code-helpers.js";

const fixture = useCodeFixture();
const schema = { type: "object", properties: { answer: { type: "integer" } }, required: ["answer"] };

describe("minagent code -p --json-schema", () => {
  test("asks the model for JSON matching the schema and returns the value as structured_output in the json result", async () => {
    fixture.server.reply(answer('{"answer":42}'));
    const args = printArgs(fixture, "What is 6 * 7?", "--output-format", "json", "--json-schema", JSON.stringify(schema));
    const outcome = await runCode(args, anthropicEnv(fixture));
    expect(outcome.stderr).toBe("");
    expect(outcome.exit).toBe(0);
    const result = JSON.parse(outcome.stdout);
    expect(result).toMatchObject({ subtype: "success", result: '{"answer":42}', structured_output: { answer: 42 } });
    expect(requestBody<{ output_config: unknown }>(fixture, 0).output_config).toMatchObject({
      format: { type: "json_schema", schema: { required: ["answer"], additionalProperties: false } },
    });
  });

  test("reads the schema from a file; an answer that breaks it is sent back, and the corrected one is returned", async () => {
    const file = join(fixture.workspace, "answer.schema.json");
    await writeFile(file, JSON.stringify(schema));
    fixture.server.reply(answer('{"answer":"forty-two"}'), answer('{"answer":42}'));
    const outcome = await runCode(printArgs(fixture, "6 * 7?", "--output-format", "json", "--json-schema", file), anthropicEnv(fixture));
    expect(JSON.parse(outcome.stdout).structured_output).toEqual({ answer: 42 });
    expect(JSON.stringify(requestBody(fixture, 1))).toMatch(/does not match the required output schema.*answer: must be integer/);
  });

  test("an answer that never matches ends with an error result (exit 1) saying so", async () => {
    fixture.server.reply(answer("42"), answer("42"), answer("42"));
    const args = printArgs(fixture, "6 * 7?", "--output-format", "json", "--json-schema", JSON.stringify(schema));
    const outcome = await runCode(args, anthropicEnv(fixture));
    expect(outcome.exit).toBe(1);
    const result = JSON.parse(outcome.stdout);
    expect(result).toMatchObject({
      subtype: "error_during_execution",
      is_error: true,
      error: expect.stringMatching(/did not match the output schema/),
    });
    expect(result).not.toHaveProperty("structured_output");
  });

  test.each([
    ['{"type": "object",', /--json-schema is not valid JSON/],
    ['["string"]', /--json-schema must be a JSON Schema object/],
    ["missing.json", /"missing.json" is neither a JSON Schema .* nor a file that can be read \(ENOENT\)/],
    ['{"type":"object","properties":{"a":{"type":"string","pattern":"^(a+)+$"}}}', /Agent option output\/properties\/a\/pattern/],
  ])("bad input %s is a misuse (exit 2) that says what is wrong", async (value, message) => {
    const outcome = await runCode(printArgs(fixture, "?", "--json-schema", value), anthropicEnv(fixture));
    expect(outcome.exit).toBe(2);
    expect(outcome.stderr).toMatch(message);
    expect(fixture.server.requests).toHaveLength(0);
  });

  test("applies to -p runs only", async () => {
    const outcome = await runCode(["--json-schema", JSON.stringify(schema)], anthropicEnv(fixture));
    expect(outcome.exit).toBe(2);
    expect(outcome.stderr).toMatch(/--json-schema applies to -p runs only/);
  });
});
