import type { JsonSchema } from "../../../engine.js";
import type { McpElicitationValue } from "../../../mcp/index.js";

/** One answer of a choice field: the value sent, and what the person reads. */
export type FieldOption = { value: string; label: string };

/** A field of an elicitation form, as the terminal asks it. */
export type ElicitationField = {
  name: string;
  /** The schema's `title`, else the property's name. */
  label: string;
  description: string | undefined;
  required: boolean;
  default: McpElicitationValue | undefined;
} & (
  | {
      kind: "text";
      minLength?: number | undefined;
      maxLength?: number | undefined;
      format?: string | undefined;
    }
  | { kind: "number" | "integer"; minimum?: number | undefined; maximum?: number | undefined }
  | { kind: "boolean" }
  | { kind: "choice"; options: FieldOption[] }
  | { kind: "choices"; options: FieldOption[]; minItems?: number | undefined; maxItems?: number | undefined }
);

/**
 * The fields of a form elicitation's schema (MCP allows a flat object of strings, numbers, integers, booleans and
 * enums, single or multiple), or why it cannot be shown: a nested object, an array of anything but enum values, a
 * type MCP does not allow.
 */
export function readElicitationFields(schema: JsonSchema): { fields: ElicitationField[] } | { unsupported: string } {
  if (schema.type !== "object" || typeof schema.properties !== "object" || schema.properties === null)
    return { unsupported: "its form is not an object of fields" };
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === "string") : []);
  const fields: ElicitationField[] = [];
  for (const [name, value] of Object.entries(schema.properties as Record<string, unknown>)) {
    if (typeof value !== "object" || value === null) return { unsupported: `its field "${name}" has no schema` };
    const property = value as JsonSchema;
    const base = {
      name,
      label: typeof property.title === "string" ? property.title : name,
      description: typeof property.description === "string" ? property.description : undefined,
      required: required.has(name),
    };
    const field = readField(property, base);
    if (typeof field === "string") return { unsupported: `its field "${name}" ${field}` };
    fields.push(field);
  }
  return { fields };
}

type FieldBase = Pick<ElicitationField, "name" | "label" | "description" | "required">;

function readField(property: JsonSchema, base: FieldBase): ElicitationField | string {
  const single = optionsOf(property);
  switch (property.type) {
    case "string":
      if (single) return { ...base, kind: "choice", options: single, default: stringDefault(property.default, single) };
      return {
        ...base,
        kind: "text",
        default: typeof property.default === "string" ? property.default : undefined,
        minLength: numberOf(property.minLength),
        maxLength: numberOf(property.maxLength),
        format: typeof property.format === "string" ? property.format : undefined,
      };
    case "number":
    case "integer":
      return {
        ...base,
        kind: property.type,
        default: typeof property.default === "number" ? property.default : undefined,
        minimum: numberOf(property.minimum),
        maximum: numberOf(property.maximum),
      };
    case "boolean":
      return { ...base, kind: "boolean", default: typeof property.default === "boolean" ? property.default : undefined };
    case "array": {
      const options = typeof property.items === "object" && property.items !== null ? optionsOf(property.items as JsonSchema) : undefined;
      if (!options) return "is a list of something other than choices";
      const values = new Set(options.map((option) => option.value));
      const chosen = Array.isArray(property.default) ? property.default.filter((item): item is string => values.has(item)) : undefined;
      return {
        ...base,
        kind: "choices",
        options,
        default: chosen,
        minItems: numberOf(property.minItems),
        maxItems: numberOf(property.maxItems),
      };
    }
    default:
      return `is of type ${JSON.stringify(property.type ?? "none")}, which an MCP form may not ask for`;
  }
}

/** The choices of `enum` (with the legacy `enumNames`), or of `oneOf`/`anyOf` entries `{ const, title }`. */
function optionsOf(schema: JsonSchema): FieldOption[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, index) => ({
      value: String(value),
      label: typeof names[index] === "string" ? (names[index] as string) : String(value),
    }));
  }
  const entries = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (!entries) return undefined;
  const options: FieldOption[] = [];
  for (const entry of entries as JsonSchema[]) {
    if (typeof entry?.const !== "string") return undefined;
    options.push({ value: entry.const, label: typeof entry.title === "string" ? entry.title : entry.const });
  }
  return options;
}

function stringDefault(value: unknown, options: readonly FieldOption[]): string | undefined {
  return typeof value === "string" && options.some((option) => option.value === value) ? value : undefined;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}

/**
 * What the person typed for a text or number field, as the value to send, or what is wrong with it. Empty text is
 * `undefined` (the field is left out), which a required field refuses.
 */
export function parseFieldText(field: ElicitationField, text: string): { value: McpElicitationValue | undefined } | { problem: string } {
  const trimmed = text.trim();
  if (trimmed === "") return field.required ? { problem: `${field.label} is required` } : { value: undefined };
  if (field.kind === "number" || field.kind === "integer") {
    const number = Number(trimmed);
    if (!Number.isFinite(number)) return { problem: `${field.label} must be a number` };
    if (field.kind === "integer" && !Number.isInteger(number)) return { problem: `${field.label} must be a whole number` };
    if (field.minimum !== undefined && number < field.minimum) return { problem: `${field.label} must be at least ${field.minimum}` };
    if (field.maximum !== undefined && number > field.maximum) return { problem: `${field.label} must be at most ${field.maximum}` };
    return { value: number };
  }
  if (field.kind !== "text") return { value: trimmed };
  if (field.minLength !== undefined && trimmed.length < field.minLength)
    return { problem: `${field.label} must be at least ${field.minLength} characters` };
  if (field.maxLength !== undefined && trimmed.length > field.maxLength)
    return { problem: `${field.label} must be at most ${field.maxLength} characters` };
  const formatProblem = checkFormat(field.format, trimmed);
  return formatProblem ? { problem: `${field.label} ${formatProblem}` } : { value: trimmed };
}

/** The formats MCP forms name; the server checks for itself too, so these catch only typing slips. */
function checkFormat(format: string | undefined, text: string): string | undefined {
  if (format === "email" && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) return "must be an email address (name@example.com)";
  if (format === "uri" && !URL.canParse(text)) return "must be a URL (https://…)";
  if (format === "date" && !/^\d{4}-\d{2}-\d{2}$/.test(text)) return "must be a date as YYYY-MM-DD";
  if (format === "date-time" && Number.isNaN(Date.parse(text))) return "must be a date and time (2026-12-02T15:00:00Z)";
  return undefined;
}

/**
 * The chosen numbers of a multiple-choice field (`1, 3`), as values, or what is wrong: a number not in the list, too
 * few or too many.
 */
export function parseChoiceNumbers(
  field: Extract<ElicitationField, { kind: "choices" }>,
  text: string,
): { value: string[] | undefined } | { problem: string } {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  if (parts.length === 0) return field.required ? { problem: `${field.label} is required` } : { value: undefined };
  const values: string[] = [];
  for (const part of parts) {
    const option = /^\d+$/.test(part) ? field.options[Number(part) - 1] : undefined;
    if (!option) return { problem: `${part} is not one of the numbers 1–${field.options.length}` };
    if (!values.includes(option.value)) values.push(option.value);
  }
  if (field.minItems !== undefined && values.length < field.minItems) return { problem: `choose at least ${field.minItems}` };
  if (field.maxItems !== undefined && values.length > field.maxItems) return { problem: `choose at most ${field.maxItems}` };
  return { value: values };
}
