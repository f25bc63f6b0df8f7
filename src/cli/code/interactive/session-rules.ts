import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { CodingAgent } from "../../../code/coding-agent.js";
import { type CodePermissions, createCodePermissions } from "../../../code/permissions/index.js";
import type { ToolCall } from "../../../core/types.js";
import { UsageError } from "../../../errors.js";
import { editSettingsFile, isSettingsObject } from "../edit-settings-file.js";

type Call = Pick<ToolCall, "name" | "arguments">;

const editors = new Set(["Edit", "Write", "NotebookEdit", "MultiEdit"]);
const readers = new Set(["Read", "Glob", "Grep", "LS", "NotebookRead"]);

/**
 * The allow rules a person added during this session ("yes, and don't ask again"). They are judged by the project's
 * own permission system: a second set of permissions built from these rules alone, in the agent's current mode, so
 * that `Bash(npm test)` means here what it means in a settings file. An ask rule of the settings still asks.
 */
export class SessionRules {
  readonly #agent: CodingAgent;
  readonly #rules: string[] = [];
  #checker: Promise<CodePermissions> | undefined;

  constructor(agent: CodingAgent) {
    this.#agent = agent;
  }

  /** The rules added so far, in order. */
  get rules(): readonly string[] {
    return this.#rules;
  }

  add(rules: readonly string[]): void {
    for (const rule of rules) if (!this.#rules.includes(rule)) this.#rules.push(rule);
    this.#checker = undefined;
  }

  /** Whether the rules added so far allow `call`. */
  async allows(call: Call): Promise<boolean> {
    if (this.#rules.length === 0 || (await this.#askedByRule(call))) return false;
    this.#checker ??= this.#build(this.#rules);
    return this.#allowedBy(await this.#checker, call);
  }

  /**
   * Rules that would allow `call` from now on without asking — one per part of a shell command, the file's folder
   * for a file tool, the tool for another — checked against the permission system; undefined when none would.
   */
  async suggest(call: Call): Promise<string[] | undefined> {
    if (call.name === "ExitPlanMode" || (await this.#askedByRule(call))) return undefined;
    const candidates = await this.#candidates(call);
    if (!candidates?.length) return undefined;
    const checker = await this.#build([...this.#rules, ...candidates]);
    return (await this.#allowedBy(checker, call)) ? candidates : undefined;
  }

  async #candidates(call: Call): Promise<string[] | undefined> {
    const args = call.arguments;
    if (call.name === "Bash") {
      const parts = (await this.#agent.permissions.explain(call, this.#agent.registry.get(call.name))).commands;
      return parts && [...new Set(parts.map((part) => `Bash(${part.replace(/\*/g, "\\*")})`))];
    }
    const path = [args.file_path, args.path, args.notebook_path].find(
      (value): value is string => typeof value === "string" && value !== "",
    );
    if (editors.has(call.name) || readers.has(call.name)) {
      const kind = editors.has(call.name) ? "Edit" : "Read";
      const searches = call.name === "Glob" || call.name === "Grep";
      return [`${kind}(${this.#pathPattern(path ?? ".", searches)})`];
    }
    return [call.name];
  }

  /** The folder of a file (or the folder searched), gitignore-style: `/src/**` inside the workspace, `//abs/**` outside. */
  #pathPattern(path: string, isFolder: boolean): string {
    const root = this.#agent.workspace.root;
    const absolute = isAbsolute(path) ? resolve(path) : resolve(root, path);
    const folder = isFolder ? absolute : dirname(absolute);
    const inside = relative(root, folder);
    const escaped = (text: string) =>
      text
        .split(sep)
        .join("/")
        .replace(/[\\*?[\]!#]/g, "\\$&");
    if (inside === "") return isFolder ? "/**" : `/${escaped(relative(root, absolute))}`;
    if (!inside.startsWith("..") && !isAbsolute(inside)) return `/${escaped(inside)}/**`;
    return `/${escaped(folder)}/**`;
  }

  async #askedByRule(call: Call): Promise<boolean> {
    const explanation = await this.#agent.permissions.explain(call, this.#agent.registry.get(call.name));
    return explanation.rule?.list === "ask";
  }

  #build(rules: readonly string[]): Promise<CodePermissions> {
    const permissions = this.#agent.permissions;
    return createCodePermissions({
      workspace: { root: this.#agent.workspace.root, directories: permissions.directories },
      rules: { allow: rules },
      settingsFiles: [],
      mode: permissions.mode,
      home: homedir(),
    });
  }

  async #allowedBy(checker: CodePermissions, call: Call): Promise<boolean> {
    checker.mode = this.#agent.permissions.mode;
    const explanation = await checker.explain(call, this.#agent.registry.get(call.name));
    return explanation.decision.behavior === "allow";
  }
}

/** The project's personal settings file, where "always" rules can be kept: `<root>/.minagent/settings.local.json`. */
export function localSettingsFile(root: string): string {
  return join(root, ".minagent", "settings.local.json");
}

/**
 * Adds allow rules to a settings file (created if missing), keeping everything else in it. Throws a UsageError
 * when the file is not a JSON object with an array of rules, rather than overwrite what a person wrote.
 */
export async function saveAllowRules(file: string, rules: readonly string[]): Promise<void> {
  await editSettingsFile(file, "add the rule", (settings) => {
    const permissions = settings.permissions ?? {};
    if (!isSettingsObject(permissions)) throw new UsageError(`Cannot add the rule to ${file}: its "permissions" is not an object.`);
    const allow = permissions.allow ?? [];
    if (!Array.isArray(allow)) throw new UsageError(`Cannot add the rule to ${file}: its "permissions.allow" is not an array.`);
    for (const rule of rules) if (!allow.includes(rule)) allow.push(rule);
    settings.permissions = { ...permissions, allow };
  });
}
