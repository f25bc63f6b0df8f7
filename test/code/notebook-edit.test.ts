import { readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodingAgent } from "../../src/code/index.js";
import { renderNotebookCells } from "../../src/code/tools/notebook-cells.js";
import { createNotebookEditTool } from "../../src/code/tools/notebook-edit.js";
import { createReadTool } from "../../src/code/tools/read.js";
import { type EditorFiles, Workspace } from "../../src/code/workspace.js";
import { FakeModel } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { checkpointAgent, checkpointWorkspace, readText } from "./checkpoints/checkpoint-fixtures.js";
import { callTool } from "./helpers/call-tool.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "./helpers/temporary-workspace.js";

let base: string;
let root: string;
let workspace: Workspace;

beforeEach(async () => {
  ({ base, root, workspace } = await createTemporaryWorkspace("notebook"));
});

afterEach(() => removeTemporaryWorkspace(base));

const read = (file_path: string, extra: Record<string, unknown> = {}) => callTool(createReadTool(workspace), { file_path, ...extra });
const notebookEdit = (args: Record<string, unknown>) => callTool(createNotebookEditTool(workspace), { notebook_path: "nb.ipynb", ...args });
const jsonOf = async (path = "nb.ipynb") => JSON.parse(await readFile(join(root, path), "utf8"));

/** A tiny PNG's bytes (a signature and a little more: enough for a size). */
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(3000, 7)]).toString("base64");

/** An nbformat 4.5 notebook with ids, outputs of every kind, and metadata the edits must keep. */
function notebook45() {
  return {
    cells: [
      { cell_type: "markdown", id: "intro", metadata: {}, source: ["# Title\n", "Some text."] },
      {
        cell_type: "code",
        execution_count: 3,
        id: "load",
        metadata: { tags: ["setup"] },
        outputs: [
          { name: "stdout", output_type: "stream", text: ["loaded 3 rows\n"] },
          { data: { "text/plain": ["   a  b\n", "0  1  2"] }, execution_count: 3, metadata: {}, output_type: "execute_result" },
        ],
        source: ["import pandas as pd\n", "df = pd.read_csv('x.csv')"],
      },
      {
        cell_type: "code",
        execution_count: 4,
        id: "plot",
        metadata: {},
        outputs: [
          {
            data: { "image/png": `${png.slice(0, 76)}\n${png.slice(76)}`, "text/plain": ["<Figure size 640x480 with 1 Axes>"] },
            metadata: {},
            output_type: "display_data",
          },
          {
            ename: "ValueError",
            evalue: "bad value",
            output_type: "error",
            traceback: ["\u001b[0;31m---------\u001b[0m", "\u001b[0;31mValueError\u001b[0m: bad value"],
          },
        ],
        source: "df.plot()",
      },
    ],
    metadata: { kernelspec: { display_name: "Python 3", language: "python", name: "python3" }, language_info: { name: "python" } },
    nbformat: 4,
    nbformat_minor: 5,
  };
}

/** An nbformat 4.4 notebook: no cell ids. */
function notebook44() {
  const notebook = notebook45();
  for (const cell of notebook.cells) delete (cell as { id?: string }).id;
  return { ...notebook, nbformat_minor: 4 };
}

/** Writes the notebook as Jupyter does (one-space indent, final newline) and, unless told, reads it. */
async function given(notebook: unknown, options: { indent?: number | string; readIt?: boolean; path?: string } = {}): Promise<string> {
  const text = `${JSON.stringify(notebook, null, options.indent ?? 1)}\n`;
  await writeFile(join(root, options.path ?? "nb.ipynb"), text);
  if (options.readIt !== false) {
    const result = await read(options.path ?? "nb.ipynb");
    if (result.isError) throw new Error(result.content);
  }
  return text;
}

