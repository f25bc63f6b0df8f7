import { createRequire } from "node:module";
// Read of images and PDFs: the model sees them (image and document parts), as Claude Code's Read shows them. An
// image past the size cap is downscaled with sharp, a PDF's pages are cut out with pdf-lib; both are optional peers,
// loaded only when a file needs them.
import { type ContentPart, type ImageMediaType, imageMediaTypeOf, maxImageBytes, type ToolOutput, toolOutput } from "../../engine.js";
import { ToolError } from "../../errors.js";
import { type OptionalPackage, optionalPackageError } from "../../optional-peer.js";
import { formatSize, plural } from "./file-text.js";

/** Limits of what Read sends of an image or a PDF. */
export type MediaLimits = {
  /** Most bytes of one image as sent (default 3.75 MB: 5 MB in base64, the most Anthropic's API takes). */
  maxImageBytes: number;
  /** Longest edge in pixels an image is sent with (default 2,000); a larger one is downscaled to it. */
  maxImageEdge: number;
  /** Most pages of a PDF one Read sends (default 20, as Claude Code). */
  maxPdfPages: number;
  /** Pages a PDF may have to be sent whole without `pages` (default 10, as Claude Code). */
  wholePdfPages: number;
  /** Most bytes of a PDF as sent (default 20 MB). */
  maxPdfBytes: number;
};

export const defaultMediaLimits: MediaLimits = {
  maxImageBytes,
  maxImageEdge: 2_000,
  maxPdfPages: 20,
  wholePdfPages: 10,
  maxPdfBytes: 20 * 1024 * 1024,
};

/** The image format of a file's first bytes, or undefined. */
export const imageTypeOf = imageMediaTypeOf;

/**
 * An image given as base64 (a notebook's output, a tool's), as Read would send it: its type from its bytes, downscaled
 * past the cap; undefined when its bytes are no image the providers take (it is then described in text instead).
 */
export async function imagePartOf(
  base64: string,
  what: string,
  limits: MediaLimits = defaultMediaLimits,
): Promise<ContentPart | undefined> {
  const bytes = Buffer.from(base64, "base64");
  const type = imageTypeOf(bytes.subarray(0, 16));
  if (type === undefined) return undefined;
  const output = await readImage(bytes, type, what, limits).catch(() => undefined);
  return output?.parts[0];
}

/**
 * Bytes as the model sees them when they are an image or a PDF, by their first bytes (not a declared type): an image
 * as {@link readImage} gives it, a PDF as {@link readPdf} does. Undefined for other bytes, and for a broken image.
 */
export async function readMediaBytes(
  bytes: Buffer,
  shown: string,
  name: string,
  pages: string | undefined,
  limits: MediaLimits,
): Promise<ToolOutput | undefined> {
  const image = imageTypeOf(bytes.subarray(0, 16));
  if (image) return readImage(bytes, image, shown, limits);
  return isPdf(bytes.subarray(0, 8)) ? readPdf(bytes, shown, name, pages, limits) : undefined;
}

/** Whether a file's first bytes are a PDF's. */
export function isPdf(head: Uint8Array): boolean {
  return head[0] === 0x25 && head[1] === 0x50 && head[2] === 0x44 && head[3] === 0x46 && head[4] === 0x2d;
}

/**
 * An image file as Read returns it: a line saying what it is, and the image. One over `maxImageBytes` or wider
 * than `maxImageEdge` is downscaled (sharp); without sharp, a small enough image goes as it is and a larger one is
 * refused with how to install it. Undefined when the file is not a readable image after all (its header alone).
 */
