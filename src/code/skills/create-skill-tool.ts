import type { Tool } from "../../engine.js";
import { ToolError } from "../../errors.js";
import { formatNumber } from "../../text.js";
import { substituteArguments, usesArguments } from "../commands/command-arguments.js";
import type { Skill } from "./load-skills.js";
import { readSkillText } from "./load-skills.js";
import { parseSkillFile, SkillFileError } from "./parse-skill-file.js";
import { listSkillFiles, readSkillFile } from "./skill-files.js";

/** Claude Code's name for the tool: `Skill(<name>)` permission rules and `Skill` hook matchers name it. */
export const skillToolName = "Skill";

/** Settings of {@link createSkillTool}. */
export type SkillToolOptions = {
  /** Whether a `Read(…)` deny rule covers a path (`permissions.isReadDenied`): such files of a skill are not returned. */
  isReadDenied?: ((path: string) => boolean) | undefined;
  /**
   * Characters of descriptions the tool's description holds at most (default 8,000, about 2,000 tokens: Claude Code's
   * 1 % of a 200k window). Past it, skills are listed by name only, and `onWarning` says how many.
   */
  maxListingCharacters?: number | undefined;
  /** Told once, at creation, when descriptions are left out of the listing. */
  onWarning?: ((message: string) => void) | undefined;
};

/** `${CLAUDE_SKILL_DIR}` in a SKILL.md: the folder's absolute path, for the scripts beside it. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's variable, written literally in SKILL.md files.
const skillDirectoryVariable = "${CLAUDE_SKILL_DIR}";

type SkillArguments = { skill: string; args?: string; file?: string };

/**
 * Claude Code's `Skill` tool over loaded skills, the progressive loading Agent Skills describe: its description
 * lists each skill's name and description only (the skills with `disable-model-invocation` are left out); a call
 * `{ skill }` returns the SKILL.md's instructions (read again, so that an edit counts), with the folder's path and the
 * list of its other files; `{ skill, file }` returns one of those files — the way a skill in `~/.claude/skills`,
 * outside the workspace, is read. It changes nothing, so it is read-only; `Skill(<name>)` rules judge its calls.
 * @example
 * const { skills, warnings } = await loadSkills({ root: process.cwd(), claudeDirectory: join(homedir(), ".claude") });
 * if (skills.length > 0) registry.add(createSkillTool(skills, { isReadDenied: permissions.isReadDenied }));
 */
export function createSkillTool(skills: readonly Skill[], options: SkillToolOptions = {}): Tool {
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  const offered = skills.filter((skill) => skill.modelInvocable);
  return {
    name: skillToolName,
    description: describeSkills(offered, options),
    compileOnFirstCall: true,
    parameters: {
      type: "object",
      properties: {
        skill: { type: "string", description: "The skill's name, as listed." },
        args: { type: "string", description: "Optional arguments for the skill (what to work on), when its instructions take them." },
        file: {
          type: "string",
          description:
            "A file of the skill's folder to read (a path inside it, as listed when the skill is loaded), instead of its instructions.",
        },
      },
      required: ["skill"],
      additionalProperties: false,
    },
    readOnly: true,
    execute: async (input) => {
      const { skill: name, args, file } = input as SkillArguments;
      const skill = byName.get(name);
      if (skill === undefined) {
        const names = offered.map((each) => each.name).join(", ");
        throw new ToolError(`There is no skill "${name}". The skills are: ${names || "none"}.`);
      }
      if (!skill.modelInvocable)
        throw new ToolError(
          `The skill "${name}" is one the user runs (disable-model-invocation): do not do its steps yourself; ask the user to run it.`,
        );
      if (file !== undefined) return readSkillFile(skill.folder, file, { isReadDenied: options.isReadDenied });
      return loadSkill(skill, args, options);
    },
  };
}

/** The tool's description: how to use skills, then one line a skill, as few tokens as the names and descriptions take. */
export function describeSkills(
  skills: readonly Skill[],
  options: Pick<SkillToolOptions, "maxListingCharacters" | "onWarning"> = {},
): string {
  const budget = options.maxListingCharacters ?? 8_000;
  let used = 0;
  const namesOnly: string[] = [];
  const lines = skills.map((skill) => {
    used += skill.name.length + skill.description.length;
    if (used <= budget) return `- ${skill.name}: ${skill.description.replace(/\s+/g, " ")}`;
    namesOnly.push(skill.name);
    return `- ${skill.name}`;
  });
  if (namesOnly.length > 0)
    options.onWarning?.(
      `The skills' descriptions take more than ${formatNumber(budget)} characters: ${namesOnly.length} of ${skills.length} skills are listed for the model by name only (${namesOnly.join(", ")}). Shorten the descriptions or remove skills.`,
    );
  return [
    "Load a skill: instructions (and files beside them) for a kind of task. When the task matches a skill's description, call this tool with its name before you start, then follow what it returns; pass `file` to read a file the skill names. Load a skill once per task; only the skills listed exist.",
    "",
    ...lines,
  ].join("\n");
}

/** The instructions, with the folder's path and its other files, the arguments and `${CLAUDE_SKILL_DIR}` filled in. */
async function loadSkill(skill: Skill, args: string | undefined, options: SkillToolOptions): Promise<string> {
  if (options.isReadDenied?.(skill.file)) throw new ToolError(`Permission denied: a Read deny rule covers ${skill.file}.`);
  let body: string;
  try {
    body = parseSkillFile(await readSkillText(skill.file)).body;
  } catch (error) {
    if (error instanceof SkillFileError)
      throw new ToolError(`The skill "${skill.name}" cannot be loaded: ${skill.file}: ${error.message}. Tell the user.`);
    throw error;
  }
  body = body.replaceAll(skillDirectoryVariable, skill.folder);
  // The arguments as a custom command's: $ARGUMENTS, $ARGUMENTS[N] and $N from 0, or appended when none is named.
  const given = args?.trim() ?? "";
  if (usesArguments(body)) body = substituteArguments(body, given);
  else if (given !== "") body = `${body}\n\nARGUMENTS: ${given}`;
  const { files, more } = await listSkillFiles(skill.folder);
  const listing =
    files.length === 0
      ? []
      : [
          "",
          `Files in the skill's folder (read one with ${skillToolName}({ "skill": "${skill.name}", "file": "<path>" }); run a script by its full path with Bash):`,
          ...files.map((file) => `- ${file.path} (${formatBytes(file.bytes)})`),
          ...(more > 0 ? [`- … and ${more} more`] : []),
        ];
  return [`The skill "${skill.name}" is loaded: follow its instructions.`, `Its folder: ${skill.folder}`, "", body, ...listing].join("\n");
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  return `${(bytes / 1024).toFixed(1)} KB`;
}
