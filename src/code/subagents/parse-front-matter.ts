import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument, type YAMLError } from "yaml";
import { MinagentError } from "../../errors.js";
import { toOneLine } from "../../text.js";

/** A front-matter value: a string, or a list of strings. */
export type FrontMatterValue = string | string[];

/** A Markdown file split into its front matter and its body. */
export type FrontMatterDocument = { data: Record<string, FrontMatterValue>; body: string };

/** A file whose front matter cannot be read; `line` is 1-based in the file. */
export class FrontMatterError extends MinagentError {
  constructor(
    message: string,
    readonly line: number | undefined,
  ) {
    super(message);
  }
}

/**
 * Splits a Markdown file into its YAML front matter and body, as Claude Code reads agent files:
 *
 * - the block opens with `---` on the first line and closes with `---` (or `...`) on a line of its own;
 * - between them is YAML (the `yaml` package): `key: value` lines, comments, `"double"` and `'single'` quoted
 *   strings, flow lists `[Read, Grep]`, block lists, block scalars (`description: |`, `>-`), anchors and aliases;
 * - it is read with YAML's failsafe schema, so every value is a string or a list of strings: `true` stays
 *   `"true"` and `1.10` stays `"1.10"`, and the caller decides what they mean; an empty value is `""`.
 *
 * Invalid YAML (a value holding `: ` without quotes, a key given twice, a tab used as indentation), a nested map, or
 * a list inside a list throws a {@link FrontMatterError} with the line in the file.
 */
export function parseFrontMatter(text: string): FrontMatterDocument {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") throw new FrontMatterError("it does not start with a front matter block (a line `---`)", 1);
  const end = lines.findIndex((line, index) => index > 0 && (line.trimEnd() === "---" || line.trimEnd() === "..."));
  if (end === -1) throw new FrontMatterError("its front matter block is not closed (a line `---` after it)", undefined);
  const frontMatter = lines.slice(1, end);
  const lineCounter = new LineCounter();
  const document = parseDocument(frontMatter.join("\n"), { schema: "failsafe", lineCounter, prettyErrors: false, uniqueKeys: true });
  // The YAML starts on the file's second line, after the opening `---`.
  const lineAt = (offset: number): number => lineCounter.linePos(offset).line + 1;
  const [error] = document.errors;
  if (error) {
    const line = lineAt(error.pos[0]);
    throw new FrontMatterError(describeYamlError(error, frontMatter[line - 2] ?? ""), line);
  }
  return {
    data: readData(document, frontMatter, lineAt),
    body: lines
      .slice(end + 1)
      .join("\n")
      .trim(),
  };
}

/** The front matter's keys and values, refusing what a string or a list of strings cannot hold. */
function readData(
  document: Document,
  frontMatter: readonly string[],
  lineAt: (offset: number) => number,
): Record<string, FrontMatterValue> {
  const data: Record<string, FrontMatterValue> = {};
  const contents = document.contents;
  if (contents === null) return data;
  const lineOf = (node: Node) => (node.range ? lineAt(node.range[0]) : undefined);
  if (!isMap(contents)) {
    const line = lineOf(contents);
    const found = line === undefined ? "" : `, found \`${toOneLine(frontMatter[line - 2] ?? "", 60)}\``;
    throw new FrontMatterError(`expected \`key: value\` lines${found}`, line);
  }
  for (const pair of contents.items) {
    if (!isScalar(pair.key)) throw new FrontMatterError("a key is not plain text", pair.key ? lineOf(pair.key as Node) : undefined);
    const key = String(pair.key.value);
    const value = resolve(document, pair.value as Node | null, key, lineOf);
    if (value === null) {
      data[key] = "";
    } else if (isScalar(value)) {
      data[key] = String(value.value);
    } else if (isSeq(value)) {
      data[key] = value.items.map((item) => {
        const resolved = resolve(document, item as Node | null, key, lineOf);
        if (resolved === null) return "";
        if (isScalar(resolved)) return String(resolved.value);
        throw new FrontMatterError(
          `\`${key}\` holds a ${isSeq(resolved) ? "list" : "map"} inside a list; its items must be text`,
          lineOf(item as Node),
        );
      });
    } else {
      throw new FrontMatterError(`\`${key}\` is a map; a front matter value is text or a list of text`, lineOf(pair.key));
    }
  }
  return data;
}

/** The node an alias stands for (`*name`), or the node itself. */
function resolve(document: Document, node: Node | null, key: string, lineOf: (node: Node) => number | undefined): Node | null {
  if (!isAlias(node)) return node;
  const target = node.resolve(document);
  if (target === undefined)
    throw new FrontMatterError(`\`${key}\` refers to \`*${node.source}\`, but no \`&${node.source}\` comes before it`, lineOf(node));
  return target;
}

/** The YAML parser's message, the line it is about, and how to fix the usual mistakes. */
function describeYamlError(error: YAMLError, line: string): string {
  const found = line.trim() === "" ? "" : ` in \`${toOneLine(line, 60)}\``;
  const message = `${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}`;
  if (error.code === "DUPLICATE_KEY") {
    const key = /^\s*(.+?)\s*:/.exec(line)?.[1];
    return key === undefined ? `a key is given twice${found}` : `the key \`${key}\` is given twice`;
  }
  if (error.code === "BLOCK_AS_IMPLICIT_KEY")
    return `invalid YAML${found} (${message}): put a value that holds \`: \` in quotes, e.g. description: "Use it when: …"`;
  if (error.code === "TAB_AS_INDENT") return `invalid YAML${found}: indent with spaces, not tabs`;
  return `invalid YAML${found} (${message})`;
}
