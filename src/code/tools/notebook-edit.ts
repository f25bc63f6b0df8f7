import { randomBytes } from "node:crypto";
import { stat } from "node:fs/promises";
import type { Tool } from "../../engine.js";
import { ToolError } from "../../errors.js";
import { fileError, type Workspace } from "../workspace.js";
import { decodeText, plural } from "./file-text.js";
import { describeMissingFile } from "./missing-file.js";
import {
  cellLabel,
  findCell,
  hasCellIds,
  isNotebookPath,
  type NotebookCell,
  type NotebookJson,
  parseNotebook,
  serializeNotebook,
  sourceLines,
  sourceText,
} from "./notebook-cells.js";

/** The arguments of a NotebookEdit call (Claude Code's). */
export type NotebookEditArguments = {
  notebook_path: string;
  new_source: string;
  cell_id?: string | undefined;
  cell_type?: "code" | "markdown" | undefined;
  edit_mode?: "replace" | "insert" | "delete" | undefined;
};

/**
 * Claude Code's `NotebookEdit { notebook_path, new_source, cell_id?, cell_type?, edit_mode? }` on a Jupyter notebook
 * (nbformat 4): `replace` (the default) gives the cell `cell_id` names the source `new_source` (and `cell_type`, when
 * given); `insert` adds a cell of `cell_type` after `cell_id`, or first without one; `delete` removes the cell.
 * `cell_id` is a cell's id or, for a notebook without ids, `cell-N` (N the 0-based index), as Read labels them. A
 * code cell replaced loses its outputs and execution count (they belong to the old source); a new cell gets a fresh
 * id when the notebook has ids (nbformat ≥ 4.5). Everything else in the file is kept: its indentation (Jupyter's is one
 * space), line endings, the order of fields, other cells' outputs and metadata.
 *
 * As for Edit, the notebook must have been read in this session and not changed since (in the editor, with one);
 * the write is atomic, or goes through the editor. An unknown cell id is refused with the cells' ids listed, invalid
 * JSON with the parser's reason. Editing a notebook with more than one hard link needs approval.
 * @example registry.add(createNotebookEditTool(workspace))
 */
export function createNotebookEditTool(workspace: Workspace): Tool {
  return {
    name: "NotebookEdit",
    description: [
      "Change one cell of a Jupyter notebook (.ipynb): replace its source (edit_mode replace, the default), insert a new cell",
      "after cell_id (edit_mode insert, at the start without cell_id; cell_type is required), or delete it (edit_mode delete).",
      "cell_id is a cell's id as Read shows it (cell-N for notebooks without ids). Read the notebook first.",
      "Replacing a code cell clears its outputs. Use this rather than Edit or Write for notebooks.",
    ].join(" "),
    compileOnFirstCall: true,
    parameters: {
      type: "object",
      properties: {
        notebook_path: { type: "string", description: "Path of the .ipynb file: absolute, or relative to the workspace root." },
        cell_id: {
          type: "string",
          description: "The cell to replace or delete, or to insert after (omit to insert at the start).",
        },
        new_source: { type: "string", description: "The cell's new source (ignored by delete)." },
        cell_type: {
          type: "string",
          enum: ["code", "markdown"],
          description: "The cell's type: required to insert; when replacing, defaults to the cell's current type.",
        },
        edit_mode: { type: "string", enum: ["replace", "insert", "delete"], description: "What to do (default replace)." },
      },
      required: ["notebook_path", "new_source"],
    },
    needsApproval: (args) => workspace.isLocationUncertain((args as NotebookEditArguments).notebook_path),
    execute: async (args) => {
      const edit = args as NotebookEditArguments;
      const absolute = await workspace.resolve(edit.notebook_path);
      return workspace.exclusive(absolute, () => editNotebook(workspace, absolute, edit));
    },
  };
}

async function editNotebook(workspace: Workspace, absolute: string, edit: NotebookEditArguments): Promise<string> {
  const shown = workspace.display(absolute);
  if (!isNotebookPath(absolute))
    throw new ToolError(`${shown} is not a Jupyter notebook (.ipynb); NotebookEdit changes notebooks only. Use Edit for other files.`);
  const exists = await stat(absolute).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return false;
      throw fileError(error, `read ${shown}`);
    },
  );
  if (!exists)
    throw new ToolError(
      `${await describeMissingFile(workspace, absolute)} NotebookEdit changes existing notebooks; create one with Write (nbformat 4 JSON).`,
    );
  await workspace.checkWritable(absolute);
  const text = workspace.editor ? await workspace.readEditorText(absolute) : await readText(workspace, absolute);
  const { notebook, layout } = parseNotebook(text, shown);
  const observation = applyEdit(notebook, edit, shown);
  await workspace.writeAtomic(absolute, serializeNotebook(notebook, layout));
  return observation;
}

