import { readdir, readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, relative, resolve } from "node:path";
import { UsageError } from "../../errors.js";
import { formatNumber } from "../../text.js";
import { parseSubagentDefinition, type SubagentDefinition } from "./subagent-definition.js";

/** Where subagent files are looked for. */
export type SubagentDirectoriesOptions = {
  /** The project root: `<root>/.minagent/agents/`. */
  root: string;
  /** The user's minagent folder: `<userDirectory>/agents/` (default `~/.minagent`; the CLI's is `MINAGENT_HOME`); `false` reads none. */
  userDirectory?: string | false | undefined;
  /** Claude Code's folder of the user's (`~/.claude`): its `agents/`, and the project's `.claude/agents/`, are read too. */
  claudeDirectory?: string | undefined;
  /**
   * Told of a file that cannot be used (malformed, unreadable, a name defined twice in one folder), which is then
   * skipped so that the session starts. Without it, such a file throws.
   */
  onSkipped?: ((problem: string) => void) | undefined;
  /**
   * Told of what a file that is used leaves out, one line each naming the file and the key (an unknown key, a Claude
   * Code key minagent does not support, a tool entry that is not a name). Without it, these are not said.
   */
  onWarning?: ((problem: string) => void) | undefined;
  /**
   * `false`: an agent file of the project's own folders (`.claude/agents/`, `.minagent/agents/`) that has hooks is
   * not used — a folder the person did not trust must not run commands through its agent files, as through its
   * settings files. Default: used.
   */
  projectHooks?: boolean | undefined;
};

/** Largest subagent file read (a definition is a prompt, not a data file). */
const maxFileBytes = 256 * 1024;

/**
 * The directories holding subagent files, the user's first: a project's definition replaces the user's of the same
 * name, and at each level minagent's replaces Claude Code's (`~/.claude/agents`, `~/.minagent/agents`, then the
 * project's `.claude/agents` and `.minagent/agents`).
 */
export function subagentDirectories(options: SubagentDirectoriesOptions): string[] {
  const root = resolve(options.root);
  const claude = options.claudeDirectory === undefined ? [] : [join(resolve(options.claudeDirectory), "agents")];
  const user = options.userDirectory === false ? [] : [join(resolve(options.userDirectory ?? join(homedir(), ".minagent")), "agents")];
  const project = [...(options.claudeDirectory === undefined ? [] : [join(root, ".claude", "agents")]), join(root, ".minagent", "agents")];
  return [...new Set([...claude, ...user, ...project])];
}

/**
 * Reads every `*.md` file of the {@link subagentDirectories} (Claude Code's and minagent's, the user's then the
 * project's; a missing directory is none), in that order and by file name within each. Throws a UsageError naming
 * the file for a malformed one, or for two files of one directory defining the same name (unless `onSkipped`).
 */
export async function loadSubagentDefinitions(options: SubagentDirectoriesOptions): Promise<SubagentDefinition[]> {
  const definitions: SubagentDefinition[] = [];
  const project = new Set(projectAgentDirectories(options.root));
  for (const directory of subagentDirectories(options)) {
    const inDirectory = new Map<string, SubagentDefinition>();
    for (const file of await markdownFiles(directory)) {
      try {
        // A file's warnings are said only once it is used: a skipped file gets one line, its error.
        const warnings: string[] = [];
        const definition = parseSubagentDefinition(await readDefinitionFile(file), file, {
          onWarning: (warning) => warnings.push(warning),
        });
        if (definition.hooks && options.projectHooks === false && project.has(directory))
          throw new UsageError(
            `Subagent definition ${file} has hooks, which run commands, and this folder is not trusted, so it is not used`,
          );
        const earlier = inDirectory.get(definition.name);
        if (earlier)
          throw new UsageError(
            `Subagent definitions ${earlier.source} and ${file} both define "${definition.name}"; rename or remove one of them.`,
          );
        inDirectory.set(definition.name, definition);
        definitions.push(definition);
        for (const warning of warnings) options.onWarning?.(warning);
      } catch (error) {
        if (!options.onSkipped || !(error instanceof Error)) throw error;
        options.onSkipped(`${error.message} (skipped: the session goes on without it)`);
      }
    }
  }
  return definitions;
}

/**
 * One list of subagent types from several (built-in first, then files): a later definition replaces an earlier one
 * of the same name, and takes its place at the end.
 */
export function mergeSubagentDefinitions(...lists: readonly (readonly SubagentDefinition[])[]): SubagentDefinition[] {
  const byName = new Map<string, SubagentDefinition>();
  for (const list of lists)
    for (const definition of list) {
      byName.delete(definition.name);
      byName.set(definition.name, definition);
    }
  return [...byName.values()];
}

async function markdownFiles(directory: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw new UsageError(`Cannot read the subagent directory ${directory}: ${(error as Error).message}`);
  }
  const files: string[] = [];
  for (const name of names.filter((name) => name.endsWith(".md")).sort()) {
    const path = join(directory, name);
    if ((await stat(path).catch(() => undefined))?.isFile()) files.push(path);
  }
  return files;
}

async function readDefinitionFile(file: string): Promise<string> {
  const { size } = await stat(file);
  if (size > maxFileBytes)
    throw new UsageError(`Subagent definition ${file} is ${formatNumber(size)} bytes; a definition may have at most 256 KB.`);
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read the subagent definition ${file}: ${(error as Error).message}`);
  }
}

/** The project's own agent folders: Claude Code's and minagent's. */
function projectAgentDirectories(root: string): string[] {
  return [join(resolve(root), ".claude", "agents"), join(resolve(root), ".minagent", "agents")];
}

/**
 * What the project's own agent files would run, one line each (`.claude/agents/release.md: hook PreToolUse Bash:
 * ./check.sh`): for the question whether to trust a folder, beside its settings files' hooks. A file that cannot
 * be read or parsed runs nothing and is left out.
 */
export async function describeProjectAgentHooks(root: string): Promise<string[]> {
  const lines: string[] = [];
  for (const directory of projectAgentDirectories(root))
    for (const file of await markdownFiles(directory).catch(() => [] as string[])) {
      let definition: SubagentDefinition;
      try {
        definition = parseSubagentDefinition(await readDefinitionFile(file), file);
      } catch {
        continue;
      }
      for (const [event, groups] of Object.entries(definition.hooks ?? {}))
        for (const group of Array.isArray(groups) ? groups : [groups]) {
          const { matcher, hooks } = (group ?? {}) as { matcher?: unknown; hooks?: unknown };
          const on = typeof matcher === "string" && matcher !== "" ? ` ${matcher}` : "";
          for (const hook of Array.isArray(hooks) ? hooks : []) {
            const { command, url, args } = (hook ?? {}) as { command?: unknown; url?: unknown; args?: unknown };
            // Exec-form arguments are what the program runs: `node evil.js`, not `node`.
            const argv = Array.isArray(args) ? args.map((arg) => JSON.stringify(arg)) : [];
            const what = typeof command === "string" ? [command, ...argv].join(" ") : typeof url === "string" ? url : JSON.stringify(hook);
            lines.push(`${relative(resolve(root), file)}: hook ${event}${on}: ${what}`);
          }
        }
    }
  return lines;
}
