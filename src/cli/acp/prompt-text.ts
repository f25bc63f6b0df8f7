import { fileURLToPath } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";
import type { ContentPart, ImageMediaType } from "../../core/types.js";

/** A prompt as the agent runs it: its text, and the images and documents that go with it. */
export type EditorPrompt = { text: string; parts: ContentPart[] };

const imageTypes: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * A prompt's content blocks as the text the model reads and the parts it sees: text as it is; an image (pasted,
 * dropped) as an image part; a file the editor links (`resource_link`) as a mention of its path, for the model to
 * Read; a file or selection it embeds (`resource`) as its text, marked with where it comes from, or, for an image or
 * a PDF, as that part. What the model cannot take (audio, an image in another format) is said in words.
 */
export function editorPrompt(blocks: readonly acp.ContentBlock[], root: string): EditorPrompt {
  const texts: string[] = [];
  const parts: ContentPart[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        texts.push(block.text);
        break;
      case "image":
        if (imageTypes.has(block.mimeType)) parts.push({ type: "image", mediaType: block.mimeType as ImageMediaType, data: block.data });
        else texts.push(`[an image in ${block.mimeType} left out: the model takes PNG, JPEG, GIF and WebP]`);
        break;
      case "resource_link":
        texts.push(`@${pathOf(block.uri, root)}`);
        break;
      case "resource": {
        const resource = block.resource;
        const where = pathOf(resource.uri, root);
        if ("text" in resource) texts.push(`\n<context source="${where}">\n${resource.text}\n</context>\n`);
        else if (resource.mimeType === "application/pdf")
          parts.push({ type: "document", mediaType: "application/pdf", data: resource.blob, name: where });
        else if (resource.mimeType && imageTypes.has(resource.mimeType))
          parts.push({ type: "image", mediaType: resource.mimeType as ImageMediaType, data: resource.blob });
        else texts.push(`[${where}: binary content, not included]`);
        break;
      }
      default:
        texts.push(`[${block.type} content left out: the model is sent text, images and PDFs]`);
    }
  }
  return { text: texts.join(" ").trim(), parts };
}

/** A file URI as a path (relative to the workspace when inside it); other URIs as they are. */
function pathOf(uri: string, root: string): string {
  if (!uri.startsWith("file://")) return uri;
  const path = fileURLToPath(uri);
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}
