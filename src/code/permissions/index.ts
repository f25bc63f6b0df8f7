export { analyzeBashCommand, type BashAnalysis, type BashCommand, type BashRedirect } from "./bash-commands.js";
export { type BashParser, loadBashParser } from "./bash-parser.js";
export type { BashAssignment, BashWord } from "./bash-word-types.js";
export {
  type CodePermissions,
  type CodePermissionsOptions,
  createCodePermissions,
  type ExplainedCall,
  type ExplainOptions,
  type PermissionExplanation,
  type PermissionRuleLists,
} from "./create-code-permissions.js";
export { type FileAccess, type FileTool, fileTools } from "./file-tools.js";
export { isPermissionMode, nextPermissionMode, type PermissionMode, permissionModes } from "./modes.js";
export {
  compileCommandPattern,
  type PermissionRule,
  parsePermissionRule,
  type RuleList,
  type RuleTarget,
  splitRuleList,
} from "./parse-rule.js";
export { compilePathPattern, type PathBases, type PathPattern } from "./path-pattern.js";
export { type LoadedPermissionSettings, loadPermissionSettings, type PermissionSettings, permissionSettingsFiles } from "./settings.js";
