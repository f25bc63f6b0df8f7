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
    throw new UsageError(
      `The settings file ${file} is not valid JSON: ${await describeJsonError(text, error as Error)}. Fix it, or move it away, and start again.`,
      {
        cause: error,
      },
    );
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

/**
 * Where and what the first syntax error of `text` is (`line 3, column 34: a value was expected (a trailing comma?)`),
 * as Microsoft's JSON scanner finds it — the engine's own message names no position for most errors. Loaded only
 * when a file is broken.
 */
async function describeJsonError(text: string, error: Error): Promise<string> {
  if (text.trim() === "") return "the file is empty (write {} for a file with no settings)";
  const { parse, printParseErrorCode } = await import("jsonc-parser");
  const errors: import("jsonc-parser").ParseError[] = [];
  parse(text, errors, { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return error.message;
  const before = text.slice(0, first.offset).split("\n");
  const line = before.length;
  const column = (before.at(-1)?.length ?? 0) + 1;
  return `line ${line}, column ${column}: ${explain(printParseErrorCode(first.error))}`;
}

/** The scanner's error codes in words. */
function explain(code: string): string {
  const words: Record<string, string> = {
    ValueExpected: "a value was expected here (a trailing comma?)",
    PropertyNameExpected: "a property name in double quotes was expected here (a trailing comma?)",
    CommaExpected: "a comma was expected here",
    ColonExpected: "a colon was expected here",
    CloseBraceExpected: "a closing } was expected here",
    CloseBracketExpected: "a closing ] was expected here",
    EndOfFileExpected: "the file should end here",
    InvalidCommentToken: "comments are not allowed in JSON",
    InvalidSymbol: "this is not JSON (a single-quoted string, or a word without quotes?)",
    UnexpectedEndOfString: "a string is not closed",
    UnexpectedEndOfComment: "a comment is not closed",
    InvalidEscapeCharacter: "an invalid escape in a string",
    InvalidCharacter: "an invalid character in a string",
  };
  return words[code] ?? code;
}
