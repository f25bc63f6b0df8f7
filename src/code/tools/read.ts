import type { Stats } from "node:fs";
import { type FileHandle, opendir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { type ContentPart, maxImagesPerResult, type Tool, type ToolOutput, toolOutput } from "../../engine.js";
import { ToolError, UsageError } from "../../errors.js";
import { formatNumber } from "../../text.js";
import { charactersPerToken } from "../compaction/estimate-tokens.js";
import { digestText, type FileVersion, fileError, type Workspace } from "../workspace.js";
import { describeBinary, formatSize, plural, sniffLength } from "./file-text.js";
import { readBytesOf, readLineWindow, type Window } from "./line-window.js";
import { describeMissingFile } from "./missing-file.js";
import { isNotebookPath, type NotebookImage } from "./notebook-cells.js";
import { readNotebook } from "./notebook-read.js";
import { defaultMediaLimits, imagePartOf, imageTypeOf, isPdf, type MediaLimits, readMediaBytes } from "./read-media.js";

/** Limits of the {@link createReadTool Read tool}. */
export type ReadToolOptions = {
  /** Lines shown when the call gives no `limit` (default 2000). */
  maxLines?: number | undefined;
  /** Longer lines are cut to this many characters (default 2000). */
  maxLineLength?: number | undefined;
  /**
   * Most characters one call returns (default 100,000: about 25,000 tokens at the 4 characters per token compaction
   * estimates with, Claude Code's cap): lines stop before it, and the output says where to go on. Keep it below the
   * registry's `maxResultLength` (50,000 by default; CodingAgent's registry allows 110,000), which would cut without
   * saying how to read more.
   */
  maxCharacters?: number | undefined;
  /** What an image or a PDF may be as sent (sizes, pages): `defaultMediaLimits`, these fields over it. */
  media?: Partial<MediaLimits> | undefined;
};

/** What one Read returns at most, in estimated tokens: Claude Code's cap, so a 1,000-line file is one call. */
const readTokenBudget = 25_000;

/** Files up to this size are scanned to the end to say how many lines they have. */
const countLinesUpTo = 8 * 1024 * 1024;
/** Entries of a directory named in the observation for a Read of it. */
const listedEntries = 20;

type ReadArguments = { file_path: string; offset?: number | undefined; limit?: number | undefined; pages?: string | undefined };

/**
 * Claude Code's `Read { file_path, offset?, limit? }`: a text file's lines, numbered like `cat -n`, from line
 * `offset` (1-based; 0 counts as 1) for `limit` lines (default 2000), lines cut at 2000 characters and output at
 * 100,000 characters (about 25,000 tokens, as Claude Code); the output says when and where it was cut and how to read on. A directory, a binary file, an empty file,
 * an offset past the end and a missing file (with similar names) each get an observation of their own. Files
 * are streamed: a window of a huge file costs a window's memory.
 *
 * A Read that shows the file (any part of it), finds it empty, or finds it binary records its version in the
 * workspace, so Edit and Write may change it afterwards. Read-only, but a file with more than one hard link needs
 * approval ({@link Workspace.isLocationUncertain}: its other name may be outside the workspace). With an editor
 * ({@link Workspace.editor}) a text file's lines are the editor's (its buffer, unsaved edits included); what the
 * file is (missing, a directory, binary) is still found on disk.
 *
 * A `.ipynb` notebook is shown as its cells, with ids and outputs, instead of its JSON ({@link readNotebook}): offset
 * and limit count cells there; one that does not parse is shown as text.
 * @example registry.add(createReadTool(workspace, { maxLines: 500 }))
 */
export function createReadTool(workspace: Workspace, options: ReadToolOptions = {}): Tool {
  const maxLines = positiveInteger("maxLines", options.maxLines ?? 2000);
  const maxLineLength = positiveInteger("maxLineLength", options.maxLineLength ?? 2000);
  const maxCharacters = positiveInteger("maxCharacters", options.maxCharacters ?? readTokenBudget * charactersPerToken);
  return {
    name: "Read",
    description: [
      "Read a text file from the workspace. The output numbers each line like `cat -n`: the line number, a tab, then the line;",
      "the number and the tab are not part of the file, so never copy them into Edit's old_string.",
      `Shows up to ${maxLines} lines from the start unless you give offset (1-based first line) and limit (number of lines);`,
      `lines longer than ${maxLineLength} characters are cut. The output says when something was left out and how to read on.`,
      "A Jupyter notebook (.ipynb) shows its cells with their ids and outputs; offset and limit then count cells.",
      'An image (PNG, JPEG, GIF, WebP) is shown to you as an image, and a PDF as a document: give pages ("1-5") for a PDF of more than 10 pages.',
      "Read a file before you Edit or Write it. Use Glob to find files and list folders, and Grep to search contents.",
    ].join(" "),
    compileOnFirstCall: true,
    parameters: {
      type: "object",
      properties: {
        file_path: { type: "string", description: "Path of the file: absolute, or relative to the workspace root." },
        offset: { type: "integer", minimum: 0, description: "Line number to start at (1-based). Only for files too long to read at once." },
        limit: { type: "integer", minimum: 1, description: "How many lines to read. Only for files too long to read at once." },
        pages: { type: "string", description: 'For a PDF: the pages to read, e.g. "3", "1-5" or "2,4-6" (at most 20 a call).' },
      },
      required: ["file_path"],
    },
    readOnly: true,
    needsApproval: (args) => workspace.isLocationUncertain((args as ReadArguments).file_path),
    execute: async (args, context) => {
      const { file_path, offset, limit, pages } = args as ReadArguments;
      const absolute = await workspace.resolve(file_path);
      const start = Math.max(1, offset ?? 1);
      return readLines(workspace, absolute, {
        start,
        limit: limit ?? maxLines,
        maxLineLength,
        maxCharacters,
        signal: context.signal,
        pages,
        media: { ...defaultMediaLimits, ...options.media },
      });
    },
  };
}

type ReadRequest = {
  start: number;
  limit: number;
  maxLineLength: number;
  maxCharacters: number;
  signal: AbortSignal;
  pages?: string | undefined;
  media: MediaLimits;
};

async function readLines(workspace: Workspace, absolute: string, request: ReadRequest): Promise<string | ToolOutput> {
  const shown = workspace.display(absolute);
  const info = await stat(absolute).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw fileError(error, `read ${shown}`);
  });
  if (!info) throw new ToolError(await describeMissingFile(workspace, absolute));
  if (info.isDirectory()) throw new ToolError(await describeDirectory(workspace, absolute));
  if (!info.isFile()) throw new ToolError(`${shown} is not a regular file (a device, socket or pipe); Read only reads files.`);
  let handle: FileHandle;
  try {
    handle = await workspace.openFile(absolute);
  } catch (error) {
    throw fileError(error, `read ${shown}`);
  }
  try {
    const version = await handle.stat();
    // Checked by path above; this is what was opened, should the path have changed since.
    if (!version.isFile()) throw new ToolError(`${shown} is not a regular file (it changed while being read); Read only reads files.`);
    const media = version.size === 0 ? undefined : await readMedia(workspace, absolute, handle, version, request);
    if (media) return media;
    const binary = version.size === 0 ? undefined : await sniffBinary(handle, version.size);
    if (binary) {
      await workspace.remember(absolute, version);
      throw new ToolError(
        `${shown} is ${binary}, ${formatSize(version.size)}; Read shows text only. Inspect it with Bash if you need to (file, xxd, unzip -l…).`,
      );
    }
    // A notebook shows its cells (offset and limit count cells); one that does not parse is shown as text.
    const notebook =
      isNotebookPath(absolute) && version.size > 0 ? await readNotebook(workspace, absolute, handle, version, request) : undefined;
    // A notebook's image outputs are shown as images: each checked by its bytes and sized as Read sends an image.
    if (notebook) return notebookOutput(notebook, request.media);
    if (workspace.editor) return await readEditorLines(workspace, absolute, request, version);
    if (version.size === 0) {
      await workspace.remember(absolute, version);
      return `${shown} exists but is empty (0 bytes).`;
    }
    const window = await readLineWindow(handle, { ...request, countAll: version.size <= countLinesUpTo });
    return await showWindow(workspace, absolute, window, request, version);
  } catch (error) {
    throw fileError(error, `read ${shown}`);
  } finally {
    await handle.close();
  }
}

