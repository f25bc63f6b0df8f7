import type { FileHandle } from "node:fs/promises";
import { ToolError } from "../../errors.js";
import { formatNumber } from "../../text.js";
import { digestText, type FileVersion, type Workspace } from "../workspace.js";
import { decodeText, plural } from "./file-text.js";
import { type NotebookImage, type NotebookJson, parseNotebook, renderNotebookCells } from "./notebook-cells.js";

/** Which cells a Read of a notebook shows: `start` is the 1-based first cell, `limit` how many. */
export type NotebookWindow = { start: number; limit: number; maxCharacters: number };

/** What a Read of a notebook returns: the text the model reads, and the image outputs of the cells shown. */
export type NotebookRead = { text: string; images: NotebookImage[] };

/**
 * Read's view of the notebook `absolute`, open as `handle` (at `version`), or of the editor's text of it when the
 * workspace has an editor: its cells from `window.start` (offset and limit count cells, not lines), each with its id,
 * type, source and outputs, cut before `window.maxCharacters` with a note saying how to read on. The version shown is
 * remembered (with the text's digest when it came from the editor), so NotebookEdit, Edit and Write may change it.
 * Undefined when the file is not a notebook one can parse (invalid JSON…): Read then shows its lines as text.
 */
export async function readNotebook(
  workspace: Workspace,
  absolute: string,
  handle: FileHandle,
  version: FileVersion,
  window: NotebookWindow,
): Promise<NotebookRead | undefined> {
  const shown = workspace.display(absolute);
  const fromEditor = workspace.editor !== undefined;
  const text = fromEditor ? await workspace.readEditorText(absolute) : decodeText(await handle.readFile(), shown, "Read");
  let notebook: NotebookJson;
  try {
    ({ notebook } = parseNotebook(text, shown));
  } catch {
    return undefined;
  }
  const seen: FileVersion = fromEditor
    ? { mtimeMs: version.mtimeMs, size: version.size, digest: digestText(text) }
    : { mtimeMs: version.mtimeMs, size: version.size };
  const total = notebook.cells.length;
  const kernel = describeKernel(notebook);
  const header = `${shown} is a Jupyter notebook (nbformat ${notebook.nbformat}.${notebook.nbformat_minor ?? 0}${kernel}) with ${plural(total, "cell")}. Each cell's id is the cell_id NotebookEdit takes.`;
  if (total === 0) {
    await workspace.remember(absolute, seen);
    return { text: `${header} Insert one with NotebookEdit (edit_mode "insert").`, images: [] };
  }
  if (window.start > total)
    throw new ToolError(
      `${shown} has ${plural(total, "cell")}, so offset ${window.start} is past its end. In a notebook offset counts cells: give 1 to ${total}.`,
    );
  const rendering = renderNotebookCells(notebook, window);
  await workspace.remember(absolute, seen);
  const parts = [header, rendering.text];
  if (rendering.lastCell < total) {
    const why = rendering.complete ? "" : ` The output limit of ${formatNumber(window.maxCharacters)} characters was reached.`;
    parts.push(
      `[Shown cells ${window.start}–${rendering.lastCell} of ${total}.${why} To read more, call Read with offset=${rendering.lastCell + 1} (in a notebook offset and limit count cells).]`,
    );
  }
  return { text: parts.join("\n\n"), images: rendering.images };
}

function describeKernel(notebook: NotebookJson): string {
  const kernel = notebook.metadata?.kernelspec as { display_name?: unknown } | undefined;
  return typeof kernel?.display_name === "string" ? `, kernel ${kernel.display_name}` : "";
}