describe("Read of a notebook", () => {
  it("shows each cell with its id, type and source, and its outputs as text (colours stripped, images as a line)", async () => {
    await given(notebook45(), { readIt: false });
    const result = await read("nb.ipynb");
    expect(result.isError).toBe(false);
    expect(result.content).toBe(
      [
        "nb.ipynb is a Jupyter notebook (nbformat 4.5, kernel Python 3) with 3 cells. Each cell's id is the cell_id NotebookEdit takes.",
        "",
        '<cell id="intro" type="markdown">',
        "# Title",
        "Some text.",
        "</cell>",
        '<cell id="load" type="code" execution_count="3">',
        "import pandas as pd",
        "df = pd.read_csv('x.csv')",
        "</cell>",
        '<output type="stream" name="stdout">',
        "loaded 3 rows",
        "</output>",
        '<output type="execute_result">',
        "   a  b",
        "0  1  2",
        "</output>",
        '<cell id="plot" type="code" execution_count="4">',
        "df.plot()",
        "</cell>",
        '<output type="display_data">',
        "[image/png output, 3,008 bytes]",
        "<Figure size 640x480 with 1 Axes>",
        "</output>",
        '<output type="error">',
        "ValueError: bad value",
        "---------",
        "ValueError: bad value",
        "</output>",
      ].join("\n"),
    );
  });

  it("returns the image outputs apart, base64 without line breaks, for the caller to show as images", () => {
    const rendering = renderNotebookCells(notebook45() as never, { start: 1, limit: 10, maxCharacters: 100_000 });
    expect(rendering.images).toEqual([{ cell: "plot", mediaType: "image/png", base64: png }]);
    expect(Buffer.from(rendering.images[0]?.base64 ?? "", "base64").length).toBe(3008);
  });

  it("labels cells without ids cell-N, and offset and limit count cells", async () => {
    await given(notebook44(), { readIt: false });
    const result = await read("nb.ipynb", { offset: 2, limit: 1 });
    expect(result.content).toMatch(/^nb\.ipynb is a Jupyter notebook \(nbformat 4\.4, kernel Python 3\) with 3 cells\./);
    expect(result.content).toContain('<cell id="cell-1" type="code" execution_count="3">');
    expect(result.content).not.toContain("cell-0");
    expect(result.content).not.toContain("cell-2");
    expect(result.content).toContain(
      "[Shown cells 2–2 of 3. To read more, call Read with offset=3 (in a notebook offset and limit count cells).]",
    );
    expect((await read("nb.ipynb", { offset: 9 })).content).toMatch(/has 3 cells, so offset 9 is past its end/);
  });

  it("stops before the character cap and says where to go on", async () => {
    const big = notebook45();
    big.cells[0] = { cell_type: "markdown", id: "intro", metadata: {}, source: ["x".repeat(600)] };
    await writeFile(join(root, "nb.ipynb"), JSON.stringify(big));
    const result = await callTool(createReadTool(workspace, { maxCharacters: 700 }), { file_path: "nb.ipynb" });
    expect(result.content).toContain('<cell id="intro"');
    expect(result.content).not.toContain('<cell id="load"');
    expect(result.content).toContain("The output limit of 700 characters was reached. To read more, call Read with offset=2");
  });

  it("shows a notebook that is not valid JSON as text lines", async () => {
    await writeFile(join(root, "nb.ipynb"), '{\n "cells": [\n');
    const result = await read("nb.ipynb");
    expect(result.content).toBe('     1\t{\n     2\t "cells": [');
  });
});