/** Why the start of the open file is not text, or undefined when it looks like text. */
/**
 * A notebook's text with its image outputs as parts (at most {@link maxImagesPerResult}); an output whose bytes are
 * no image the providers take stays the line the text already has for it.
 */
async function notebookOutput(
  notebook: { text: string; images: readonly NotebookImage[] },
  limits: MediaLimits,
): Promise<string | ToolOutput> {
  const parts: ContentPart[] = [];
  for (const image of notebook.images.slice(0, maxImagesPerResult)) {
    const part = await imagePartOf(image.base64, `the image output of cell ${image.cell}`, limits);
    if (part) parts.push(part);
  }
  const left = notebook.images.length - maxImagesPerResult;
  const note =
    left > 0 ? `\n\n[${plural(left, "more image output")} not shown: Read the notebook by cells (offset, limit) to see them.]` : "";
  return parts.length === 0 ? notebook.text + note : toolOutput(notebook.text + note, parts);
}
/** Most bytes of an image or PDF file Read loads to look at (what it sends is capped lower, by MediaLimits). */
const maxMediaFileBytes = 100 * 1024 * 1024;

/** An image or a PDF, as the model sees it (and its version remembered); undefined for any other file. */
async function readMedia(
  workspace: Workspace,
  absolute: string,
  handle: FileHandle,
  version: Stats,
  request: ReadRequest,
): Promise<ToolOutput | undefined> {
  const head = Buffer.alloc(Math.min(16, version.size));
  await handle.read(head, 0, head.length, 0);
  const image = imageTypeOf(head);
  if (!image && !isPdf(head)) return undefined;
  const shown = workspace.display(absolute);
  if (version.size > maxMediaFileBytes)
    throw new ToolError(`${shown} is ${image ? "an image" : "a PDF"} of ${formatSize(version.size)}, too large for Read to load.`);
  const bytes = await handle.readFile();
  const output = await readMediaBytes(bytes, shown, basename(absolute), request.pages, request.media);
  if (output) await workspace.remember(absolute, version);
  return output;
}

