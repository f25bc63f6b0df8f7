import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultMediaLimits, imageTypeOf, readImage } from "../../../code/tools/read-media.js";
import type { ContentPart } from "../../../core/types.js";

// Images the person gives with a prompt: a pasted or dragged image file's path becomes a chip, `[Image #1]`, in the
// input line; `@shot.png` in the text names one too. On Enter, the prompt goes with those images.

const imageExtensions = /\.(png|jpe?g|gif|webp)$/i;

/** The images given while writing prompts, by their chip's number. */
export class ImageAttachments {
  readonly #cwd: string;
  readonly #paths = new Map<number, string>();
  #next = 1;

  constructor(cwd: string) {
    this.#cwd = cwd;
  }

  /**
   * What a paste inserts: a chip for an image file's path (as a terminal pastes a dragged file: quoted, with
   * backslash escapes, or as a file:// URL), the text as it is otherwise.
   */
  paste(text: string): string {
    const path = this.#imagePath(unquote(text.trim()));
    if (path === undefined) return text;
    const number = this.#next++;
    this.#paths.set(number, path);
    return `[Image #${number}]`;
  }

  /**
   * The images a prompt names, in order: its chips, then its `@file.png` mentions of image files. A file that can no
   * longer be read (or is no image) is a note, not an error: the prompt goes without it.
   */
  async take(prompt: string): Promise<{ parts: ContentPart[]; notes: string[] }> {
    const parts: ContentPart[] = [];
    const notes: string[] = [];
    const paths: string[] = [];
    for (const match of prompt.matchAll(/\[Image #(\d+)\]/g)) {
      const path = this.#paths.get(Number(match[1]));
      if (path !== undefined) paths.push(path);
    }
    // `@shot.png?`: the punctuation after a mention is the sentence's.
    for (const match of prompt.matchAll(/(?:^|\s)@(\S+?)[.,;:!?)\]]*(?=\s|$)/g)) {
      const path = this.#imagePath(match[1] as string);
      if (path !== undefined && !paths.includes(path)) paths.push(path);
    }
    for (const path of paths) {
      try {
        const bytes = await readFile(path);
        const type = imageTypeOf(bytes.subarray(0, 16));
        const output = type === undefined ? undefined : await readImage(bytes, type, path, defaultMediaLimits);
        if (output === undefined) notes.push(`${path} is not an image that can be sent; the prompt goes without it.`);
        else parts.push(...output.parts);
      } catch (error) {
        notes.push(`${path} could not be attached: ${(error as Error).message}`);
      }
    }
    return { parts, notes };
  }

  /** The absolute path of an existing image file `written` names (relative to the folder, `~/`, a file:// URL), or undefined. */
  #imagePath(written: string): string | undefined {
    if (!imageExtensions.test(written) || written.includes("\n")) return undefined;
    let path = written;
    if (path.startsWith("file://")) {
      try {
        path = fileURLToPath(path);
      } catch {
        return undefined;
      }
    } else if (path.startsWith("~/")) path = resolve(homedir(), path.slice(2));
    const absolute = isAbsolute(path) ? path : resolve(this.#cwd, path);
    return statSync(absolute, { throwIfNoEntry: false })?.isFile() ? absolute : undefined;
  }
}

/** A dragged file's path as terminals paste it: in quotes, or with `\ ` for spaces. */
function unquote(text: string): string {
  const quoted = /^(['"])(.*)\1$/.exec(text);
  if (quoted) return quoted[2] as string;
  return text.replace(/\\(.)/g, "$1");
}
