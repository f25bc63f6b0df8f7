import type { ImageMediaType } from "./core/types.js";

/**
 * The image format a file's first bytes say (PNG, JPEG, GIF, WebP: what every provider takes), or undefined. What a
 * tool, a server or a notebook *declares* is not trusted: a mislabelled image makes the provider refuse the request.
 */
export function imageMediaTypeOf(head: Uint8Array): ImageMediaType | undefined {
  const starts = (...bytes: number[]) => bytes.every((byte, index) => head[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (starts(0x47, 0x49, 0x46, 0x38)) return "image/gif";
  if (starts(0x52, 0x49, 0x46, 0x46) && head[8] === 0x57 && head[9] === 0x45 && head[10] === 0x42 && head[11] === 0x50) return "image/webp";
  return undefined;
}

/** The most bytes of one image a message may carry: 3.75 MB, 5 MB in base64 (Anthropic's limit; the others take more). */
export const maxImageBytes = 3_932_160;

/** Most images one tool result carries: past 20 in a request, Anthropic also limits their size further. */
export const maxImagesPerResult = 20;
