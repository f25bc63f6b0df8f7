import { fileURLToPath } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";

/**
 * A prompt's content blocks as the text the model reads: text as it is; a file the editor links (`resource_link`)
 * as a mention of its path, for the model to Read; a file or selection it embeds (`resource`) as its text, marked
 * with where it comes from. Images and audio are said to be left out: the engine's messages are text.
 */
export function promptText(blocks: readonly acp.ContentBlock[], root: string): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link":
        parts.push(`@${pathOf(block.uri, root)}`);
        break;
      case "resource": {
        const resource = block.resource;
        const where = pathOf(resource.uri, root);
        if ("text" in resource) parts.push(`\n<context source="${where}">\n${resource.text}\n</context>\n`);
        else parts.push(`[${where}: binary content, not included]`);
        break;
      }
      default:
        parts.push(`[${block.type} content left out: minagent sends the model text only]`);
    }
  }
  return parts.join(" ").trim();
}

/** A file URI as a path (relative to the workspace when inside it); other URIs as they are. */
function pathOf(uri: string, root: string): string {
  if (!uri.startsWith("file://")) return uri;
  const path = fileURLToPath(uri);
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}
