import { type ContentPart, type ImageMediaType, imageMediaTypeOf, maxImageBytes, maxImagesPerResult } from "../engine.js";

/** A content block of an MCP tool result, as the protocol defines it (2025-06-18); unknown kinds are kept loosely. */
export type McpContentBlock =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name?: string; description?: string; mimeType?: string }
  | { type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string } }
  | { type: string; [field: string]: unknown };

/** An MCP `tools/call` result. */
export type McpToolResult = {
  content?: readonly McpContentBlock[] | undefined;
  structuredContent?: Record<string, unknown> | undefined;
  isError?: boolean | undefined;
};

/**
 * The observation the model reads for an MCP tool result. Observations are text: text blocks and text resources
 * are passed as they are; an image, audio or binary resource becomes a line saying what it was and how big, since
 * the bytes cannot reach the model as text. Structured content is sent as JSON only when there is no other
 * content: the protocol asks servers to send it as text too, and servers that do often wrap that same text
 * (`{ "content": "…" }`), which would double what the model reads. Programs get it whole from `callTool`.
 */
export function describeMcpToolResult(result: McpToolResult, options: { imagesAttached?: boolean } = {}): string {
  let attached = 0;
  const parts = (result.content ?? []).map((block) =>
    options.imagesAttached && attachable(block) && attached++ < maxImagesPerResult
      ? `[image ${block.mimeType}: attached]`
      : describeBlock(block),
  );
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join("\n");
}

/**
 * The images of an MCP tool result as message parts (PNG, JPEG, GIF and WebP: what every provider takes), for the
 * model to see; other kinds stay described in the text.
 */
export function mcpResultImages(result: McpToolResult): ContentPart[] {
  return (result.content ?? [])
    .filter(attachable)
    .slice(0, maxImagesPerResult)
    .map((block): ContentPart => ({ type: "image", mediaType: block.mimeType as ImageMediaType, data: block.data }));
}

/**
 * An image block the model can be given: its bytes (not only its declared type) a PNG, JPEG, GIF or WebP, within the
 * size a message may carry, and among the first {@link maxImagesPerResult}. Others stay described in the text: a
 * mislabelled or oversized image would make the provider refuse every later request.
 */
function attachable(block: McpContentBlock): block is { type: "image"; data: string; mimeType: string } {
  if (block.type !== "image" || typeof block.data !== "string" || typeof block.mimeType !== "string") return false;
  if (base64Bytes(block.data) > maxImageBytes) return false;
  return imageMediaTypeOf(Buffer.from(block.data.slice(0, 24), "base64")) === block.mimeType;
}

function describeBlock(block: McpContentBlock): string {
  switch (block.type) {
    case "text":
      return String(block.text);
    case "image":
    case "audio":
      return `[${block.type} ${String(block.mimeType)}, ${formatBytes(base64Bytes(block.data))}: not shown, this agent's tool results are text]`;
    case "resource_link":
      return `[resource link: ${String(block.uri)}${block.name ? ` (${String(block.name)})` : ""}${block.description ? ` — ${String(block.description)}` : ""}]`;
    case "resource": {
      const resource = block.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
      const header = `[resource ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ""}]`;
      if (typeof resource.text === "string") return `${header}\n${resource.text}`;
      return `${header} ${formatBytes(base64Bytes(resource.blob))} of binary data: not shown`;
    }
    default:
      return `[${block.type} content: not shown]`;
  }
}

function base64Bytes(data: unknown): number {
  if (typeof data !== "string") return 0;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KB`;
}
