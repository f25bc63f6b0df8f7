import { UsageError } from "../../errors.js";
import { fileToolNamed } from "./file-tools.js";
import { compilePathPattern, type PathBases, type PathPattern } from "./path-pattern.js";

/** The three rule lists, checked in this order: deny, then ask, then allow. */
export type RuleList = "allow" | "ask" | "deny";

/** What a rule matches. */
export type RuleTarget =
  /** Every call of the tool (`Bash`, `Read` — every reader, `Edit` — every editor, `mcp__github__create_issue`). */
  | { kind: "tool" }
  /** Every tool of an MCP server: `mcp__github` or `mcp__github__*`. */
  | { kind: "server"; prefix: string }
  /** `Bash(…)`: one shell command (each part of a compound command is matched on its own). */
  | { kind: "command"; matches: (command: string) => boolean }
  /** `Read(…)`, `Edit(…)`, `Write(…)`, …: paths, gitignore-style. */
  | { kind: "path"; pattern: PathPattern }
  /** `WebFetch(domain:example.com)`: requests to a host (the sandbox's proxy lets allowed ones through). */
  | { kind: "domain"; domain: string }
  /**
   * `Agent(Explore)` / `Task(Explore)`, `Skill(pdf)`, `SlashCommand(/commit)`: calls whose one naming argument is this
   * value — or, written with a trailing `:*` or ` *` (`Skill(review-pr *)`, `SlashCommand(/review-pr:*)`), this value
   * followed by any arguments.
   */
  | { kind: "argument"; field: string; value: string; withArguments?: boolean | undefined };

/** The tools whose rules name one argument's value, and that argument: the subagent's type, the skill's name. */
const namedArguments: Readonly<Record<string, string>> = {
  Agent: "subagent_type",
  Task: "subagent_type",
  Skill: "skill",
  // Claude Code's tool for the model to run a custom command; minagent has none, but its rules must still parse.
  SlashCommand: "command",
  // An MCP server's sampling request (src/code/create-session-sampler.ts): `McpSampling(github)` lets that server use the model.
  McpSampling: "server",
  // An MCP server's form in -p (src/cli/code/print-mode.ts): `McpElicitation(github)` accepts its defaults unasked.
  McpElicitation: "server",
};

/** One permission rule, parsed and compiled. */
export type PermissionRule = {
  /** The rule as written: `Bash(npm run test:*)`. */
  readonly text: string;
  /** The list it is in. */
  readonly list: RuleList;
  /** Where it was written: a settings file's path, or `options.rules` for rules given in code. */
  readonly source: string;
  /** The tool name it starts with: `Bash`, `Read`, `mcp__github`. */
  readonly tool: string;
  /** What is inside its parentheses, if anything. */
  readonly specifier: string | undefined;
  readonly target: RuleTarget;
};

const toolNamePattern = /^[A-Za-z0-9_-]+$/;

/**
 * Parses a rule in Claude Code's syntax — `Tool` or `Tool(specifier)` — and compiles it. Specifiers exist for
 * `Bash` (a command, with `*` wildcards or a legacy `prefix:*`) and for the file tools (gitignore-style paths);
 * `Tool(*)` is the same as `Tool`. Throws a UsageError naming the rule and `source` when it is malformed.
 */
export function parsePermissionRule(text: unknown, list: RuleList, source: string, bases: PathBases): PermissionRule {
  const fail = (why: string): never => {
    throw new UsageError(
      `Invalid permission rule ${JSON.stringify(text)} in "${list}" of ${source}: ${why}. Rules look like Tool or Tool(specifier), e.g. Bash(npm run test:*), Read(./secrets/**), mcp__github.`,
    );
  };
  if (typeof text !== "string") return fail(`a rule must be a string, got ${text === null ? "null" : typeof text}`);
  const trimmed = text.trim();
  const open = trimmed.indexOf("(");
  const written = open === -1 ? trimmed : trimmed.slice(0, open);
  // `mcp__server__*` is `mcp__server`: every tool of the server.
  const tool = written.startsWith("mcp__") && written.endsWith("__*") ? written.slice(0, -3) : written;
  if (tool === "") return fail("it names no tool");
  if (!toolNamePattern.test(tool))
    return fail(
      `"${tool}" is not a tool name (letters, digits, "_" and "-"${open === -1 && tool.includes(")") ? '; a ")" has no "("' : ""})`,
    );
  const rule = (specifier: string | undefined, target: RuleTarget): PermissionRule =>
    Object.freeze({ text: trimmed, list, source, tool, specifier, target });
  if (open === -1) return rule(undefined, mcpServerTarget(tool) ?? { kind: "tool" });
  if (!trimmed.endsWith(")")) return fail('the specifier must end with ")"');
  const specifier = trimmed.slice(open + 1, -1).trim();
  if (specifier === "") return fail(`"${tool}()" has an empty specifier; write ${tool} alone to match every call`);
  if (specifier === "*" || (specifier === "**" && tool !== "Bash")) return rule(specifier, mcpServerTarget(tool) ?? { kind: "tool" });
  if (tool === "Bash") {
    try {
      return rule(specifier, { kind: "command", matches: compileCommandPattern(specifier) });
    } catch (error) {
      return fail((error as Error).message);
    }
  }
  if (fileToolNamed(tool)) {
    try {
      return rule(specifier, { kind: "path", pattern: compilePathPattern(specifier, bases) });
    } catch (error) {
      return fail((error as Error).message);
    }
  }
  if (tool === "WebFetch") {
    const domain = /^domain:\s*([A-Za-z0-9*_.-]+(?::\d{1,5})?)$/.exec(specifier)?.[1];
    if (domain === undefined) return fail(`WebFetch takes a domain: WebFetch(domain:example.com), got "${specifier}"`);
    return rule(specifier, { kind: "domain", domain: domain.toLowerCase() });
  }
  const field = namedArguments[tool];
  if (field !== undefined) {
    const value = specifier.trim();
    const base = value.replace(/(?::| )\*$/, "").trimEnd();
    return rule(specifier, { kind: "argument", field, value: base, ...(base !== value && { withArguments: true }) });
  }
  if (!tool.startsWith("mcp__") && !toolsWithoutSpecifiers.has(tool))
    throw new UnknownToolRuleError(
      `${source}: the ${list} rule ${JSON.stringify(trimmed)} is for a tool minagent does not have (${tool}); skipped`,
    );
  return fail(
    `${tool} takes no specifier (only Bash, the file tools — Read, Edit, Write, Grep, Glob, … —, WebFetch(domain:…), Agent(<type>), Skill(<name>), SlashCommand(/<name>), McpSampling(<server>) and McpElicitation(<server>) do); write ${tool} alone`,
  );
}

