// Hooks for minagent/code: Claude Code's hook events and settings shape on minagent's seams (a permission check,
// a tool wrapper, and functions a host calls). Explicit named exports only.
export { compileMatcher } from "./compile-matcher.js";
export {
  HookRunner,
  type HookRunnerOptions,
  type PostToolUseOutcome,
  type PreToolUseOutcome,
  type SessionStartOutcome,
  type UserPromptSubmitOutcome,
} from "./hook-runner.js";
export {
  type CommandHook,
  type FunctionHook,
  type HookConfiguration,
  type HookEventName,
  type HookFunction,
  type HookInputBase,
  type HookInputs,
  type HookMatcher,
  type HookResults,
  type HookRunReport,
  type HookSettings,
  hookEventNames,
  type PostToolUseHookInput,
  type PostToolUseHookResult,
  type PreToolUseHookInput,
  type PreToolUseHookResult,
  type SessionStartHookInput,
  type SessionStartHookResult,
  type SessionStartSource,
  type StopHookInput,
  type StopHookResult,
  type UserPromptSubmitHookInput,
  type UserPromptSubmitHookResult,
} from "./types.js";
export { withPostToolUseHooks } from "./with-post-tool-use-hooks.js";
export { withPreToolUseHooks } from "./with-pre-tool-use-hooks.js";