async function readText(workspace: Workspace, absolute: string): Promise<string> {
  const shown = workspace.display(absolute);
  try {
    const handle = await workspace.openFile(absolute);
    try {
      return decodeText(await handle.readFile(), shown, "NotebookEdit");
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw fileError(error, `read ${shown}`);
  }
}

/** Makes the edit in `notebook` (in place) and says what changed; a ToolError when it cannot be made. */
export function applyEdit(notebook: NotebookJson, edit: NotebookEditArguments, shown: string): string {
  const mode = edit.edit_mode ?? "replace";
  if (mode !== "replace" && mode !== "insert" && mode !== "delete")
    throw new ToolError(`edit_mode must be "replace", "insert" or "delete", not ${JSON.stringify(mode)}.`);
  if (edit.cell_type !== undefined && edit.cell_type !== "code" && edit.cell_type !== "markdown")
    throw new ToolError(`cell_type must be "code" or "markdown", not ${JSON.stringify(edit.cell_type)}.`);
  const cellId = edit.cell_id === "" ? undefined : edit.cell_id;
  if (mode === "insert") return insertCell(notebook, edit, cellId, shown);
  if (cellId === undefined)
    throw new ToolError(`cell_id is needed to ${mode} a cell: give the id Read shows for it (or cell-N for the cell at index N).`);
  const index = findCell(notebook, cellId, shown);
  const cell = notebook.cells[index] as NotebookCell;
  const label = cellLabel(cell, index);
  if (mode === "delete") {
    notebook.cells.splice(index, 1);
    const lines = plural(sourceLines(sourceText(cell.source)).length, "line");
    const shift = hasCellIds(notebook) ? "" : " The cells after it are now numbered one lower (cell-N).";
    return `Deleted cell ${JSON.stringify(label)} (${cell.cell_type}, ${lines}) from ${shown}; ${plural(notebook.cells.length, "cell")} remain.${shift}`;
  }
  const type = edit.cell_type ?? cell.cell_type;
  const before = cell.cell_type;
  setSource(cell, edit.new_source);
  const notes: string[] = [];
  if (type !== before) {
    retype(cell, type);
    notes.push(`its type changed from ${before} to ${type}`);
  }
  if (type === "code") {
    const hadOutputs = Array.isArray(cell.outputs) && cell.outputs.length > 0;
    cell.outputs = [];
    cell.execution_count = null;
    if (hadOutputs || before === "code") notes.push("its outputs and execution count were cleared");
  }
  const said = notes.length > 0 ? `; ${notes.join(", and ")}` : "";
  return `Replaced the source of cell ${JSON.stringify(label)} (${type}, ${plural(sourceLines(edit.new_source).length, "line")}) in ${shown}${said}.`;
}

function insertCell(notebook: NotebookJson, edit: NotebookEditArguments, cellId: string | undefined, shown: string): string {
  if (edit.cell_type === undefined) throw new ToolError(`cell_type ("code" or "markdown") is needed to insert a cell.`);
  const at = cellId === undefined ? 0 : findCell(notebook, cellId, shown) + 1;
  const cell = newCell(edit.cell_type, edit.new_source, hasCellIds(notebook) ? freshId(notebook) : undefined);
  notebook.cells.splice(at, 0, cell);
  const where = cellId === undefined ? "at the start" : `after cell ${JSON.stringify(cellId)}`;
  const label = cellLabel(cell, at);
  const shift = cell.id === undefined && at < notebook.cells.length - 1 ? " The cells after it are now numbered one higher (cell-N)." : "";
  return `Inserted a ${edit.cell_type} cell ${JSON.stringify(label)} ${where} in ${shown} (cell ${at + 1} of ${notebook.cells.length}).${shift}`;
}

/** A new cell with nbformat's fields in the order Jupyter writes them (sorted). */
function newCell(type: "code" | "markdown", source: string, id: string | undefined): NotebookCell {
  const identity = id === undefined ? {} : { id };
  if (type === "code")
    return { cell_type: "code", execution_count: null, ...identity, metadata: {}, outputs: [], source: sourceLines(source) };
  return { cell_type: "markdown", ...identity, metadata: {}, source: sourceLines(source) };
}

/** Gives the cell `type`'s fields: a code cell has outputs and an execution count, a markdown cell neither. */
function retype(cell: NotebookCell, type: string): void {
  cell.cell_type = type;
  if (type === "code") {
    cell.execution_count = null;
    cell.outputs = [];
  } else {
    delete cell.execution_count;
    delete cell.outputs;
  }
}

/** The cell's source set to `text`, in the form it had (a list of lines, as Jupyter writes, or one string). */
function setSource(cell: NotebookCell, text: string): void {
  cell.source = typeof cell.source === "string" ? text : sourceLines(text);
}

/** An id no cell has: 8 hexadecimal characters, as Jupyter makes them. */
function freshId(notebook: NotebookJson): string {
  const taken = new Set(notebook.cells.map((cell) => cell.id));
  for (;;) {
    const id = randomBytes(4).toString("hex");
    if (!taken.has(id)) return id;
  }
}