describe("NotebookEdit", () => {
  it("replaces a code cell's source, clears its outputs and execution count, and keeps the rest byte for byte", async () => {
    await given(notebook45());
    const result = await notebookEdit({ cell_id: "load", new_source: "import polars as pl\ndf = pl.read_csv('x.csv')\n" });
    expect(result).toEqual({
      content: 'Replaced the source of cell "load" (code, 2 lines) in nb.ipynb; its outputs and execution count were cleared.',
      isError: false,
    });
    const expected = notebook45();
    Object.assign(expected.cells[1] as object, {
      execution_count: null,
      outputs: [],
      source: ["import polars as pl\n", "df = pl.read_csv('x.csv')\n"],
    });
    // Jupyter's layout (one-space indent, a final newline), the fields in their order, the other cells untouched.
    expect(await readFile(join(root, "nb.ipynb"), "utf8")).toBe(`${JSON.stringify(expected, null, 1)}\n`);
  });

  it("keeps another indentation (two spaces, tabs) and a one-line file's layout", async () => {
    await given(notebook45(), { indent: 2 });
    await notebookEdit({ cell_id: "intro", new_source: "# New title" });
    const expected = notebook45();
    (expected.cells[0] as { source: string[] }).source = ["# New title"];
    expect(await readFile(join(root, "nb.ipynb"), "utf8")).toBe(`${JSON.stringify(expected, null, 2)}\n`);
    await given(notebook45(), { indent: "\t" });
    await notebookEdit({ cell_id: "intro", new_source: "# New title" });
    expect(await readFile(join(root, "nb.ipynb"), "utf8")).toBe(`${JSON.stringify(expected, null, "\t")}\n`);
    await writeFile(join(root, "nb.ipynb"), JSON.stringify(notebook45()));
    await read("nb.ipynb");
    await notebookEdit({ cell_id: "intro", new_source: "# New title" });
    expect(await readFile(join(root, "nb.ipynb"), "utf8")).toBe(JSON.stringify(expected));
  });

  it("changes a cell's type: markdown to code gains empty outputs, code to markdown loses them", async () => {
    await given(notebook45());
    expect((await notebookEdit({ cell_id: "intro", new_source: "print(1)", cell_type: "code" })).content).toBe(
      'Replaced the source of cell "intro" (code, 1 line) in nb.ipynb; its type changed from markdown to code.',
    );
    expect((await jsonOf()).cells[0]).toEqual({
      cell_type: "code",
      id: "intro",
      metadata: {},
      source: ["print(1)"],
      execution_count: null,
      outputs: [],
    });
    expect((await notebookEdit({ cell_id: "plot", new_source: "Just prose.", cell_type: "markdown" })).content).toBe(
      'Replaced the source of cell "plot" (markdown, 1 line) in nb.ipynb; its type changed from code to markdown.',
    );
    // The source was one string: it stays one.
    expect((await jsonOf()).cells[2]).toEqual({ cell_type: "markdown", id: "plot", metadata: {}, source: "Just prose." });
  });

  it("inserts after a cell, or at the start, with a fresh id; cell_type is required", async () => {
    await given(notebook45());
    const after = await notebookEdit({ edit_mode: "insert", cell_id: "load", cell_type: "code", new_source: "df.head()" });
    const cells = (await jsonOf()).cells;
    const inserted = cells[2];
    expect(inserted).toEqual({
      cell_type: "code",
      execution_count: null,
      id: expect.stringMatching(/^[0-9a-f]{8}$/),
      metadata: {},
      outputs: [],
      source: ["df.head()"],
    });
    expect(after.content).toBe(`Inserted a code cell "${inserted.id}" after cell "load" in nb.ipynb (cell 3 of 4).`);
    const first = await notebookEdit({ edit_mode: "insert", cell_type: "markdown", new_source: "# Notes\n\nFirst." });
    expect(first.content).toMatch(/^Inserted a markdown cell "[0-9a-f]{8}" at the start in nb\.ipynb \(cell 1 of 5\)\.$/);
    expect((await jsonOf()).cells[0]).toMatchObject({ cell_type: "markdown", source: ["# Notes\n", "\n", "First."] });
    expect((await jsonOf()).cells[0]).not.toHaveProperty("outputs");
    const untyped = await notebookEdit({ edit_mode: "insert", cell_id: "load", new_source: "x" });
    expect(untyped).toEqual({ content: 'cell_type ("code" or "markdown") is needed to insert a cell.', isError: true });
  });

  it("deletes a cell", async () => {
    await given(notebook45());
    expect((await notebookEdit({ edit_mode: "delete", cell_id: "load", new_source: "" })).content).toBe(
      'Deleted cell "load" (code, 2 lines) from nb.ipynb; 2 cells remain.',
    );
    expect((await jsonOf()).cells.map((cell: { id: string }) => cell.id)).toEqual(["intro", "plot"]);
  });

  it("works on an nbformat 4.4 notebook by cell-N, adding no ids", async () => {
    await given(notebook44());
    await notebookEdit({ cell_id: "cell-2", new_source: "df.plot(kind='bar')" });
    expect((await jsonOf()).cells[2]).toMatchObject({ source: "df.plot(kind='bar')", outputs: [], execution_count: null });
    const inserted = await notebookEdit({ edit_mode: "insert", cell_id: "cell-0", cell_type: "code", new_source: "1 + 1" });
    expect(inserted.content).toBe(
      'Inserted a code cell "cell-1" after cell "cell-0" in nb.ipynb (cell 2 of 4). The cells after it are now numbered one higher (cell-N).',
    );
    const cells = (await jsonOf()).cells;
    expect(cells[1]).toEqual({ cell_type: "code", execution_count: null, metadata: {}, outputs: [], source: ["1 + 1"] });
    expect(cells.some((cell: object) => "id" in cell)).toBe(false);
    expect((await notebookEdit({ edit_mode: "delete", cell_id: "cell-1", new_source: "" })).content).toBe(
      'Deleted cell "cell-1" (code, 1 line) from nb.ipynb; 3 cells remain. The cells after it are now numbered one lower (cell-N).',
    );
  });

  it("refuses an unknown cell id, listing the cells' ids, and replace or delete without one", async () => {
    await given(notebook45());
    expect(await notebookEdit({ cell_id: "nope", new_source: "x" })).toEqual({
      content: 'nb.ipynb has no cell "nope". Its cells are "intro", "load", "plot". Read the notebook to see them.',
      isError: true,
    });
    expect((await notebookEdit({ new_source: "x" })).content).toMatch(/^cell_id is needed to replace a cell/);
    expect((await notebookEdit({ edit_mode: "delete", new_source: "" })).content).toMatch(/^cell_id is needed to delete a cell/);
    expect((await notebookEdit({ cell_id: "load", new_source: "x", edit_mode: "rewrite" })).isError).toBe(true);
  });

  it("refuses a notebook not read in this session, or changed since it was read", async () => {
    await given(notebook45(), { readIt: false });
    expect(await notebookEdit({ cell_id: "load", new_source: "x" })).toEqual({
      content: "Read nb.ipynb before changing it: it exists and has not been read in this session.",
      isError: true,
    });
    await read("nb.ipynb");
    const later = new Date(Date.now() + 5000);
    await utimes(join(root, "nb.ipynb"), later, later);
    expect((await notebookEdit({ cell_id: "load", new_source: "x" })).content).toBe(
      "nb.ipynb has changed on disk since it was read; read it again before changing it.",
    );
    await read("nb.ipynb");
    expect((await notebookEdit({ cell_id: "load", new_source: "x" })).isError).toBe(false);
    // Its own write is remembered: a second edit needs no new Read.
    expect((await notebookEdit({ cell_id: "plot", new_source: "y" })).isError).toBe(false);
  });

  it("refuses invalid JSON clearly, a file that is not a notebook, and a missing notebook", async () => {
    await writeFile(join(root, "nb.ipynb"), '{\n "cells": [\n');
    await read("nb.ipynb");
    const invalid = await notebookEdit({ cell_id: "x", new_source: "y" });
    expect(invalid.isError).toBe(true);
    expect(invalid.content).toMatch(/^nb\.ipynb is not valid JSON \(.+\), so it cannot be read as a Jupyter notebook\./);
    await writeFile(join(root, "notes.txt"), "hello");
    await read("notes.txt");
    expect((await notebookEdit({ notebook_path: "notes.txt", cell_id: "x", new_source: "y" })).content).toMatch(
      /^notes\.txt is not a Jupyter notebook \(\.ipynb\)/,
    );
    expect((await notebookEdit({ notebook_path: "other.ipynb", cell_id: "x", new_source: "y" })).content).toMatch(
      /NotebookEdit changes existing notebooks; create one with Write/,
    );
  });

  it("reads and writes through an editor's buffer, checked by its digest", async () => {
    const buffers = new Map<string, string>();
    const editor: EditorFiles = {
      readText: async (absolute) => buffers.get(absolute) ?? (await readFile(absolute, "utf8")),
      writeText: async (absolute, content) => {
        buffers.set(absolute, content);
      },
    };
    workspace = new Workspace({ root, editor });
    const onDisk = await given(notebook45(), { readIt: false });
    const path = join(root, "nb.ipynb");
    const unsaved = notebook45();
    (unsaved.cells[0] as { source: string[] }).source = ["# Unsaved title"];
    buffers.set(path, `${JSON.stringify(unsaved, null, 1)}\n`);
    expect((await read("nb.ipynb")).content).toContain("# Unsaved title");
    await notebookEdit({ cell_id: "plot", new_source: "df.describe()" });
    expect(JSON.parse(buffers.get(path) ?? "").cells.map((cell: { source: unknown }) => cell.source)).toEqual([
      ["# Unsaved title"],
      ["import pandas as pd\n", "df = pd.read_csv('x.csv')"],
      "df.describe()",
    ]);
    expect(await readFile(path, "utf8")).toBe(onDisk);
    buffers.set(path, `${JSON.stringify(notebook45(), null, 1)}\n`);
    expect((await notebookEdit({ cell_id: "plot", new_source: "again" })).content).toMatch(
      /has changed in the editor or on disk since it was read/,
    );
  });
});

