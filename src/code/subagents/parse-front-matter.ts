import { createRequire } from "node:module";
import type * as Yaml from "yaml";
import type { Document, Node, YAMLError } from "yaml";
import { MinagentError } from "../../errors.js";
import { toOneLine } from "../../text.js";

/** A front-matter value as text: a string, a list, or a map of them (`hooks:`, `mcpServers:`). */
export type FrontMatterValue = string | FrontMatterValue[] | FrontMatterMap;

/** A nested map of a front matter (`hooks: { PreToolUse: [ … ] }`). */
export type FrontMatterMap = { [key: string]: FrontMatterValue };

/** A Markdown file split into its front matter and its body. */
export type FrontMatterDocument = {
  /** Every key's value with its scalars as text (`true` is `"true"`, `1.10` is `"1.10"`); an empty value is `""`. */
  data: Record<string, FrontMatterValue>;
  /**
   * The same values as YAML's core schema types them (`30` a number, `true` a boolean, `null`, quoted text stays
   * text): for nested settings that follow a JSON shape, such as an agent file's `hooks`.
   */
  values: Record<string, unknown>;
  /** The 1-based line in the file of each top-level key. */
  lines: Record<string, number>;
  body: string;
};

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
 * The `yaml` package, loaded at the first front matter read rather than at start-up: some 70 modules that a session
 * without agent files, custom commands or skills never needs. It ships CommonJS, which `import` would load too.
 */
let yamlPackage: typeof Yaml | undefined;
function yaml(): typeof Yaml {
  yamlPackage ??= createRequire(import.meta.url)("yaml") as typeof Yaml;
  return yamlPackage;
}

/** Deepest nesting and most values read, so that an alias bomb (`&a [*b, *b, …]`) cannot make a small file huge. */
const maxDepth = 16;
const maxValues = 10_000;

/**
 * Splits a Markdown file into its YAML front matter and body, as Claude Code reads agent files:
 *
 * - the block opens with `---` on the first line and closes with `---` (or `...`) on a line of its own;
 * - between them is YAML (the `yaml` package): `key: value` lines, comments, `"double"` and `'single'` quoted
 *   strings, flow and block lists, nested maps (`hooks:`) and lists of maps, block scalars (`description: |`,
 *   `>-`), anchors and aliases;
 * - `data` reads it with YAML's failsafe schema, so every scalar is a string: `true` stays `"true"` and `1.10`
 *   stays `"1.10"`, and the caller decides what they mean; `values` has the core schema's types for settings in
 *   JSON's shape (a hook's `timeout: 30`).
 *
 * Invalid YAML (a value holding `: ` without quotes, a key given twice, a tab used as indentation), or a front
 * matter that is not a map of keys, throws a {@link FrontMatterError} with the line in the file.
 */
export function parseFrontMatter(text: string): FrontMatterDocument {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") throw new FrontMatterError("it does not start with a front matter block (a line `---`)", 1);
  const end = lines.findIndex((line, index) => index > 0 && (line.trimEnd() === "---" || line.trimEnd() === "..."));
  if (end === -1) throw new FrontMatterError("its front matter block is not closed (a line `---` after it)", undefined);
  const frontMatter = lines.slice(1, end);
  const source = frontMatter.join("\n");
  const lineCounter = new (yaml().LineCounter)();
  const document = yaml().parseDocument(source, { schema: "failsafe", lineCounter, prettyErrors: false, uniqueKeys: true });
  // The YAML starts on the file's second line, after the opening `---`.
  const lineAt = (offset: number): number => lineCounter.linePos(offset).line + 1;
  const [error] = document.errors;
  if (error) {
    const line = lineAt(error.pos[0]);
    throw new FrontMatterError(describeYamlError(error, frontMatter[line - 2] ?? ""), line);
  }
  const { data, lines: keyLines } = readData(document, frontMatter, lineAt);
  // The same text, valid already, typed by the core schema; the reader above has bounded its aliases.
  const typed = yaml().parseDocument(source, { schema: "core", uniqueKeys: true }).toJS({ maxAliasCount: maxValues }) as unknown;
  return {
    data,
    values: typed !== null && typeof typed === "object" ? (typed as Record<string, unknown>) : {},
    lines: keyLines,
    body: lines
      .slice(end + 1)
      .join("\n")
      .trim(),
  };
}

type Reader = { document: Document; lineOf: (node: Node) => number | undefined; count: number };

/** The front matter's keys and values (scalars as text), and the line of each key. */
function readData(
  document: Document,
  frontMatter: readonly string[],
  lineAt: (offset: number) => number,
): { data: Record<string, FrontMatterValue>; lines: Record<string, number> } {
  const data: Record<string, FrontMatterValue> = {};
  const lines: Record<string, number> = {};
  const contents = document.contents;
  if (contents === null) return { data, lines };
  const reader: Reader = { document, lineOf: (node) => (node.range ? lineAt(node.range[0]) : undefined), count: 0 };
  if (!yaml().isMap(contents)) {
    const line = reader.lineOf(contents);
    const found = line === undefined ? "" : `, found \`${toOneLine(frontMatter[line - 2] ?? "", 60)}\``;
    throw new FrontMatterError(`expected \`key: value\` lines${found}`, line);
  }
  for (const pair of contents.items) {
    const key = keyOf(pair.key as Node | null, reader);
    const line = reader.lineOf(pair.key as Node);
    if (line !== undefined) lines[key] = line;
    data[key] = readValue(pair.value as Node | null, key, reader, 1);
  }
  return { data, lines };
}

function keyOf(node: Node | null, reader: Reader): string {
  if (!yaml().isScalar(node)) throw new FrontMatterError("a key is not plain text", node ? reader.lineOf(node) : undefined);
  return String(node.value);
}

/** A value as text, a list or a map, aliases followed; `path` names it in errors (`hooks.PreToolUse`). */
function readValue(node: Node | null, path: string, reader: Reader, depth: number): FrontMatterValue {
  const value = resolve(node, path, reader);
  if (++reader.count > maxValues || depth > maxDepth)
    throw new FrontMatterError(
      `\`${path.split(/[.[]/)[0]}\` holds more than ${maxValues} values or is nested more than ${maxDepth} deep (an alias that refers to itself?)`,
      lineOf(node, reader),
    );
  if (value === null) return "";
  if (yaml().isScalar(value)) return value.value === null ? "" : String(value.value);
  if (yaml().isSeq(value)) return value.items.map((item, index) => readValue(item as Node | null, `${path}[${index}]`, reader, depth + 1));
  if (yaml().isMap(value)) {
    const map: FrontMatterMap = {};
    for (const pair of value.items) {
      const key = keyOf(pair.key as Node | null, reader);
      map[key] = readValue(pair.value as Node | null, `${path}.${key}`, reader, depth + 1);
    }
    return map;
  }
  throw new FrontMatterError(`\`${path}\` is not a value YAML front matter can hold`, lineOf(node, reader));
}

function lineOf(node: Node | null, reader: Reader): number | undefined {
  return node ? reader.lineOf(node) : undefined;
}

/** The node an alias stands for (`*name`), or the node itself. */
function resolve(node: Node | null, path: string, reader: Reader): Node | null {
  if (!yaml().isAlias(node)) return node;
  const target = node.resolve(reader.document);
  if (target === undefined)
    throw new FrontMatterError(
      `\`${path}\` refers to \`*${node.source}\`, but no \`&${node.source}\` comes before it`,
      reader.lineOf(node),
    );
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
