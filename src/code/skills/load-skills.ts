import { readdir, readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { formatNumber } from "../../text.js";
import { parseSkillFile, SkillFileError } from "./parse-skill-file.js";

/** One skill: a folder with a SKILL.md, whose name and description the model sees until it loads the rest. */
export type Skill = {
  /** What the model calls it by (`Skill({ skill: name })`) and what `Skill(<name>)` rules name. */
  name: string;
  /** What it does and when to use it: listed in the Skill tool's description. */
  description: string;
  /** The skill's folder (absolute): SKILL.md and the files beside it. */
  folder: string;
  /** Its SKILL.md (absolute). */
  file: string;
  /** `user` (`~/.claude/skills`, `~/.minagent/skills`) or `project` (`.claude/skills`, `.minagent/skills`). */
  level: "user" | "project";
  /** False for `disable-model-invocation: true`: not listed for the model, and the Skill tool refuses it. */
  modelInvocable: boolean;
  /** `user-invocable` (default true): whether a host offers it to a person as a command. */
  userInvocable: boolean;
  /** `allowed-tools` as written. Read but not acted on: the skill's calls meet the session's permissions. */
  allowedTools?: readonly string[] | undefined;
  /** `argument-hint`, as written. */
  argumentHint?: string | undefined;
  /** `license`, as written. */
  license?: string | undefined;
};

/** Where skills are looked for. */
export type SkillDirectoriesOptions = {
  /** The project root: `<root>/.minagent/skills/` (and `<root>/.claude/skills/` with `claudeDirectory`). */
  root: string;
  /** The user's minagent folder: `<userDirectory>/skills/` (default `~/.minagent`; the CLI's is `MINAGENT_HOME`); `false` reads none. */
  userDirectory?: string | false | undefined;
  /** Claude Code's folder of the user's (`~/.claude`): its `skills/`, and the project's `.claude/skills/`, are read too. */
  claudeDirectory?: string | undefined;
};

/** The skills found, and one line for each skill folder that could not be used (it was skipped). */
export type LoadedSkills = { skills: Skill[]; warnings: string[] };

/** A skill directory and the level its skills have. */
export type SkillDirectory = { path: string; level: Skill["level"] };

/** Largest SKILL.md read (instructions, not data: a skill's data goes in the files beside it). */
const maxSkillFileBytes = 256 * 1024;
/** The agentskills.io standard's limit for a description; a longer one is cut in the listing. */
export const maxDescriptionLength = 1024;
/**
 * Letters, digits, `-`, `_` and `.`, at most 64, starting with a letter or digit. The standard asks for lowercase and
 * hyphens; the others are accepted because Claude Code takes a folder's name as it is. Spaces, slashes and
 * parentheses are not: a `Skill(<name>)` rule could not name such a skill.
 */
const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * The skill directories, the first winning: where two define the same name, the earlier one's skill is used. As in
 * Claude Code, the user's skills win over the project's (a repository cannot replace a skill of yours), and at each
 * level minagent's folder wins over Claude Code's: `~/.minagent/skills`, `~/.claude/skills`, then the project's
 * `.minagent/skills` and `.claude/skills`.
 */
export function skillDirectories(options: SkillDirectoriesOptions): SkillDirectory[] {
  const root = resolve(options.root);
  const claude = options.claudeDirectory === undefined ? undefined : resolve(options.claudeDirectory);
  const user = options.userDirectory === false ? undefined : resolve(options.userDirectory ?? join(homedir(), ".minagent"));
  const directories: SkillDirectory[] = [
    ...(user === undefined ? [] : [{ path: join(user, "skills"), level: "user" as const }]),
    ...(claude === undefined ? [] : [{ path: join(claude, "skills"), level: "user" as const }]),
    { path: join(root, ".minagent", "skills"), level: "project" },
    ...(claude === undefined ? [] : [{ path: join(root, ".claude", "skills"), level: "project" as const }]),
  ];
  // A home folder used as the project (root = ~) would list a folder twice.
  return directories.filter((directory, index) => directories.findIndex((other) => other.path === directory.path) === index);
}

/**
 * Reads every `<directory>/<folder>/SKILL.md` of {@link skillDirectories} (a missing directory has none; a folder
 * without SKILL.md is not a skill). A skill whose file cannot be used (unreadable, invalid YAML, no description, a
 * name a rule could not name, the same name as another in the same directory) is left out with a warning naming
 * its file, so that the session starts; so is a description longer than 1,024 characters, which is cut instead.
 * A user's skill that hides the project's of the same name is a warning naming both files.
 */
export async function loadSkills(options: SkillDirectoriesOptions): Promise<LoadedSkills> {
  const byName = new Map<string, Skill>();
  const warnings: string[] = [];
  for (const directory of skillDirectories(options)) {
    const inDirectory = new Map<string, string>();
    for (const folder of await skillFolders(directory.path, warnings)) {
      const file = join(folder.path, "SKILL.md");
      try {
        const skill = await readSkill(file, folder, directory.level, warnings);
        const earlier = inDirectory.get(skill.name);
        if (earlier !== undefined)
          throw new SkillFileError(`${earlier} already defines the skill "${skill.name}": rename one of them (\`name:\`)`);
        inDirectory.set(skill.name, file);
        // An earlier directory (the user's before the project's, ours before Claude Code's) keeps its skill.
        const kept = byName.get(skill.name);
        if (kept === undefined) byName.set(skill.name, skill);
        else if (kept.level !== skill.level)
          warnings.push(
            `Skill "${skill.name}": ${kept.file} replaces the project's ${file} (a user's skill wins over a project's of the same name, as in Claude Code); rename one of them to keep both.`,
          );
      } catch (error) {
        if (!(error instanceof SkillFileError)) throw error;
        const line = error.line === undefined ? "" : `, line ${error.line}`;
        warnings.push(`Skill ${file}${line}: ${error.message}. Fix the file or remove it (skipped: the session goes on without it).`);
      }
    }
  }
  return { skills: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), warnings };
}

