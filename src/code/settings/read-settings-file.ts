import { readFile } from "node:fs/promises";
import { UsageError } from "../../errors.js";

/**
 * One settings file's JSON object, or undefined when the file does not exist. Throws a UsageError naming the file when
 * it cannot be read, is not JSON, or holds something other than an object. (Every reader of settings files uses it.)
 */
export async function readSettingsFile(file: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new UsageError(`Cannot read the settings file ${file}: ${(error as Error).message}`, { cause: error });
  }
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`The settings file ${file} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!isObject(settings))
    throw new UsageError(
      `The settings file ${file} must hold a JSON object, got ${settings === null ? "null" : Array.isArray(settings) ? "an array" : typeof settings}.`,
    );
  return settings;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
