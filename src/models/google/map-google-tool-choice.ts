import type { FunctionCallingConfigMode } from "@google/genai";
import type { ToolChoice } from "../../core/types.js";
import type { GoogleFunctionCallingConfig } from "./google-wire-types.js";

/**
 * Maps our tool choice to Gemini's `toolConfig.functionCallingConfig`: `"auto"` → `AUTO`, `"none"` → `NONE`,
 * `"required"` → `ANY` (some call), `{ name }` → `ANY` restricted to that function (`allowedFunctionNames`).
 * @see https://ai.google.dev/gemini-api/docs/function-calling#function_calling_modes
 */
export function mapGoogleToolChoice(toolChoice: ToolChoice): GoogleFunctionCallingConfig {
  // The SDK's enum holds these very strings; a type-only import keeps the SDK out of the module graph.
  const mode = (name: "AUTO" | "NONE" | "ANY") => name as FunctionCallingConfigMode;
  if (toolChoice === "auto") return { mode: mode("AUTO") };
  if (toolChoice === "none") return { mode: mode("NONE") };
  if (toolChoice === "required") return { mode: mode("ANY") };
  return { mode: mode("ANY"), allowedFunctionNames: [toolChoice.name] };
}
