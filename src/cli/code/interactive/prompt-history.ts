import { appendFile, chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { projectFolderName } from "../../../code/sessions/json-lines-session-store.js";
import type { InputHistory } from "./line-editor.js";

/** How many prompts a folder's history keeps. */
export const promptHistoryLimit = 1000;

/** The file a folder's prompts are kept in: `<data directory>/prompt-history/<folder name>.jsonl`. */
export function promptHistoryFile(dataDirectory: string, cwd: string): string {
  return join(dataDirectory, "prompt-history", `${projectFolderName(cwd)}.jsonl`);
}

/**
 * The prompts typed in a project folder, oldest first, across sessions: Up, Down and Ctrl-R go through them. Each
 * submitted prompt is appended to the file (a JSON line, readable by the person only); the file is read once, when the
 * session starts, and cut back to the last {@link promptHistoryLimit} prompts when it has grown to twice that.
 */
export class PromptHistory implements InputHistory {
  readonly entries: string[];
  readonly #file: string | undefined;
  #writing: Promise<void> = Promise.resolve();

  /** A history of `entries`, saved to `file` (none: kept in memory only). */
  constructor(entries: string[] = [], file?: string) {
    this.entries = entries;
    this.#file = file;
  }

  /** The history saved in `file` (empty when there is none, or it cannot be read). */
  static async load(file: string): Promise<PromptHistory> {
    let lines: string[] = [];
    try {
      lines = (await readFile(file, "utf8")).split("\n").filter((line) => line !== "");
    } catch {
      // No history yet (or none readable): start one.
    }
    const entries = lines.slice(-promptHistoryLimit).flatMap((line) => {
      try {
        const entry = JSON.parse(line) as { prompt?: unknown };
        return typeof entry.prompt === "string" ? [entry.prompt] : [];
      } catch {
        return [];
      }
    });
    const history = new PromptHistory(entries, file);
    if (lines.length >= 2 * promptHistoryLimit) history.#rewrite();
    return history;
  }

  /** Adds a prompt (not one that repeats the last), and appends it to the file. */
  add(text: string): void {
    if (text.trim() === "" || this.entries.at(-1) === text) return;
    this.entries.push(text);
    if (this.entries.length > promptHistoryLimit) this.entries.splice(0, this.entries.length - promptHistoryLimit);
    const file = this.#file;
    if (file === undefined) return;
    const line = `${JSON.stringify({ prompt: text, time: new Date().toISOString() })}\n`;
    this.#write(async () => {
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      await appendFile(file, line, { mode: 0o600 });
    });
  }

  /** Resolves once every prompt added so far is written. */
  flush(): Promise<void> {
    return this.#writing;
  }

  #rewrite(): void {
    const file = this.#file as string;
    const text = this.entries.map((prompt) => `${JSON.stringify({ prompt })}\n`).join("");
    this.#write(async () => {
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, text, { mode: 0o600 });
      await chmod(temporary, 0o600);
      await rename(temporary, file);
    });
  }

  /** Writes one after the other; a failed write loses that prompt's line, never the session. */
  #write(write: () => Promise<void>): void {
    this.#writing = this.#writing.then(write).catch(() => {});
  }
}