export async function readImage(
  bytes: Buffer,
  mediaType: ImageMediaType,
  shown: string,
  limits: MediaLimits,
): Promise<ToolOutput | undefined> {
  const size = dimensionsOf(bytes);
  // A file that only starts like an image would make the provider refuse the whole request: it is described instead.
  if (size === undefined) return undefined;
  const tooLarge = bytes.length > limits.maxImageBytes || (size !== undefined && Math.max(size.width, size.height) > limits.maxImageEdge);
  const what = `${shown}: ${mediaType.slice("image/".length).toUpperCase()} image${size ? `, ${size.width}×${size.height}` : ""}, ${formatSize(bytes.length)}`;
  if (!tooLarge) return toolOutput(`${what}.`, [{ type: "image", mediaType, data: bytes.toString("base64") }]);
  const sharp = await loadSharp().catch((error: unknown) => {
    throw new ToolError(
      `${what}, is larger than Read sends (${formatSize(limits.maxImageBytes)}, ${limits.maxImageEdge} pixels on its longest edge). ${(error as Error).message}`,
    );
  });
  const resized = await downscale(sharp, bytes, mediaType, limits);
  const after = dimensionsOf(resized.bytes);
  return toolOutput(
    `${what}; downscaled to ${after ? `${after.width}×${after.height}, ` : ""}${formatSize(resized.bytes.length)} to be sent.`,
    [{ type: "image", mediaType: resized.mediaType, data: resized.bytes.toString("base64") }],
  );
}

/**
 * A PDF as Read returns it: a line saying how many pages it has and which are sent, and the document. `pages`
 * ("3", "1-5", "2,4-6") picks pages (pdf-lib); without it a PDF of more than `wholePdfPages` pages is refused with
 * how to ask for some. Without pdf-lib a PDF is sent whole if it is small enough, and `pages` is refused.
 */
export async function readPdf(
  bytes: Buffer,
  shown: string,
  name: string,
  pages: string | undefined,
  limits: MediaLimits,
): Promise<ToolOutput> {
  const library = await loadPdfLib().catch((error: unknown) => error as Error);
  if (library instanceof Error) {
    if (pages !== undefined) throw new ToolError(`Read cannot pick pages of ${shown}: ${library.message}`);
    if (bytes.length > limits.maxPdfBytes)
      throw new ToolError(
        `${shown} is a PDF of ${formatSize(bytes.length)}, over the ${formatSize(limits.maxPdfBytes)} Read sends whole. ${library.message}`,
      );
    return toolOutput(`${shown}: PDF, ${formatSize(bytes.length)}, sent whole.`, [document(bytes, name)]);
  }
  const source = await library.PDFDocument.load(bytes, { ignoreEncryption: true }).catch((error: unknown) => {
    throw new ToolError(`${shown} could not be read as a PDF: ${(error as Error).message}`);
  });
  const count = source.getPageCount();
  if (pages === undefined) {
    if (count > limits.wholePdfPages)
      throw new ToolError(
        `${shown} is a PDF of ${plural(count, "page")}, more than the ${limits.wholePdfPages} Read sends without \`pages\`. Read it in parts: pages "1-${Math.min(count, limits.maxPdfPages)}", then the next (at most ${limits.maxPdfPages} a call).`,
      );
    if (bytes.length > limits.maxPdfBytes)
      throw new ToolError(`${shown} is a PDF of ${formatSize(bytes.length)}; read it in parts with \`pages\` (e.g. "1-5").`);
    return toolOutput(`${shown}: PDF, ${plural(count, "page")}, ${formatSize(bytes.length)}.`, [document(bytes, name)]);
  }
  const chosen = parsePages(pages, count, shown);
  if (chosen.length > limits.maxPdfPages)
    throw new ToolError(`pages "${pages}" asks for ${chosen.length} pages of ${shown}; Read sends at most ${limits.maxPdfPages} a call.`);
  const extract = await library.PDFDocument.create();
  for (const page of await extract.copyPages(
    source,
    chosen.map((number) => number - 1),
  ))
    extract.addPage(page);
  const out = Buffer.from(await extract.save());
  if (out.length > limits.maxPdfBytes)
    throw new ToolError(`Pages "${pages}" of ${shown} are ${formatSize(out.length)}; ask for fewer pages at a time.`);
  return toolOutput(`${shown}: PDF, ${plural(count, "page")}; sent: ${describePages(chosen)} (${formatSize(out.length)}).`, [
    document(out, name),
  ]);
}

