import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { editSettingsFile } from "../edit-settings-file.js";

/** How the prompt is edited: the usual keys, or vim's (/vim). */
export type EditorMode = "normal" | "vim";

/** The user's minagent config (`<data directory>/config.json`): choices made in the interactive session, such as /vim. */
export function userConfigFile(dataDirectory: string): string {
  return join(dataDirectory, "config.json");
}

/** The editor mode the person chose last (`editorMode` in the user's config), "normal" when none. */
export async function readEditorMode(dataDirectory: string): Promise<EditorMode> {
  try {
    const config = JSON.parse(await readFile(userConfigFile(dataDirectory), "utf8")) as { editorMode?: unknown };
    return config.editorMode === "vim" ? "vim" : "normal";
  } catch {
    return "normal";
  }
}

/** Remembers the editor mode in the user's config, keeping what else it holds. */
export function saveEditorMode(dataDirectory: string, mode: EditorMode): Promise<void> {
  return editSettingsFile(userConfigFile(dataDirectory), "save the editor mode", (config) => {
    config.editorMode = mode;
  });
}