describe("NotebookEdit in CodingAgent", () => {
  const script = () =>
    new FakeModel([
      reply("", toolCall("Read", { file_path: "nb.ipynb" }, "r")),
      reply("", toolCall("NotebookEdit", { notebook_path: "nb.ipynb", cell_id: "load", new_source: "pass" }, "e")),
      "Done.",
    ]);

  it("is offered to the model, asks in default mode, and runs without asking in acceptEdits mode", async () => {
    await given(notebook45(), { readIt: false });
    const asking = script();
    const agent = await CodingAgent.create(asking, { workspace: root, settingsFiles: [], sandbox: false });
    const interrupted = await agent.run("Simplify the load cell.");
    expect(asking.requests[0]?.tools.map((tool) => tool.name)).toContain("NotebookEdit");
    expect(interrupted.status).toBe("interrupted");
    expect(interrupted.pending.map((call) => call.toolCall.name)).toEqual(["NotebookEdit"]);
    expect((await jsonOf()).cells[1].source).toEqual(["import pandas as pd\n", "df = pd.read_csv('x.csv')"]);

    const accepting = await CodingAgent.create(script(), { workspace: root, settingsFiles: [], sandbox: false, mode: "acceptEdits" });
    const result = await accepting.run("Simplify the load cell.");
    expect(result.status).toBe("completed");
    expect((await jsonOf()).cells[1]).toMatchObject({ source: ["pass"], outputs: [], execution_count: null });
  });

  it("is an edit for Edit(…) rules: a deny rule on the folder refuses it", async () => {
    await given(notebook45(), { readIt: false });
    const agent = await CodingAgent.create(script(), {
      workspace: root,
      settingsFiles: [],
      sandbox: false,
      mode: "acceptEdits",
      rules: { deny: ["Edit(*.ipynb)"] },
    });
    const result = await agent.run("Simplify the load cell.");
    const edit = result.messages.find((message) => message.role === "tool" && message.toolCallId === "e");
    expect(edit?.content).toMatch(/Permission denied: NotebookEdit of `nb\.ipynb` is forbidden by the deny rule `Edit\(\*\.ipynb\)`/);
  });
});

describe("NotebookEdit and checkpoints", () => {
  it("records the notebook it changes, and a rewind restores it", async () => {
    const original = `${JSON.stringify(notebook45(), null, 1)}\n`;
    const where = checkpointWorkspace({ "nb.ipynb": original });
    const model = new FakeModel([
      reply("", toolCall("Read", { file_path: "nb.ipynb" }, "r")),
      reply("", toolCall("NotebookEdit", { notebook_path: "nb.ipynb", edit_mode: "delete", cell_id: "plot", new_source: "" }, "e")),
      "Done.",
    ]);
    const agent = await checkpointAgent(model, where);
    try {
      await agent.run("Drop the plot.");
      expect(agent.checkpoints?.checkpoints[0]?.changes?.map((change) => change.path)).toEqual([join(where.root, "nb.ipynb")]);
      expect(readText(where.root, "nb.ipynb")).not.toBe(original);
      await agent.rewind(1);
    } finally {
      await agent.close();
    }
    expect(readText(where.root, "nb.ipynb")).toBe(original);
  });
});
