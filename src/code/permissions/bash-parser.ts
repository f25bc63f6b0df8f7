import { createRequire } from "node:module";
import type { Parser as TreeSitterParser } from "web-tree-sitter";

/** A node of a parsed command line, read out of tree-sitter once (plain data: no calls into WebAssembly). */
export type SyntaxNode = {
  /** The grammar's node type (`command`, `word`, `file_redirect`) or, for punctuation, the token itself (`>`, `&&`). */
  type: string;
  /** The field it fills in its parent (`name`, `argument`, `destination`, `value`), if any. */
  field: string | undefined;
  /** Offsets in the command line (UTF-16 code units, as JavaScript strings count). */
  start: number;
  end: number;
  children: SyntaxNode[];
};

/** A parsed command line: its tree, and whether tree-sitter had to recover from errors to build it. */
export type ParsedCommandLine = { root: SyntaxNode; broken: boolean };

/** Parses a command line with tree-sitter-bash; synchronous once loaded. */
export type BashParser = { parse(commandLine: string): ParsedCommandLine };

/** Deeper trees are not judged (and not walked: a visitor must not overflow the stack). */
export const maximumDepth = 200;

// The grammar is loaded once per process and shared: it is immutable, and loading costs ~50 ms.
let loading: Promise<BashParser> | undefined;

/**
 * The shell parser: web-tree-sitter with tree-sitter-bash's WebAssembly grammar, loaded on first use and cached
 * for the process. A failed load is not cached, so a later call tries again.
 */
export function loadBashParser(): Promise<BashParser> {
  loading ??= createBashParser().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function createBashParser(): Promise<BashParser> {
  const { Language, Parser } = await import("web-tree-sitter");
  await Parser.init();
  const grammar = createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
  const language = await Language.load(grammar);
  const parser = new Parser();
  parser.setLanguage(language);
  return { parse: (commandLine) => readTree(parser, commandLine, language.types, language.fields) };
}

/** Parses and copies the tree into plain objects with one cursor walk, then frees tree-sitter's memory. */
function readTree(parser: TreeSitterParser, commandLine: string, types: string[], fields: (string | null)[]): ParsedCommandLine {
  const tree = parser.parse(commandLine);
  if (!tree) return { root: { type: "ERROR", field: undefined, start: 0, end: commandLine.length, children: [] }, broken: true };
  const cursor = tree.walk();
  let broken = false;
  const read = (): SyntaxNode => {
    const start = cursor.startIndex;
    const end = cursor.endIndex;
    const type = types[cursor.nodeTypeId] ?? cursor.nodeType;
    // Tree-sitter marks what it had to invent (a missing `)` or `fi`) as zero-width "missing" nodes.
    if (type === "ERROR" || (start === end && cursor.nodeIsMissing)) broken = true;
    return { type, field: fields[cursor.currentFieldId] ?? undefined, start, end, children: [] };
  };
  try {
    const root = read();
    const path: SyntaxNode[] = [root];
    for (;;) {
      if (path.length <= maximumDepth && cursor.gotoFirstChild()) {
        const child = read();
        (path[path.length - 1] as SyntaxNode).children.push(child);
        path.push(child);
        continue;
      }
      if (path.length > maximumDepth) broken = true;
      for (;;) {
        if (cursor.gotoNextSibling()) {
          path.pop();
          const sibling = read();
          (path[path.length - 1] as SyntaxNode).children.push(sibling);
          path.push(sibling);
          break;
        }
        if (!cursor.gotoParent()) return { root, broken };
        path.pop();
      }
    }
  } finally {
    cursor.delete();
    tree.delete();
  }
}