function document(bytes: Buffer, name: string): ContentPart {
  return { type: "document", mediaType: "application/pdf", data: bytes.toString("base64"), name };
}

/** "3", "1-5", "2,4-6" as page numbers (1-based, in order, each once); a ToolError for anything else or out of range. */
export function parsePages(pages: string, count: number, shown: string): number[] {
  const chosen = new Set<number>();
  for (const piece of pages.split(",")) {
    const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(piece);
    const first = Number(match?.[1]);
    const last = Number(match?.[2] ?? match?.[1]);
    if (!match || first < 1 || last < first)
      throw new ToolError(`pages "${pages}" is not a page range: give "3", "1-5" or "2,4-6" (pages count from 1).`);
    if (last > count) throw new ToolError(`${shown} has ${plural(count, "page")}, so pages "${pages}" goes past its end.`);
    for (let page = first; page <= last; page++) chosen.add(page);
  }
  return [...chosen].sort((left, right) => left - right);
}

function describePages(pages: readonly number[]): string {
  const ranges: string[] = [];
  for (let index = 0; index < pages.length; ) {
    let end = index;
    while (end + 1 < pages.length && (pages[end + 1] as number) === (pages[end] as number) + 1) end++;
    ranges.push(end === index ? `page ${pages[index]}` : `pages ${pages[index]}–${pages[end]}`);
    index = end + 1;
  }
  return ranges.join(", ");
}

/** `image-size`, loaded at the first image read rather than with the Read tool at every start. */
let imageSize: typeof import("image-size").imageSize | undefined;

function dimensionsOf(bytes: Uint8Array): { width: number; height: number } | undefined {
  try {
    imageSize ??= (createRequire(import.meta.url)("image-size") as typeof import("image-size")).imageSize;
    const { width, height } = imageSize(bytes);
    return width && height ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

type Sharp = typeof import("sharp").default;

/** The image made to fit: the longest edge within the cap, then a lower JPEG quality until the bytes fit too. */
async function downscale(
  sharp: Sharp,
  bytes: Buffer,
  mediaType: ImageMediaType,
  limits: MediaLimits,
): Promise<{ bytes: Buffer; mediaType: ImageMediaType }> {
  const fitted = sharp(bytes, { animated: false })
    .rotate()
    .resize(limits.maxImageEdge, limits.maxImageEdge, { fit: "inside", withoutEnlargement: true });
  // PNG and GIF (a screenshot, a diagram) stay lossless when they fit so; photos and what does not fit go as JPEG.
  if (mediaType === "image/png" || mediaType === "image/gif") {
    const png = await fitted.clone().png({ compressionLevel: 9 }).toBuffer();
    if (png.length <= limits.maxImageBytes) return { bytes: png, mediaType: "image/png" };
  }
  for (const quality of [85, 70, 55, 40]) {
    const jpeg = await fitted.clone().jpeg({ quality }).toBuffer();
    if (jpeg.length <= limits.maxImageBytes) return { bytes: jpeg, mediaType: "image/jpeg" };
  }
  throw new ToolError(`The image could not be made smaller than ${formatSize(limits.maxImageBytes)}; crop it first (with Bash).`);
}

const sharpPackage: OptionalPackage = { name: "sharp", neededBy: "Read needs, to downscale a large image,", install: "npm i sharp" };
const pdfLibPackage: OptionalPackage = {
  name: "pdf-lib",
  neededBy: "Read needs, to count and pick a PDF's pages,",
  install: "npm i pdf-lib",
};

async function loadSharp(): Promise<Sharp> {
  try {
    return (await import("sharp")).default;
  } catch (error) {
    throw optionalPackageError(error, sharpPackage);
  }
}

async function loadPdfLib(): Promise<typeof import("pdf-lib")> {
  try {
    return await import("pdf-lib");
  } catch (error) {
    throw optionalPackageError(error, pdfLibPackage);
  }
}
