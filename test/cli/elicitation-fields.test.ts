// The interactive form's reading of an elicitation schema, its checks of what a person types, and a form it cannot show.
import { describe, expect, test } from "vitest";
import {
  type ElicitationField,
  parseChoiceNumbers,
  parseFieldText,
  readElicitationFields,
} from "../../src/cli/code/interactive/elicitation-fields.js";
import { askElicitation } from "../../src/cli/code/interactive/elicitation-form.js";
import { Terminal } from "../../src/cli/code/interactive/terminal.js";
import { fakeTerminal } from "./interactive-harness.js";

const fieldsOf = (schema: Record<string, unknown>): ElicitationField[] => {
  const read = readElicitationFields(schema);
  if ("unsupported" in read) throw new Error(read.unsupported);
  return read.fields;
};

describe("readElicitationFields", () => {
  test("reads each kind MCP allows, with titles, defaults and required fields", () => {
    const fields = fieldsOf({
      type: "object",
      properties: {
        name: { type: "string", title: "Name", minLength: 2 },
        age: { type: "integer", minimum: 0, default: 30 },
        subscribe: { type: "boolean", default: true },
        color: { type: "string", enum: ["r", "g"], enumNames: ["Red", "Green"], default: "g" },
        tags: { type: "array", items: { anyOf: [{ const: "a", title: "Alpha" }] }, default: ["a", "zzz"] },
      },
      required: ["name"],
    });
    expect(fields.map(({ name, kind, label, required }) => ({ name, kind, label, required }))).toEqual([
      { name: "name", kind: "text", label: "Name", required: true },
      { name: "age", kind: "integer", label: "age", required: false },
      { name: "subscribe", kind: "boolean", label: "subscribe", required: false },
      { name: "color", kind: "choice", label: "color", required: false },
      { name: "tags", kind: "choices", label: "tags", required: false },
    ]);
    expect(fields[3]).toMatchObject({
      default: "g",
      options: [
        { value: "r", label: "Red" },
        { value: "g", label: "Green" },
      ],
    });
    // A default that is not one of the choices is dropped.
    expect(fields[4]).toMatchObject({ default: ["a"], options: [{ value: "a", label: "Alpha" }] });
  });

  test("says why a form cannot be shown: a nested object, a list of anything but choices, no fields", () => {
    expect(readElicitationFields({ type: "object", properties: { address: { type: "object", properties: {} } } })).toEqual({
      unsupported: 'its field "address" is of type "object", which an MCP form may not ask for',
    });
    expect(readElicitationFields({ type: "object", properties: { ids: { type: "array", items: { type: "number" } } } })).toEqual({
      unsupported: 'its field "ids" is a list of something other than choices',
    });
    expect(readElicitationFields({ type: "string" })).toEqual({ unsupported: "its form is not an object of fields" });
  });
});

describe("what a person types", () => {
  const [name, age, email] = fieldsOf({
    type: "object",
    properties: {
      name: { type: "string", maxLength: 5 },
      age: { type: "integer", minimum: 1, maximum: 120 },
      email: { type: "string", format: "email" },
    },
    required: ["name"],
  }) as [ElicitationField, ElicitationField, ElicitationField];

  test("refuses an empty required field and the schema's limits, and leaves an empty optional one out", () => {
    expect(parseFieldText(name, " ")).toEqual({ problem: "name is required" });
    expect(parseFieldText(name, "Ada Lovelace")).toEqual({ problem: "name must be at most 5 characters" });
    expect(parseFieldText(name, " Ada ")).toEqual({ value: "Ada" });
    expect(parseFieldText(age, "")).toEqual({ value: undefined });
    expect(parseFieldText(age, "1.5")).toEqual({ problem: "age must be a whole number" });
    expect(parseFieldText(age, "200")).toEqual({ problem: "age must be at most 120" });
    expect(parseFieldText(age, "36")).toEqual({ value: 36 });
    expect(parseFieldText(email, "ada@")).toEqual({ problem: "email must be an email address (name@example.com)" });
  });

  test("reads a multiple choice's numbers, within its limits", () => {
    const [tools] = fieldsOf({
      type: "object",
      properties: { tools: { type: "array", items: { enum: ["saw", "drill", "file"] }, minItems: 1, maxItems: 2 } },
    }) as [Extract<ElicitationField, { kind: "choices" }>];
    expect(parseChoiceNumbers(tools, "1, 3")).toEqual({ value: ["saw", "file"] });
    expect(parseChoiceNumbers(tools, "4")).toEqual({ problem: "4 is not one of the numbers 1–3" });
    expect(parseChoiceNumbers(tools, "1,2,3")).toEqual({ problem: "choose at most 2" });
    expect(parseChoiceNumbers(tools, "")).toEqual({ value: undefined });
  });
});

describe("askElicitation", () => {
  test("declines a form it cannot show, with a note naming the server, and asks nothing", async () => {
    const screen = fakeTerminal();
    const notes: string[] = [];
    const result = await askElicitation(
      { terminal: new Terminal(screen, {}), keep: (text) => notes.push(text), note: (text) => notes.push(text) },
      {
        server: "crm",
        message: "Your address?",
        signal: new AbortController().signal,
        mode: "form",
        requestedSchema: { type: "object", properties: { address: { type: "object", properties: { street: { type: "string" } } } } },
      },
    );
    expect(result).toEqual({ action: "decline" });
    expect(notes).toEqual([
      '  MCP server "crm" asked for input this session cannot show (its field "address" is of type "object", which an MCP form may not ask for); it was declined.',
    ]);
    expect(screen.text()).toBe("");
  });
});