async function sniffBinary(handle: FileHandle, size: number): Promise<string | undefined> {
  const head = Buffer.alloc(Math.min(sniffLength, size));
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  return describeBinary(head.subarray(0, bytesRead));
}

/**
 * The lines of the editor's text of `absolute` (its buffer, unsaved edits included), shown as the disk's would be;
 * the version remembered carries the text's digest, which Edit and Write check against the editor's text later.
 */
async function readEditorLines(workspace: Workspace, absolute: string, request: ReadRequest, onDisk: FileVersion): Promise<string> {
  const text = await workspace.readEditorText(absolute);
  const seen: FileVersion = { mtimeMs: onDisk.mtimeMs, size: onDisk.size, digest: digestText(text) };
  if (text === "") {
    await workspace.remember(absolute, seen);
    return `${workspace.display(absolute)} exists but is empty (0 bytes).`;
  }
  const bytes = Buffer.from(text, "utf8");
  // The text is in memory already: counting its lines costs no reading.
  const window = await readLineWindow(readBytesOf(bytes), { ...request, countAll: true });
  return showWindow(workspace, absolute, window, request, seen, bytes.length);
}

/** The window with its notes, once the version shown is remembered; an offset past the end is an observation. */
async function showWindow(
  workspace: Workspace,
  absolute: string,
  window: Window,
  request: ReadRequest,
  version: FileVersion,
  /** The size of what was shown (the editor's text may differ from the disk's, whose size `version` keeps). */
  shownSize = version.size,
): Promise<string> {
  if (window.lines.length === 0) {
    const total = window.total ?? 0;
    throw new ToolError(
      `${workspace.display(absolute)} has ${plural(total, "line")}, so offset ${request.start} is past its end. Call Read with an offset from 1 to ${total}.`,
    );
  }
  await workspace.remember(absolute, version);
  return [window.lines.join("\n"), ...describeOmissions(window, request, shownSize)].join("\n\n");
}

/** The notes after the lines: what was left out, and the call that shows it. */
function describeOmissions(window: Window, request: ReadRequest, size: number): string[] {
  const notes: string[] = [];
  if (window.stop !== "end") {
    const range = `lines ${request.start}–${window.last}${window.total === undefined ? "" : ` of ${formatNumber(window.total)}`}`;
    const why =
      window.stop === "characters"
        ? `The output limit of ${formatNumber(request.maxCharacters)} characters (about ${formatNumber(Math.round(request.maxCharacters / charactersPerToken))} tokens) was reached: shown ${range}.`
        : `Shown ${range}${window.total === undefined ? `; the file goes on (${formatSize(size)} in all)` : ""}.`;
    notes.push(`[${why} To read more, call Read with offset=${window.last + 1} (and a limit if you want fewer lines).]`);
  }
  if (window.cutLines.length > 0) {
    const listed = window.cutLines.slice(0, 5).join(", ") + (window.cutLines.length > 5 ? ", …" : "");
    notes.push(
      `[${plural(window.cutLines.length, "line")} (${listed}) ${window.cutLines.length === 1 ? "was" : "were"} longer than ${formatNumber(request.maxLineLength)} characters and cut; use Grep or Bash to see the rest of a line.]`,
    );
  }
  return notes;
}

async function describeDirectory(workspace: Workspace, absolute: string): Promise<string> {
  const shown = workspace.display(absolute);
  const names: string[] = [];
  let more = false;
  try {
    for await (const entry of await opendir(absolute)) {
      if (names.length >= 200) {
        more = true;
        break;
      }
      names.push(entry.isDirectory() ? `${entry.name}/` : entry.name);
    }
  } catch {
    // an unreadable directory is still a directory
  }
  names.sort();
  const pattern = shown === "." ? "*" : join(shown, "*");
  const rest = more ? ", and more" : names.length > listedEntries ? `, and ${names.length - listedEntries} more` : "";
  const listing = names.length === 0 ? " It is empty." : ` It contains ${names.slice(0, listedEntries).join(", ")}${rest}.`;
  return `${shown} is a directory, not a file.${listing} Read one of its files, or list it with Glob (pattern "${pattern}") or Bash (ls).`;
}

function positiveInteger(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`Read tool option ${option} must be a positive integer, got ${value}.`);
  return value;
}
