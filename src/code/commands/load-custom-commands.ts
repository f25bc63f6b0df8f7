import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { formatNumber } from "../../text.js";
import { type CommandScope, type CustomCommand, parseCustomCommand } from "./custom-command.js";

/** Where custom command files are looked for. */
export type CustomCommandDirectoriesOptions = {
  /** The project root: `<root>/.claude/commands/` and `<root>/.minagent/commands/`. */
  root: string;
  /** The home directory, for `~/` in `allowed-tools` rules (default: the user's). */
  home?: string | undefined;
  /** The user's minagent folder: `<userDirectory>/commands/` (default `~/.minagent`; the CLI's is `MINAGENT_HOME`); `false` reads none. */
  userDirectory?: string | false | undefined;
  /** Claude Code's folder of the user's (`~/.claude`): its `commands/`, and the project's `.claude/commands/`, are read too. */
  claudeDirectory?: string | undefined;
};

/** One folder of command files and the scope its commands have. */
export type CustomCommandDirectory = { path: string; scope: CommandScope };

/** The custom commands of a session, and what was left out so that it could start. */
export type CustomCommands = {
  /** Every command that can be run, by name. */
  readonly list: readonly CustomCommand[];
  /**
   * The command `name` (without its slash) names: by its full name (`frontend:component`), else by the last part
   * of one (`component`) when exactly one command has that last part and none has it as its whole name.
   */
  find(name: string): CustomCommand | undefined;
  /** One line for each file, key or rule that could not be used, naming the file. */
  readonly warnings: readonly string[];
};

/** Largest command file read (a command is a prompt, not a data file), as for agent files. */
const maxFileBytes = 256 * 1024;
/** Folders inside `commands/` are namespaces; deeper than this is a loop of links, or a mistake. */
const maxDepth = 8;

/**
 * The folders holding command files, least important first: the project's `.claude/commands/` and
 * `.minagent/commands/`, then the user's (`~/.claude/commands/`, `~/.minagent/commands/`). A later folder's command
 * replaces an earlier one's of the same name: at each level minagent's replaces Claude Code's, and the user's replace
 * the project's, as Claude Code's personal commands and skills win over a project's.
 */
export function customCommandDirectories(options: CustomCommandDirectoriesOptions): CustomCommandDirectory[] {
  const root = resolve(options.root);
  const claude = options.claudeDirectory === undefined ? undefined : resolve(options.claudeDirectory);
  const user = options.userDirectory === false ? undefined : resolve(options.userDirectory ?? join(homedir(), ".minagent"));
  const directories: CustomCommandDirectory[] = [
    ...(claude === undefined ? [] : [{ path: join(root, ".claude", "commands"), scope: "project" as const }]),
    { path: join(root, ".minagent", "commands"), scope: "project" },
    ...(claude === undefined ? [] : [{ path: join(claude, "commands"), scope: "user" as const }]),
    ...(user === undefined ? [] : [{ path: join(user, "commands"), scope: "user" as const }]),
  ];
  // A home folder that is also the project (minagent run in ~) is read once, as the user's.
  return directories.filter((directory, index) => !directories.slice(index + 1).some((later) => later.path === directory.path));
}

/**
 * Reads every `*.md` file under the command folders ({@link customCommandDirectories}; a missing folder is none),
 * sub-folders as namespaces. A file that cannot be used (unreadable, too large, front matter that is not YAML, a name
 * that cannot be typed) is left out with a warning naming it, and so is every key or rule of a file that minagent
 * cannot act on: the session always starts.
 */
