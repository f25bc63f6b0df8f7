import type { Tool } from "./tool.js";

// The permission types are the core's (src/core/permission.ts): the loop and the Agent pass checks along. This layer
// knows what a tool is, and tells the core: the tool a check receives is a `Tool`.
declare module "../core/permission.js" {
  interface PermissionTool extends Tool {}
}

export type { CanUseTool, PermissionContext, PermissionDecision } from "../core/permission.js";
