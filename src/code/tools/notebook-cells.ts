// Jupyter notebooks (nbformat 4) as Read shows them and NotebookEdit changes them: parsing with clear refusals,
// cells rendered as text with their outputs (images set apart for the caller), and writing back in the file's layout.
import { ToolError } from "../../errors.js";
import { formatSize, plural, splitByteOrderMark } from "./file-text.js";

/** A cell of an nbformat 4 notebook, as its JSON has it; fields this code does not know are kept as they are. */
export type NotebookCell = {
  cell_type: string;
  /** nbformat ≥ 4.5 requires one; older notebooks have none. */
  id?: string | undefined;
  /** The source, one string or a list of lines (each but the last ending in a line break). */
  source: string | string[];
  metadata?: Record<string, unknown> | undefined;
  outputs?: NotebookOutput[] | undefined;
  execution_count?: number | null | undefined;
  [field: string]: unknown;
};

/** An output of a code cell (`stream`, `execute_result`, `display_data` or `error`). */
export type NotebookOutput = {
  output_type: string;
  name?: string | undefined;
  text?: string | string[] | undefined;
  data?: Record<string, unknown> | undefined;
  ename?: string | undefined;
  evalue?: string | undefined;
  traceback?: string[] | undefined;
  [field: string]: unknown;
};

/** An nbformat 4 notebook's JSON. */
export type NotebookJson = {
  cells: NotebookCell[];
  metadata?: Record<string, unknown> | undefined;
  nbformat: number;
  nbformat_minor: number;
  [field: string]: unknown;
};

/** How a notebook file is laid out, so that a changed notebook is written back the same way. */
export type NotebookLayout = {
  /** The indentation of the JSON: a number of spaces (1 is Jupyter's), a tab, or 0 for one line. */
  indent: number | string;
  byteOrderMark: boolean;
  lineEnding: "\n" | "\r\n";
  finalNewline: boolean;
};

/** An image a cell's output holds: the caller may show it as an image part. */
export type NotebookImage = {
  /** The label of the cell (its id, or `cell-N`). */
  cell: string;
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  mediaType: string;
  /** The image's bytes in base64, without line breaks. */
  base64: string;
};

/** The rendering of a notebook's cells: their text, and the images of the cells shown, in order. */
export type NotebookRendering = {
  text: string;
  images: NotebookImage[];
  /** The 1-based number of the last cell shown, and whether every cell from the start asked for was shown. */
  lastCell: number;
  complete: boolean;
};

/** Image types models take as image parts; any other image (SVG…) is only named. */
const imageTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
/** Most characters of one output's text shown; tracebacks and logs can be huge. */
const maxOutputCharacters = 10_000;
/** Cell ids listed when a cell_id names none. */
const listedIds = 30;

/** Whether `path` names a notebook by its extension. */
export function isNotebookPath(path: string): boolean {
  return path.toLowerCase().endsWith(".ipynb");
}

/**
 * The notebook `text` holds, with its layout; throws a ToolError saying what is wrong when it is not nbformat 4
 * JSON (`shown` names the file).
 */
export function parseNotebook(text: string, shown: string): { notebook: NotebookJson; layout: NotebookLayout } {
  const { bom, body } = splitByteOrderMark(text);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolError(
      `${shown} is not valid JSON (${reason}), so it cannot be read as a Jupyter notebook. Fix the file first (Read shows it as text if you rename it, or use Bash).`,
    );
  }
  const notebook = value as Partial<NotebookJson> | null;
  if (notebook === null || typeof notebook !== "object" || !Array.isArray(notebook.cells))
    throw new ToolError(`${shown} is JSON but not a Jupyter notebook: it has no "cells" list.`);
  if (notebook.nbformat !== 4)
    throw new ToolError(
      `${shown} is a notebook in nbformat ${String(notebook.nbformat)}; only nbformat 4 is supported (convert it with \`jupyter nbconvert --to notebook\`).`,
    );
  for (const [index, cell] of notebook.cells.entries())
    if (cell === null || typeof cell !== "object" || typeof cell.cell_type !== "string")
      throw new ToolError(`${shown} is not a well-formed notebook: cell ${index} has no cell_type.`);
  const indentation = /^\{\r?\n([ \t]+)"/.exec(body)?.[1];
  const layout: NotebookLayout = {
    indent: indentation === undefined ? 0 : indentation.includes("\t") ? indentation : indentation.length,
    byteOrderMark: bom,
    lineEnding: body.includes("\r\n") ? "\r\n" : "\n",
    finalNewline: /\n$/.test(body),
  };
  return { notebook: notebook as NotebookJson, layout };
}

/**
 * The notebook's JSON as `layout` says: the same indentation, line endings, byte-order mark and final newline, the
 * fields in the order they were read (numbers and escapes as JSON.stringify writes them).
 */
export function serializeNotebook(notebook: NotebookJson, layout: NotebookLayout): string {
  let text = JSON.stringify(notebook, null, layout.indent);
  if (layout.lineEnding === "\r\n") text = text.replace(/\n/g, "\r\n");
  if (layout.finalNewline) text += layout.lineEnding;
  return layout.byteOrderMark ? `\uFEFF${text}` : text;
}

/** Whether the notebook's cells carry ids (nbformat ≥ 4.5, or ids given anyway). */
export function hasCellIds(notebook: NotebookJson): boolean {
  return notebook.nbformat_minor >= 5 || notebook.cells.some((cell) => typeof cell.id === "string");
}

/** The name a cell goes by: its id, or `cell-N` (N its 0-based index) when it has none, as Claude Code names them. */
export function cellLabel(cell: NotebookCell, index: number): string {
  return typeof cell.id === "string" && cell.id !== "" ? cell.id : `cell-${index}`;
}