export async function loadCustomCommands(options: CustomCommandDirectoriesOptions): Promise<CustomCommands> {
  const bases = { root: resolve(options.root), home: options.home ?? homedir() };
  const warnings: string[] = [];
  const byName = new Map<string, CustomCommand>();
  for (const directory of customCommandDirectories(options)) {
    for (const file of await markdownFiles(directory.path, warnings)) {
      const parts = relative(directory.path, file).split(sep);
      const base = (parts.pop() as string).replace(/\.md$/i, "");
      const namespace = parts.join(":");
      const name = namespace === "" ? base : `${namespace}:${base}`;
      const problem = nameProblem(name);
      if (problem) {
        warnings.push(`Custom command file ${file}: ${problem} (skipped: rename the file to use it)`);
        continue;
      }
      try {
        const text = await readCommandFile(file);
        const parsed = parseCustomCommand(text, { name, namespace, scope: directory.scope, source: file, bases });
        warnings.push(...parsed.warnings);
        const earlier = byName.get(name);
        if (earlier && earlier.scope !== parsed.command.scope)
          warnings.push(
            `Custom command /${name}: ${file} replaces the project's ${earlier.source} (a user's command wins over a project's of the same name, as in Claude Code); rename one of them to keep both.`,
          );
        byName.set(name, parsed.command);
      } catch (error) {
        warnings.push((error as Error).message);
      }
    }
  }
  return customCommandSet([...byName.values()], warnings);
}

/** A {@link CustomCommands} over `commands` (later ones replace earlier ones of the same name). */
export function customCommandSet(commands: readonly CustomCommand[], warnings: readonly string[] = []): CustomCommands {
  const byName = new Map(commands.map((command) => [command.name, command]));
  const list = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return {
    list,
    warnings,
    find: (name) => {
      const exact = byName.get(name);
      if (exact || name.includes(":")) return exact;
      const byLastPart = list.filter((command) => command.name.endsWith(`:${name}`));
      return byLastPart.length === 1 ? byLastPart[0] : undefined;
    },
  };
}

/** Why a command could not be typed as `/name`, if it could not. */
function nameProblem(name: string): string | undefined {
  if (/\s/.test(name)) return `a command's name cannot hold whitespace (/${name})`;
  if (name.split(":").some((part) => part === "")) return `a command needs a name before ".md" (/${name})`;
  return undefined;
}

/** The `.md` files under `directory`, sorted, following links but not into a folder already walked. */
async function markdownFiles(directory: string, warnings: string[]): Promise<string[]> {
  const files: string[] = [];
  const walked = new Set<string>();
  const walk = async (folder: string, depth: number): Promise<void> => {
    const real = await realpath(folder).catch(() => undefined);
    if (real === undefined || walked.has(real) || depth > maxDepth) return;
    walked.add(real);
    let names: string[];
    try {
      names = (await readdir(folder)).sort();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") warnings.push(`Cannot read the command folder ${folder}: ${(error as Error).message}`);
      return;
    }
    for (const name of names) {
      if (name.startsWith(".")) continue;
      const path = join(folder, name);
      const info = await stat(path).catch(() => undefined);
      if (info?.isDirectory()) await walk(path, depth + 1);
      else if (info?.isFile() && /\.md$/i.test(name)) files.push(path);
    }
  };
  await walk(directory, 0);
  return files;
}

async function readCommandFile(file: string): Promise<string> {
  const { size } = await stat(file);
  if (size > maxFileBytes)
    throw new Error(`Custom command file ${file} is ${formatNumber(size)} bytes; a command may have at most 256 KB (skipped).`);
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new Error(`Cannot read the custom command file ${file}: ${(error as Error).message} (skipped).`);
  }
}

/**
 * What the project's own commands would allow without asking, one line each (`.claude/commands/test.md: command
 * /test allows Bash(npm test:*)`): their `allowed-tools` pre-approve shell lines and the model's calls, so they are
 * asked about with a folder's other settings before they count.
 */
export async function describeProjectCommandRules(options: CustomCommandDirectoriesOptions): Promise<string[]> {
  const root = resolve(options.root);
  const { list } = await loadCustomCommands({ ...options, userDirectory: false });
  return list
    .filter((command) => command.scope === "project" && command.allowedTools.length > 0)
    .map((command) => `${relative(root, command.source)}: command /${command.name} allows ${command.allowedTools.join(", ")}`);
}
