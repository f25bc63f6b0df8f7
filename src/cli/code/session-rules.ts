import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { CodingAgent } from "../../code/coding-agent.js";
import { mcpSamplingName } from "../../code/create-session-sampler.js";
import type { ApprovalDecision } from "../../core/run-state.js";
import type { ToolCall } from "../../core/types.js";
import { UsageError } from "../../errors.js";
import { editSettingsFile, isSettingsObject } from "./edit-settings-file.js";

type Call = Pick<ToolCall, "name" | "arguments">;

const editors = new Set(["Edit", "Write", "NotebookEdit", "MultiEdit"]);
const readers = new Set(["Read", "Glob", "Grep", "LS", "NotebookRead"]);

/** The name a sandboxed command's request for a new host is asked under (it is no tool). */
export const networkRequestName = "Network";

/** The source of the rules a person adds during a session: `/permissions` lists them under it. */
export const sessionRuleSource = "this session";

/**
 * The allow rules a person adds during this session ("yes, and don't ask again"). They are rules of the agent's
 * own permissions (`permissions.addRules(…, "this session")`), judged with the settings' rules in one place:
 * `Bash(npm test)` means here what it means in a settings file, and an ask rule of the settings still asks. This
 * class only suggests them and asks the permissions about them; it keeps none of its own.
 */
export class SessionRules {
  readonly #agent: CodingAgent;
  /** The rules the person saved to a settings file this session. */
  readonly #saved = new Set<string>();

  constructor(agent: CodingAgent) {
    this.#agent = agent;
  }

  /** The rules added for this session only (not those saved to a file), in order. */
  get rules(): readonly string[] {
    return this.#agent.permissions.settings.rules.allow.filter((rule) => rule.source === sessionRuleSource).map((rule) => rule.text);
  }

  /** Adds allow rules to the agent's permissions for the rest of the session. */
  add(rules: readonly string[]): void {
    this.#agent.permissions.addRules({ allow: rules }, sessionRuleSource);
  }

  /**
   * Saves allow rules to a settings file ({@link saveAllowRules}) and adds them to the agent's permissions as that
   * file's, so that `/permissions` lists the file and its rules at once, as the next session will. Throws as
   * saveAllowRules does, and then adds none: the caller may {@link add} them for the session instead.
   */
  async save(rules: readonly string[], file: string): Promise<void> {
    await saveAllowRules(file, rules);
    this.#agent.permissions.addRules({ allow: rules }, file, { settingsFile: true });
    for (const rule of rules) this.#saved.add(rule);
  }

  /**
   * Whether the rules added so far (saved ones too) allow `call` (a call asked about before they were added, waiting
   * for its prompt). Only these rules count: a call the settings allow but a hook asks about is still asked.
   */
  async allows(call: Call): Promise<boolean> {
    const rules = [...this.rules, ...this.#saved];
    return rules.length > 0 && (await this.#allowedBy(rules, call));
  }

  /**
   * Rules that would allow `call` from now on without asking — one per part of a shell command, the file's folder
   * for a file tool, the tool for another — checked against the permission system; undefined when none would
   * (an ask rule of the settings, plan mode, a call leaving the workspace by a link…).
   */
  async suggest(call: Call): Promise<string[] | undefined> {
    if (call.name === "ExitPlanMode") return undefined;
    const candidates = await this.#candidates(call);
    if (!candidates?.length) return undefined;
    return (await this.#allowedBy([...this.rules, ...candidates], call)) ? candidates : undefined;
  }

  /**
   * For a call of an MCP server's tool, the rule allowing every tool of that server (`mcp__github`, Claude Code's
   * rule for a whole server) when it would allow this call from now on; undefined for any other call.
   */
  async suggestServer(call: Call): Promise<string[] | undefined> {
    const server = (this.#agent.registry.get(call.name) as { server?: unknown } | undefined)?.server;
    if (typeof server !== "string" || !call.name.startsWith(`mcp__${server}__`)) return undefined;
    const rule = `mcp__${server}`;
    // A server name the rule syntax cannot say (one with "__" in it) names no server: nothing is offered.
    const allowed = await this.#allowedBy([...this.rules, rule], call).catch(() => false);
    return allowed ? [rule] : undefined;
  }

  async #candidates(call: Call): Promise<string[] | undefined> {
    const args = call.arguments;
    // One server's sampling, not every server's.
    if (call.name === mcpSamplingName && typeof args.server === "string") return [`${mcpSamplingName}(${args.server})`];
    if (call.name === "Bash") {
      const parts = (await this.#agent.permissions.explain(call, this.#agent.registry.get(call.name))).commands;
      return parts && [...new Set(parts.map((part) => `Bash(${part.replace(/\*/g, "\\*")})`))];
    }
    // The host, as Claude Code's "don't ask again for this domain": not every URL.
    if (call.name === "WebFetch" && typeof args.url === "string" && URL.canParse(args.url)) {
      const host = new URL(args.url).hostname.toLowerCase();
      if (/^[a-z0-9_.-]+$/.test(host)) return [`WebFetch(domain:${host})`];
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

  /** Whether `rules` alone, as allow rules beside the settings' deny and ask rules, allow `call` in the current mode. */
  async #allowedBy(rules: readonly string[], call: Call): Promise<boolean> {
    // As if the tool asked for approval: what the mode alone would allow does not count (the tool may have asked).
    const explanation = await this.#agent.permissions.explain(call, this.#agent.registry.get(call.name), {
      allowRules: rules,
      needsApproval: true,
    });
    return explanation.decision.behavior === "allow";
  }
}

/** What the session makes of a call before a person is asked about it (see {@link beforeAsking}). */
export type BeforeAsking =
  | { answered: ApprovalDecision }
  | {
      answered?: undefined;
      /** Whether the call leaves the sandbox (asked every time, no rule offered). */
      leavesSandbox: boolean;
      /** The rules "always" would add, when some would allow the call from now on. */
      suggestion: string[] | undefined;
    };

/**
 * The part of a permission question the terminal and the editor share: a call the person's session rules now allow
 * is allowed without asking; a call leaving the sandbox where that is turned off is refused without asking (the
 * Bash tool would refuse it whatever the answer). Otherwise, the rule to offer for "always": none for leaving the
 * sandbox, a network request or a plan.
 */
export async function beforeAsking(agent: CodingAgent, rules: SessionRules, toolCall: Call): Promise<BeforeAsking> {
  // With the sandbox off, the argument changes nothing: such a call is judged, and remembered, as any other.
  const isNetwork = toolCall.name === networkRequestName;
  const leavesSandbox =
    isNetwork || (toolCall.name === "Bash" && toolCall.arguments.dangerouslyDisableSandbox === true && agent.sandbox.status.enabled);
  if (!leavesSandbox && (await rules.allows(toolCall))) return { answered: { behavior: "allow" } };
  if (leavesSandbox && !isNetwork && agent.sandbox.status.allowUnsandboxedCommands === false)
    return {
      answered: {
        behavior: "deny",
        message:
          "Running outside the sandbox is turned off here (sandbox.allowUnsandboxedCommands is false), so the user was not asked. Run the command inside it, or ask the user to run it.",
      },
    };
  const offersRule = !leavesSandbox && toolCall.name !== "ExitPlanMode";
  return { leavesSandbox, suggestion: offersRule ? await rules.suggest(toolCall).catch(() => undefined) : undefined };
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
