import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";
import sharp from "sharp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodingAgent } from "../../../src/code/index.js";
import { createReadTool } from "../../../src/code/tools/read.js";
import type { Workspace } from "../../../src/code/workspace.js";
import { FakeModel, type Message } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { callTool } from "../helpers/call-tool.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

// Read of images and PDFs on real files the tests make: a PNG and a JPEG with sharp, PDFs with pdf-lib.

let base: string;
let root: string;
let workspace: Workspace;

beforeEach(async () => {
  ({ base, root, workspace } = await createTemporaryWorkspace("read-media"));
});
afterEach(() => removeTemporaryWorkspace(base));

const read = (args: Record<string, unknown>) => callTool(createReadTool(workspace), args);

async function writeImage(name: string, width: number, height: number, format: "png" | "jpeg"): Promise<Buffer> {
  const image = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } });
  const bytes = await (format === "png" ? image.png() : image.jpeg()).toBuffer();
  await writeFile(join(root, name), bytes);
  return bytes;
}

async function writePdf(name: string, pages: number): Promise<void> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let page = 1; page <= pages; page++) document.addPage().drawText(`Page ${page}`, { x: 50, y: 700, font, size: 24 });
  await writeFile(join(root, name), await document.save());
}

/** The base64 of a part ("" when there is none). */
function partData(part: { data?: string | undefined } | undefined): string {
  return part?.data ?? "";
}

async function pagesOf(base64: string | undefined): Promise<number> {
  return (await PDFDocument.load(Buffer.from(base64 ?? "", "base64"))).getPageCount();
}

describe("Read of images", () => {
  it("returns a small image as it is, as an image part, with a line saying what it is", async () => {
    const bytes = await writeImage("logo.png", 40, 20, "png");
    const result = await read({ file_path: "logo.png" });
    expect(result.isError).toBe(false);
    expect(result.content).toBe(`logo.png: PNG image, 40×20, ${bytes.length} bytes.`);
    expect(result.parts).toEqual([{ type: "image", mediaType: "image/png", data: bytes.toString("base64") }]);
  });

  it("downscales an image wider than the cap, keeping its proportions", async () => {
    await writeImage("wide.jpg", 4000, 1000, "jpeg");
    const result = await read({ file_path: "wide.jpg" });
    expect(result.content).toMatch(/^wide\.jpg: JPEG image, 4000×1000, .*; downscaled to 2000×500, /);
    const [part] = result.parts ?? [];
    expect(part).toMatchObject({ type: "image", mediaType: "image/jpeg" });
    const sent = await sharp(Buffer.from((part as { data: string }).data, "base64")).metadata();
    expect([sent.width, sent.height]).toEqual([2000, 500]);
  });

  it("describes a file that only starts like an image instead of sending it", async () => {
    await writeFile(join(root, "broken.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const result = await read({ file_path: "broken.png" });
    expect(result.parts).toBeUndefined();
    expect(result.content).toMatch(/broken\.png is a binary file \(PNG image\)/);
  });
});

describe("Read of PDFs", () => {
  it("sends a short PDF whole, as a document part", async () => {
    await writePdf("short.pdf", 3);
    const result = await read({ file_path: "short.pdf" });
    expect(result.content).toMatch(/^short\.pdf: PDF, 3 pages, /);
    expect(result.parts?.[0]).toMatchObject({ type: "document", mediaType: "application/pdf", name: "short.pdf" });
    expect(await pagesOf(partData(result.parts?.[0]))).toBe(3);
  });

  it("asks for pages when a PDF is long, and sends only the pages asked for", async () => {
    await writePdf("long.pdf", 12);
    const whole = await read({ file_path: "long.pdf" });
    expect(whole.isError).toBe(true);
    expect(whole.content).toMatch(/12 pages, more than the 10 Read sends without `pages`\. Read it in parts: pages "1-12"/);
    const some = await read({ file_path: "long.pdf", pages: "2-3,7" });
    expect(some.content).toMatch(/^long\.pdf: PDF, 12 pages; sent: pages 2–3, page 7 /);
    expect(await pagesOf(partData(some.parts?.[0]))).toBe(3);
  });

  it("refuses pages that are not a range, or past the end", async () => {
    await writePdf("three.pdf", 3);
    expect((await read({ file_path: "three.pdf", pages: "two" })).content).toMatch(/is not a page range/);
    expect((await read({ file_path: "three.pdf", pages: "2-5" })).content).toMatch(/has 3 pages, so pages "2-5" goes past its end/);
  });
});

describe("Read of a notebook's image outputs", () => {
  it("sends an output whose bytes are an image, and leaves one that only says so as its line", async () => {
    const png = (
      await sharp({ create: { width: 4, height: 4, channels: 3, background: "blue" } })
        .png()
        .toBuffer()
    ).toString("base64");
    const output = (data: string) => ({ output_type: "display_data", data: { "image/png": data, "text/plain": "<Figure>" }, metadata: {} });
    const notebook = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [
        { id: "plot", cell_type: "code", source: "plot()", execution_count: 1, metadata: {}, outputs: [output(png)] },
        {
          id: "fake",
          cell_type: "code",
          source: "fake()",
          execution_count: 2,
          metadata: {},
          outputs: [output(Buffer.from("not a png").toString("base64"))],
        },
      ],
    };
    await writeFile(join(root, "plots.ipynb"), JSON.stringify(notebook, null, 1));
    const result = await read({ file_path: "plots.ipynb" });
    expect(result.content).toContain('<cell id="plot"');
    expect(result.parts).toEqual([{ type: "image", mediaType: "image/png", data: png }]);
  });
});

describe("Read's images reach the model", () => {
  it("as parts of the tool message the next model call is sent", async () => {
    const bytes = await writeImage("chart.png", 30, 30, "png");
    const model = new FakeModel([reply("", toolCall("Read", { file_path: "chart.png" })), "A red square."]);
    const agent = await CodingAgent.create(model, { workspace: root, settingsFiles: [], claudeDirectory: false, memory: false });
    try {
      const result = await agent.run("What does chart.png show?");
      expect(result.final).toBe("A red square.");
      const sent = model.requests[1]?.messages.find((message: Message) => message.role === "tool");
      expect(sent?.parts).toEqual([{ type: "image", mediaType: "image/png", data: bytes.toString("base64") }]);
    } finally {
      await agent.close();
    }
  });
});
