import { CodingAgent, type CodingAgentOptions, type HookConfiguration } from "../../../src/code/index.js";
import type { Model } from "../../../src/index.js";

/**
 * A CodingAgent that sees only the hooks a test gives it: no settings files, no memory, no subagents, no sandbox,
 * so that each hook test decides everything that runs. The caller closes it (its transcript folder goes with it).
 */
export function createHookAgent(
  model: Model,
  workspace: string,
  hooks: HookConfiguration,
  options: Partial<CodingAgentOptions> = {},
): Promise<CodingAgent> {
  return CodingAgent.create(model, {
    workspace,
    settingsFiles: [],
    claudeDirectory: false,
    memory: false,
    subagents: false,
    sandbox: false,
    hooks,
    ...options,
  });
}
