import { MinagentError } from "../../errors.js";
import { FrontMatterError, parseFrontMatter } from "../subagents/parse-front-matter.js";

/** A SKILL.md that cannot be used; the message names the key or the line, and what to do. */
export class SkillFileError extends MinagentError {
  constructor(
    message: string,
    readonly line?: number | undefined,
  ) {
    super(message);
  }
}

/** What a SKILL.md says, before its folder gives it a place. */
export type SkillFile = {
  /** `name` from the front matter, if any (the folder's name stands in otherwise). */
  name: string | undefined;
  /** `description`, or the body's first paragraph when there is none. */
  description: string;
  /** Whether the description came from the body (no `description` key). */
  descriptionFromBody: boolean;
  /** `disable-model-invocation: true`: only a person may run it, the model is not offered it. */
  disableModelInvocation: boolean;
  /** `user-invocable` (default true): whether it is offered to a person as a command. */
  userInvocable: boolean;
  /** `allowed-tools`, as written (space- or comma-separated, or a list); minagent does not pre-approve them. */
  allowedTools: string[] | undefined;
  /** `argument-hint`: what the arguments look like (`[file] [message]`). */
  argumentHint: string | undefined;
  /** `license`, as written. */
  license: string | undefined;
  /** The instructions: the Markdown after the front matter. */
  body: string;
};

/** Claude Code's booleans in skill front matter: `true`/`false`, and `yes`/`no`/`on`/`off`/`1`/`0`, any case. */
const truths = new Set(["true", "yes", "on", "1"]);
const falsehoods = new Set(["false", "no", "off", "0"]);

/**
 * Reads a SKILL.md: optional YAML front matter (`name`, `description`, `disable-model-invocation`, `user-invocable`,
 * `allowed-tools`, `argument-hint`, `license`; other keys such as the standard's `metadata` map, `model` or `context`
 * are left alone), then the instructions. A file without front matter is all instructions, as in Claude Code. Throws
 * a {@link SkillFileError} (with the key's line) for invalid YAML, a key of the wrong shape, no description at all,
 * or an empty body.
 */
export function parseSkillFile(text: string): SkillFile {
  const { data, lines, body } = readFrontMatter(text);
  const textOf = (key: string): string | undefined => {
    const value: unknown = data[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string")
      throw new SkillFileError(`\`${key}\` must be text, not a ${Array.isArray(value) ? "list" : "map"}`, lines[key]);
    return value.trim() === "" ? undefined : value.trim();
  };
  const booleanOf = (key: string, otherwise: boolean): boolean => {
    const value = textOf(key);
    if (value === undefined) return otherwise;
    if (truths.has(value.toLowerCase())) return true;
    if (falsehoods.has(value.toLowerCase())) return false;
    throw new SkillFileError(`\`${key}\` must be true or false, not "${value}"`, lines[key]);
  };
  if (body === "") throw new SkillFileError("its body, the instructions the model loads, is empty");
  const written = textOf("description");
  const description = written ?? firstParagraph(body);
  if (description === undefined)
    throw new SkillFileError(
      "it has no `description` (the model reads it to decide when to load the skill): add `description: <what it does and when to use it>`",
    );
  return {
    name: textOf("name"),
    description,
    descriptionFromBody: written === undefined,
    disableModelInvocation: booleanOf("disable-model-invocation", false),
    userInvocable: booleanOf("user-invocable", true),
    allowedTools: listOf(data["allowed-tools"]),
    argumentHint: textOf("argument-hint"),
    license: textOf("license"),
    body,
  };
}

function readFrontMatter(text: string): { data: Record<string, unknown>; lines: Record<string, number>; body: string } {
  const content = text.replace(/^\uFEFF/, "");
  if (content.split(/\r?\n/, 1)[0]?.trimEnd() !== "---") return { data: {}, lines: {}, body: content.trim() };
  try {
    return parseFrontMatter(content);
  } catch (error) {
    if (error instanceof FrontMatterError) throw new SkillFileError(error.message, error.line);
    throw error;
  }
}

/** `allowed-tools: Read Grep Bash(git diff *)` (spaces or commas outside parentheses), or a YAML list. */
function listOf(value: unknown): string[] | undefined {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string" && item.trim() !== "");
  if (typeof value !== "string" || value.trim() === "") return undefined;
  return (value.match(/[^\s,(]+(?:\([^)]*\))?/g) ?? []).filter((item) => item !== "");
}

/** The body's first paragraph of prose (no heading, no code block), on one line: Claude Code's stand-in description. */
function firstParagraph(body: string): string | undefined {
  let inFence = false;
  const paragraph: string[] = [];
  for (const line of body.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (/^(```|~~~)/.test(trimmed)) {
      inFence = !inFence;
      if (paragraph.length > 0) break;
      continue;
    }
    if (inFence) continue;
    if (trimmed === "" || trimmed.startsWith("#")) {
      if (paragraph.length > 0) break;
      continue;
    }
    paragraph.push(trimmed);
  }
  return paragraph.length === 0 ? undefined : paragraph.join(" ");
}