/**
 * The index of the cell `cellId` names: a cell's id, or else `cell-N` for the cell at 0-based index N. Throws a
 * ToolError listing the cells' labels when it names none.
 */
export function findCell(notebook: NotebookJson, cellId: string, shown: string): number {
  const byId = notebook.cells.findIndex((cell) => cell.id === cellId);
  if (byId !== -1) return byId;
  const numbered = /^cell-(\d+)$/.exec(cellId);
  if (numbered) {
    const index = Number(numbered[1]);
    if (index < notebook.cells.length) return index;
  }
  const labels = notebook.cells.map((cell, index) => cellLabel(cell, index));
  const listed =
    labels.length === 0
      ? "It has no cells."
      : `Its cells are ${labels
          .slice(0, listedIds)
          .map((label) => JSON.stringify(label))
          .join(", ")}${labels.length > listedIds ? `, and ${labels.length - listedIds} more` : ""}.`;
  return throwError(`${shown} has no cell ${JSON.stringify(cellId)}. ${listed} Read the notebook to see them.`);
}

function throwError(message: string): never {
  throw new ToolError(message);
}

/** A cell's source as one string. */
export function sourceText(source: unknown): string {
  return Array.isArray(source) ? source.join("") : typeof source === "string" ? source : "";
}

/** `text` as nbformat's list of lines: each but the last keeps its line break; an empty text is no lines. */
export function sourceLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * The cells `start` (1-based) onwards, at most `limit` of them, rendered as text that stops before `maxCharacters`
 * (a first cell longer than that is cut), with the image outputs of the cells shown listed apart. Each cell is a
 * `<cell id="…" type="…">` element with its source, followed by an `<output>` element per output: stream text,
 * the `text/plain` of a result or display (other media types named with their size), an error's name, value and
 * traceback without terminal colours, an image as a line such as `[image/png output, 12 KB]`.
 */
export function renderNotebookCells(
  notebook: NotebookJson,
  window: { start: number; limit: number; maxCharacters: number },
): NotebookRendering {
  const parts: string[] = [];
  const images: NotebookImage[] = [];
  let length = 0;
  let lastCell = window.start - 1;
  const end = Math.min(notebook.cells.length, window.start - 1 + window.limit);
  for (let index = window.start - 1; index < end; index++) {
    const cell = notebook.cells[index] as NotebookCell;
    const rendered = renderCell(cell, index);
    if (length + rendered.text.length > window.maxCharacters) {
      if (parts.length === 0) {
        parts.push(`${rendered.text.slice(0, window.maxCharacters)}\n[… the rest of this cell was cut]`);
        images.push(...rendered.images);
        lastCell = index + 1;
      }
      break;
    }
    parts.push(rendered.text);
    images.push(...rendered.images);
    length += rendered.text.length + 1;
    lastCell = index + 1;
  }
  return { text: parts.join("\n"), images, lastCell, complete: lastCell === end };
}

function renderCell(cell: NotebookCell, index: number): { text: string; images: NotebookImage[] } {
  const label = cellLabel(cell, index);
  const count = cell.cell_type === "code" && typeof cell.execution_count === "number" ? ` execution_count="${cell.execution_count}"` : "";
  const lines = [`<cell id=${JSON.stringify(label)} type="${cell.cell_type}"${count}>`, sourceText(cell.source), "</cell>"];
  const images: NotebookImage[] = [];
  for (const output of Array.isArray(cell.outputs) ? cell.outputs : []) {
    const rendered = renderOutput(output, label);
    images.push(...rendered.images);
    const name = typeof output.name === "string" ? ` name="${output.name}"` : "";
    lines.push(`<output type="${String(output.output_type)}"${name}>`, rendered.text, "</output>");
  }
  return { text: lines.join("\n"), images };
}

function renderOutput(output: NotebookOutput, cell: string): { text: string; images: NotebookImage[] } {
  if (output.output_type === "stream") return { text: capOutput(sourceText(output.text)), images: [] };
  if (output.output_type === "error") {
    const traceback = Array.isArray(output.traceback) ? output.traceback.join("\n") : "";
    const text = [`${output.ename ?? "Error"}: ${output.evalue ?? ""}`, stripAnsi(traceback)].filter(Boolean).join("\n");
    return { text: capOutput(text), images: [] };
  }
  const data = output.data && typeof output.data === "object" ? output.data : {};
  const lines: string[] = [];
  const images: NotebookImage[] = [];
  for (const [mediaType, value] of Object.entries(data)) {
    if (mediaType === "text/plain") continue;
    const content = sourceText(value);
    if (imageTypes.has(mediaType)) {
      const base64 = content.replace(/\s+/g, "");
      images.push({ cell, mediaType, base64 });
      lines.push(`[${mediaType} output, ${formatSize(decodedLength(base64))}]`);
    } else
      lines.push(
        `[${mediaType} output, ${formatSize(Buffer.byteLength(typeof value === "string" || Array.isArray(value) ? content : JSON.stringify(value)))}]`,
      );
  }
  if ("text/plain" in data) lines.push(capOutput(sourceText(data["text/plain"])));
  return { text: lines.join("\n"), images };
}

/** The number of bytes `base64` decodes to. */
function decodedLength(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

function capOutput(text: string): string {
  if (text.length <= maxOutputCharacters) return text.replace(/\n$/, "");
  return `${text.slice(0, maxOutputCharacters)}\n[… ${plural(text.length - maxOutputCharacters, "more character")} of this output]`;
}

/** Terminal colour and cursor sequences (IPython colours its tracebacks). */
function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is matched
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
}
