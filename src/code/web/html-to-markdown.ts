import TurndownService from "turndown";

/** Elements whose content is no text of the page: code, styling, embedded frames, forms' machinery. */
const removedElements = new Set(["script", "style", "noscript", "template", "iframe", "object", "embed", "head", "title", "svg", "canvas"]);

/**
 * An HTML page as Markdown (turndown: ATX headings, fenced code blocks), without its scripts, styles and other
 * non-text elements; the `<title>`, when there is one, becomes a first `# ` heading unless the page starts with one.
 */
export function convertHtmlToMarkdown(html: string): string {
  const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  service.remove((node) => removedElements.has(node.nodeName.toLowerCase()));
  const markdown = service.turndown(html).trim();
  const title = pageTitle(html);
  if (title === undefined || markdown.startsWith("# ")) return markdown;
  return `# ${title}\n\n${markdown}`;
}

function pageTitle(html: string): string | undefined {
  const written = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  if (written === undefined) return undefined;
  // The title's text without its entities, through the same converter (it decodes them), on one line.
  const text = new TurndownService().turndown(`<p>${written}</p>`).replace(/\s+/g, " ").trim();
  return text === "" ? undefined : text;
}