/** The tools minagent has (or Claude Code documents) that take no specifier: a specifier on one is a mistake. */
const toolsWithoutSpecifiers = new Set(["TodoWrite", "ExitPlanMode", "EnterPlanMode", "WebSearch", "BashOutput", "KillShell"]);

/**
 * A rule with a specifier for a tool nobody here knows (`FooTool(x)`): it can match no call, so a settings file's
 * copy of it is skipped with this message as a warning rather than stop the session; rules given in code still fail.
 */
export class UnknownToolRuleError extends UsageError {}

/** `mcp__server` and `mcp__server__*` name every tool of a server. */
function mcpServerTarget(tool: string): RuleTarget | undefined {
  const rest = tool.startsWith("mcp__") ? tool.slice(5) : "";
  return rest !== "" && !rest.includes("__") ? { kind: "server", prefix: `${tool}__` } : undefined;
}

/**
 * Compiles a Bash specifier into a test of one (normalized) command:
 * - `npm test` matches exactly that command;
 * - `npm run test:*` (legacy) matches `npm run test` and `npm run test <anything>`, not `npm run testing`;
 * - `*` matches any characters, spaces included, anywhere (`git * main`, `* --version`); a single trailing ` *`
 *   may match nothing, so `ls *` matches `ls` and `ls -la` but not `lsof`, while `ls*` matches `lsof` too;
 * - `\*` is a literal star.
 * Runs of spaces count as one.
 */
export function compileCommandPattern(specifier: string): (command: string) => boolean {
  let body = normalizeCommandText(specifier);
  let optionalTail = false;
  if (body.endsWith(":*") && !body.endsWith("\\:*")) {
    body = body.slice(0, -2).trimEnd();
    if (body === "") throw new Error('":*" needs a command before it, e.g. Bash(npm run test:*)');
    optionalTail = true;
  }
  if (/(^|[^\\]):\*/.test(body)) throw new Error('":*" may only end the pattern (Bash(git diff:*)); use "*" elsewhere');
  const pieces = splitOnWildcards(body);
  if (pieces.length === 1 && !optionalTail) {
    const exact = pieces[0] as string;
    return (command) => command === exact;
  }
  if (!optionalTail && pieces.length === 2 && (pieces[0] as string).endsWith(" ") && pieces[1] === "") {
    optionalTail = true;
    pieces.splice(0, 2, (pieces[0] as string).slice(0, -1));
  }
  const source = pieces.map(escapeRegExp).join("[\\s\\S]*");
  const expression = new RegExp(`^${source}${optionalTail ? "(?: [\\s\\S]*)?" : ""}$`);
  return (command) => expression.test(command);
}

/** Trims and collapses runs of blanks, as commands are before they are matched. */
export function normalizeCommandText(text: string): string {
  return text.trim().replace(/[ \t]+/g, " ");
}

/** The literal text between unescaped `*`s (`\*` becomes `*`). */
function splitOnWildcards(body: string): string[] {
  const pieces: string[] = [];
  let current = "";
  for (let index = 0; index < body.length; index++) {
    const character = body[index] as string;
    if (character === "\\" && body[index + 1] === "*") {
      current += "*";
      index++;
    } else if (character === "*") {
      pieces.push(current);
      current = "";
    } else current += character;
  }
  pieces.push(current);
  return pieces;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * A list of rules or tool names as people write them on one line — separated by commas or whitespace outside
 * parentheses, so `Bash(npm run test, lint) Edit, Read` is three — without empty entries. `--allowedTools`, a
 * command's `allowed-tools` and an agent file's `tools` are all read with it.
 */
export function splitRuleList(text: string): string[] {
  const found: string[] = [];
  let depth = 0;
  let current = "";
  for (const character of text) {
    if (character === "(") depth++;
    else if (character === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (character === "," || /\s/.test(character))) {
      if (current !== "") found.push(current);
      current = "";
    } else current += character;
  }
  if (current !== "") found.push(current);
  return found;
}
