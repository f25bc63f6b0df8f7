export { splitCommandArguments, substituteArguments, usesArguments } from "./command-arguments.js";
export { CommandModels, type ResolveCommandModel } from "./command-model.js";
export { type CommandPart, findFileReferences, splitCommandParts } from "./command-parts.js";
export { allowedToolsSource, type CommandToolParts, createCommandTools, withAllowRules } from "./command-tools.js";
export {
  type CommandScope,
  type CustomCommand,
  type CustomCommandLocation,
  type ParsedCustomCommand,
  parseCustomCommand,
} from "./custom-command.js";
export { type CommandExpansionTools, type CommandFile, type ExpandedCommand, expandCustomCommand } from "./expand-custom-command.js";
export { type AttachedFile, attachFileMentions, createMentionReader, type FileMentions, type MentionReader } from "./file-mentions.js";
export {
  type CustomCommandDirectoriesOptions,
  type CustomCommandDirectory,
  type CustomCommands,
  customCommandDirectories,
  customCommandSet,
  describeProjectCommandRules,
  loadCustomCommands,
} from "./load-custom-commands.js";
export { classifySlashPrompt, describeCommandNames, parseSlashInput, type SlashInput, type SlashPrompt } from "./slash-input.js";