/** The folders of one skill directory that hold a SKILL.md, by name. */
async function skillFolders(directory: string, warnings: string[]): Promise<{ path: string; name: string }[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR")
      warnings.push(`Cannot read the skill directory ${directory}: ${(error as Error).message} (its skills are skipped).`);
    return [];
  }
  const folders: { path: string; name: string }[] = [];
  for (const name of names.filter((name) => !name.startsWith(".")).sort()) {
    const path = join(directory, name);
    // A symbolic link to a skill folder (kept in a repository of one's skills) counts: stat follows it.
    const [folder, file] = await Promise.all([stat(path).catch(() => undefined), stat(join(path, "SKILL.md")).catch(() => undefined)]);
    if (folder?.isDirectory() && file !== undefined) folders.push({ path, name });
  }
  return folders;
}

async function readSkill(file: string, folder: { path: string; name: string }, level: Skill["level"], warnings: string[]): Promise<Skill> {
  const parsed = parseSkillFile(await readSkillText(file));
  const name = parsed.name ?? folder.name;
  if (!namePattern.test(name)) {
    const where = parsed.name === undefined ? `its folder's name "${name}" (no \`name:\` is given)` : `\`name: ${name}\``;
    throw new SkillFileError(`${where} is not a skill name: use letters, digits and hyphens, at most 64 (e.g. "${suggestName(name)}")`);
  }
  let description = parsed.description;
  if (description.length > maxDescriptionLength) {
    warnings.push(
      `Skill ${file}: its description is ${formatNumber(description.length)} characters; the model is shown the first ${formatNumber(maxDescriptionLength)}. Move the details into the body.`,
    );
    description = `${description.slice(0, maxDescriptionLength - 1)}…`;
  }
  return {
    name,
    description,
    folder: resolve(folder.path),
    file: resolve(file),
    level,
    modelInvocable: !parsed.disableModelInvocation,
    userInvocable: parsed.userInvocable,
    ...(parsed.allowedTools && { allowedTools: parsed.allowedTools }),
    ...(parsed.argumentHint !== undefined && { argumentHint: parsed.argumentHint }),
    ...(parsed.license !== undefined && { license: parsed.license }),
  };
}

/** The text of a SKILL.md, refusing one that is too big or unreadable. */
export async function readSkillText(file: string): Promise<string> {
  try {
    const { size } = await stat(file);
    if (size > maxSkillFileBytes)
      throw new SkillFileError(
        `it is ${formatNumber(size)} bytes; a SKILL.md may have at most 256 KB (put reference material in other files of the folder)`,
      );
    return await readFile(file, "utf8");
  } catch (error) {
    if (error instanceof SkillFileError) throw error;
    throw new SkillFileError(`cannot be read: ${(error as Error).message}`);
  }
}

function suggestName(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 64) || "my-skill"
  );
}
