export { createSkillTool, describeSkills, type SkillToolOptions, skillToolName } from "./create-skill-tool.js";
export {
  type LoadedSkills,
  loadSkills,
  maxDescriptionLength,
  type Skill,
  type SkillDirectoriesOptions,
  type SkillDirectory,
  skillDirectories,
} from "./load-skills.js";
export { parseSkillFile, type SkillFile, SkillFileError } from "./parse-skill-file.js";
export { listSkillFiles, maxSkillFileCharacters, type ReadSkillFileOptions, readSkillFile, type SkillFileEntry } from "./skill-files.js";
