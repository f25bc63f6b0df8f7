import { truncate } from "../text.js";

/** What attaching mentions needs of the servers. */
export type MentionSource = {
  status(): readonly { name: string }[];
  readResourceText(server: string, uri: string, options?: { signal?: AbortSignal | undefined }): Promise<string>;
};

/** A prompt with its `@server:uri` mentions' resources attached. */
export type AttachedResources = {
  prompt: string;
  /** The mentions whose resources were attached, in the order they appear. */
  attached: readonly { server: string; uri: string }[];
  /** Mentions that could not be read, one line each saying why (also in the prompt, where the resource would be). */
  notes: readonly string[];
};

// The tool results' bound (the registry's default): a resource in a prompt costs what a tool result would.
const maxResourceLength = 50_000;

/**
 * Attaches the resources a prompt mentions as `@server:uri` (Claude Code's form: `@github:repo://issues/12`): each is
 * read once and its text follows the prompt in a `<mcp-resource server="…" uri="…">` block, bounded as a tool result
 * is and redacted; binary contents are described by type and size. Only names of configured servers count, so an
 * e-mail address or `@types/node` stays text. A resource that cannot be read leaves a note instead.
 */
export async function attachResourceMentions(
  prompt: string,
  source: MentionSource,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<AttachedResources> {
  const servers = new Set(source.status().map(({ name }) => name));
  const mentions = new Map<string, { server: string; uri: string }>();
  for (const match of prompt.matchAll(/(?<=^|\s)@([A-Za-z0-9_-]{1,64}):(\S+)/g)) {
    const server = match[1] as string;
    // Punctuation that ends a sentence is not part of the uri.
    const uri = (match[2] as string).replace(/[.,;:!?)\]"']+$/, "");
    if (servers.has(server) && uri !== "") mentions.set(`${server}:${uri}`, { server, uri });
  }
  if (mentions.size === 0) return { prompt, attached: [], notes: [] };
  const attached: { server: string; uri: string }[] = [];
  const notes: string[] = [];
  const blocks: string[] = [];
  for (const { server, uri } of mentions.values()) {
    try {
      const text = await source.readResourceText(server, uri, options);
      blocks.push(`<mcp-resource server="${server}" uri="${escapeAttribute(uri)}">\n${truncate(text, maxResourceLength)}\n</mcp-resource>`);
      attached.push({ server, uri });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const note = `@${server}:${uri} was not attached: ${error instanceof Error ? error.message : String(error)}`;
      notes.push(note);
      blocks.push(`[${note}]`);
    }
  }
  return { prompt: `${prompt}\n\n${blocks.join("\n\n")}`, attached, notes };
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}
