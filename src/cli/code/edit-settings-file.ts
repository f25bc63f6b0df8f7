import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { UsageError } from "../../errors.js";

/** A settings file's JSON object, as read: change it in place. */
export type SettingsObject = Record<string, unknown>;

/**
 * Changes a settings file (created if missing), keeping everything else in it, and writes it atomically. `change`
 * throws a UsageError when the file holds something it cannot change; so does a file that is not a JSON object,
 * rather than be overwritten. `what` names the change in messages ("add the rule").
 */
export async function editSettingsFile(file: string, what: string, change: (settings: SettingsObject) => void): Promise<void> {
  let settings: unknown = {};
  try {
    settings = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      throw new UsageError(`Cannot ${what} to ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (!isSettingsObject(settings)) throw new UsageError(`Cannot ${what} to ${file}: it does not hold a JSON object.`);
  change(settings);
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(settings, null, 2)}\n`);
  await rename(temporary, file);
}

export function isSettingsObject(value: unknown): value is SettingsObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
