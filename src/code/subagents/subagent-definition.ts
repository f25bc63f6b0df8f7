import { UsageError } from "../../errors.js";
import { FrontMatterError, type FrontMatterValue, parseFrontMatter } from "./parse-front-matter.js";

/** A kind of subagent the Agent tool can start (`subagent_type`): built in, or a Markdown file's. */
export type SubagentDefinition = {
  /** What the model calls it by (`subagent_type`): letters, digits, `_` and `-`. */
  name: string;
  /** When to use it: the parent model reads this in the Agent tool's description. */
  description: string;
  /** The tools it may use, by name; absent: every tool subagents may have (the Agent tool included, below the depth limit). */
  tools?: readonly string[] | undefined;
  /** A model string for the host's `resolveModel` (`anthropic:claude-haiku-4-5`); absent or `inherit`: the parent's model. */
  model?: string | undefined;
  /**
   * Only reads (minagent's addition to the format): its Bash runs read-only commands only, a tool that is not read-only
   * may not be among its `tools`, and subagents it starts are read-only ones. Such a subagent runs concurrently with
   * other read-only calls.
   */
  readOnly?: boolean | undefined;
  /** Its system prompt (a file's body). */
  prompt: string;
  /** Where it is defined: `built-in`, or the file's path. */
  source: string;
};

/** Claude Code's read-only explorer: searches and reads, and reports what it found. */
export const exploreSubagent: SubagentDefinition = Object.freeze({
  name: "Explore",
  description:
    "A fast, read-only agent for exploring the code: it finds files, searches contents, reads and reports what it found, and cannot change anything. Use it for questions that take several searches (where is X handled? how does Y work? which files use Z?); say how thorough it should be.",
  tools: Object.freeze(["Read", "Grep", "Glob", "Bash"]),
  readOnly: true,
  prompt: [
    "You explore a code repository to answer a question, with read-only tools: Glob finds files by name, Grep searches their contents, Read reads them, and Bash runs read-only shell commands only (ls, cat, head, wc…). You cannot change anything.",
    "Search broadly first, then read what matters. Be as thorough as the request asks, and no more.",
    "Your final message is the only thing the agent that asked will see: answer its question directly, with the file paths (and line numbers) that support the answer, and say what you could not find.",
  ].join("\n"),
  source: "built-in",
});

/** Claude Code's general-purpose subagent: the parent's tools, for a self-contained task. */
export const generalPurposeSubagent: SubagentDefinition = Object.freeze({
  name: "general-purpose",
  description:
    "An agent with the same tools as you, for a self-contained task of several steps (research across many files, or a change) whose details you do not need in your own context. It starts with nothing but your prompt: give it everything it needs to know.",
  prompt: [
    "You are a subagent: another agent gave you a task. Do it completely with your tools, then stop.",
    "Your final message is the only thing that agent will see: report what you did or found, with the file paths that matter, what you changed, and anything left undone or uncertain.",
  ].join("\n"),
  source: "built-in",
});

/** The built-in subagents: general-purpose (the default type) and Explore. */
export const builtInSubagents: readonly SubagentDefinition[] = Object.freeze([generalPurposeSubagent, exploreSubagent]);

const namePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const toolNamePattern = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Reads a subagent's Markdown file: front matter with `name` and `description` (required), `tools` (a
 * comma-separated string or a list; absent: all), `model` (absent or `inherit`: the parent's) and `readOnly`
 * (`true` or `false`), then the system prompt as the body. Other keys (Claude Code's `color`…) are ignored.
 * Throws a UsageError naming `source` (the file) and, when it can, the line.
 */
export function parseSubagentDefinition(text: string, source: string): SubagentDefinition {
  const fail = (problem: string, line?: number | undefined) =>
    new UsageError(`Subagent definition ${source}${line === undefined ? "" : `, line ${line}`}: ${problem}. Fix the file or remove it.`);
  let document: ReturnType<typeof parseFrontMatter>;
  try {
    document = parseFrontMatter(text);
  } catch (error) {
    if (error instanceof FrontMatterError) throw fail(error.message, error.line);
    throw error;
  }
  const { data, body } = document;
  const textOf = (key: string): string | undefined => {
    const value = data[key];
    if (Array.isArray(value)) throw fail(`\`${key}\` must be text, not a list`);
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  };
  const name = textOf("name");
  if (name === undefined) throw fail("the front matter has no `name`");
  if (!namePattern.test(name)) throw fail(`the name "${name}" is invalid: use letters, digits, "_" and "-" (at most 64)`);
  const description = textOf("description");
  if (description === undefined) throw fail("the front matter has no `description` (the parent model reads it to choose a subagent)");
  if (body === "") throw fail("the body, the subagent's system prompt, is empty");
  const tools = readTools(data.tools, fail);
  const model = textOf("model");
  const readOnly = textOf("readOnly");
  if (readOnly !== undefined && readOnly !== "true" && readOnly !== "false")
    throw fail(`\`readOnly\` must be true or false, not "${readOnly}"`);
  return {
    name,
    description,
    ...(tools !== undefined && { tools }),
    ...(model !== undefined && model !== "inherit" && { model }),
    ...(readOnly === "true" && { readOnly: true }),
    prompt: body,
    source,
  };
}

function readTools(value: FrontMatterValue | undefined, fail: (problem: string) => UsageError): string[] | undefined {
  if (value === undefined || value === "") return undefined;
  const names = (Array.isArray(value) ? value : value.split(",")).map((name) => name.trim()).filter((name) => name !== "");
  for (const name of names) {
    if (name.includes("("))
      throw fail(`the tool "${name}": a subagent's tools are names only (its calls meet the session's permission rules)`);
    if (!toolNamePattern.test(name)) throw fail(`the tool name "${name}" is invalid`);
  }
  return [...new Set(names)];
}
