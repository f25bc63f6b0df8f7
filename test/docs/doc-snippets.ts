// The TypeScript and JavaScript blocks of the Markdown docs, as programs: found, grouped (a block marked
// `continues` goes on from the block before it), written into a folder inside this package (so that
// `import "minagent"` is the package's own exports map, as a user's import is), type-checked in one
// TypeScript program, and those that can run offline transpiled to run with node.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** A fenced block of a Markdown file. */
export type DocBlock = { file: string; line: number; language: "ts" | "js"; code: string; marker: SnippetMarker | undefined };

/**
 * What the line before a block may say about it, as `<!-- snippet: … -->`:
 * - `continues`: the block goes on from the block above it in the same file (the prose splits one program);
 * - `fragment (a, b): why`: the block uses `a` and `b` without defining them, for the reason given.
 */
export type SnippetMarker = { kind: "continues" } | { kind: "fragment"; assumes: string[]; why: string };

/** One program: a block, or a block and those that continue it. */
export type Snippet = {
  /** Where its first block is, as `docs/x.md:12` (the line of the opening fence). */
  name: string;
  blocks: DocBlock[];
  language: "ts" | "js";
  /** The names a fragment marker says it uses without defining them. */
  assumes: string[];
  code: string;
  /** For each line of `code`, the Markdown file and line it comes from. */
  origins: { file: string; line: number }[];
};

const fence = /^```(\w*)\s*$/;
const markerLine = /^<!--\s*snippet:\s*(.*?)\s*-->$/;
const fragmentMarker = /^fragment \(([^)]*)\):\s*(\S.*)$/;
const languages: Record<string, "ts" | "js"> = { ts: "ts", typescript: "ts", tsx: "ts", js: "js", javascript: "js", mjs: "js" };

/** README.md and every docs/*.md of the package at `root`. */
export function documentationFiles(root: string): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => join(root, "docs", name));
  return [join(root, "README.md"), ...docs];
}

/** The TypeScript and JavaScript blocks of a Markdown file, each with the marker on the line before it. */
export function readBlocks(path: string, root: string): DocBlock[] {
  const file = relative(root, path);
  const lines = readFileSync(path, "utf8").split("\n");
  const blocks: DocBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const opening = fence.exec(lines[index] as string);
    if (!opening) continue;
    const end = lines.findIndex((line, after) => after > index && line.trim() === "```");
    if (end === -1) throw new Error(`${file}:${index + 1}: a code block that is never closed`);
    const language = languages[opening[1] as string];
    if (language) {
      const before = lines.slice(0, index).findLast((line) => line.trim() !== "");
      const marked = before === undefined ? null : markerLine.exec(before.trim());
      const marker = marked ? parseMarker(marked[1] as string, `${file}:${index + 1}`) : undefined;
      blocks.push({ file, line: index + 1, language, code: lines.slice(index + 1, end).join("\n"), marker });
    }
    index = end;
  }
  return blocks;
}

function parseMarker(text: string, where: string): SnippetMarker {
  if (text === "continues") return { kind: "continues" };
  const fragment = fragmentMarker.exec(text);
  if (fragment) {
    const assumes = (fragment[1] as string)
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "");
    if (assumes.length > 0) return { kind: "fragment", assumes, why: fragment[2] as string };
  }
  throw new Error(
    `${where}: the marker "<!-- snippet: ${text} -->" is not one of "<!-- snippet: continues -->" (the block goes on from the one above) or "<!-- snippet: fragment (name, name): why -->" (it uses these names without defining them)`,
  );
}

/** The blocks as programs: a `continues` block joins the program of the block above it in the same file. */
export function groupSnippets(blocks: readonly DocBlock[]): Snippet[] {
  const snippets: Snippet[] = [];
  for (const block of blocks) {
    const last = snippets.at(-1);
    const origins = block.code.split("\n").map((_, offset) => ({ file: block.file, line: block.line + 1 + offset }));
    if (block.marker?.kind === "continues") {
      if (!last || last.blocks[0]?.file !== block.file)
        throw new Error(`${block.file}:${block.line}: a block marked "continues" has no block above it in its file`);
      last.blocks.push(block);
      last.code += `\n${block.code}`;
      last.origins.push(...origins);
      continue;
    }
    snippets.push({
      name: `${block.file}:${block.line}`,
      blocks: [block],
      language: block.language,
      assumes: block.marker?.kind === "fragment" ? block.marker.assumes : [],
      code: block.code,
      origins,
    });
  }
  return snippets;
}

/**
 * What a doc may use without defining: `model` (any Model) and `registry` (a ToolRegistry), the names the docs
 * give the reader's own model and tools, as in "All four agents take `(model, registry, options)`".
 */
const readerContext = `import type { Model, ToolRegistry } from "minagent";
declare global {
  const model: Model;
  const registry: ToolRegistry;
}
export {};
`;

/**
 * Packages the docs import that this repository does not install: their exports cannot be checked here, so they
 * are typed as \`any\`. The test checks that each is still missing, so that an installed one gets checked.
 */
export const uninstalledPackages = ["@opentelemetry/sdk-node"];

/** One problem TypeScript found, where the reader sees it. */
export type SnippetDiagnostic = { snippet: string; file: string; line: number; code: number; message: string; text: string };

/** The result of type-checking every snippet in one program. */
export type CheckResult = {
  /** Per snippet (by name), what TypeScript reported, as `docs/x.md:14: TS2305 …`. */
  diagnostics: Map<string, SnippetDiagnostic[]>;
  /** Per snippet, whether it uses `model` or `registry` from the reader's context (then it cannot run). */
  usesReaderContext: Map<string, boolean>;
  /** Per snippet, the modules it imports. */
  imports: Map<string, string[]>;
  /** Per snippet, its file in the folder. */
  paths: Map<string, string>;
};

const cannotFindName = new Set([2304, 2552, 2582, 2593]);

/** Writes every snippet into `folder` (inside the package) and type-checks them together, once. */
export function checkSnippets(snippets: readonly Snippet[], folder: string): CheckResult {
  const contextPath = join(folder, "reader-context.d.ts");
  writeFileSync(contextPath, readerContext);
  // Ambient module declarations, in a file that is not a module itself.
  const uninstalledPath = join(folder, "uninstalled-packages.d.ts");
  writeFileSync(uninstalledPath, uninstalledPackages.map((name) => `declare module "${name}";\n`).join(""));
  const paths = new Map<string, string>();
  snippets.forEach((snippet, index) => {
    const path = join(
      folder,
      `snippet-${index}-${snippet.name.replace(/[^A-Za-z0-9]+/g, "-")}.${snippet.language === "ts" ? "mts" : "mjs"}`,
    );
    writeFileSync(path, `${snippet.code}\n`);
    paths.set(snippet.name, path);
  });
  const program = ts.createProgram([contextPath, uninstalledPath, ...paths.values()], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    moduleDetection: ts.ModuleDetectionKind.Force,
    lib: ["lib.es2023.d.ts"],
    types: ["node"],
    strict: true,
    allowJs: true,
    checkJs: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const contextFile = program.getSourceFile(contextPath);
  const result: CheckResult = { diagnostics: new Map(), usesReaderContext: new Map(), imports: new Map(), paths };
  const contextProblems = ts.getPreEmitDiagnostics(program, contextFile);
  if (contextProblems.length > 0) throw new Error(`reader-context.d.ts does not compile: ${format(contextProblems[0] as ts.Diagnostic)}`);
  for (const snippet of snippets) {
    const source = program.getSourceFile(paths.get(snippet.name) as string) as ts.SourceFile;
    const diagnostics = ts.getPreEmitDiagnostics(program, source).map((diagnostic) => {
      const start = diagnostic.start ?? 0;
      const line = source.getLineAndCharacterOfPosition(start).line;
      const origin = snippet.origins[line] ?? { file: snippet.name, line: 0 };
      return {
        snippet: snippet.name,
        ...origin,
        code: diagnostic.code,
        message: ts.flattenDiagnosticMessageText(diagnostic.messageText, " "),
        text: source.text.slice(start, start + (diagnostic.length ?? 0)),
      };
    });
    result.diagnostics.set(snippet.name, diagnostics);
    let usesContext = false;
    const imports: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) imports.push(node.moduleSpecifier.text);
      if (ts.isIdentifier(node)) {
        const declarations = checker.getSymbolAtLocation(node)?.declarations ?? [];
        if (declarations.some((declaration) => declaration.getSourceFile() === contextFile)) usesContext = true;
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    result.usesReaderContext.set(snippet.name, usesContext);
    result.imports.set(snippet.name, imports);
  }
  return result;
}

/** Whether TypeScript's problem is a name the snippet's fragment marker says it uses without defining. */
export function isAssumedName(diagnostic: SnippetDiagnostic, assumes: readonly string[]): boolean {
  return cannotFindName.has(diagnostic.code) && assumes.includes(diagnostic.text);
}

function format(diagnostic: ts.Diagnostic): string {
  return ts.flattenDiagnosticMessageText(diagnostic.messageText, " ");
}

/** The snippet as JavaScript node can run: its types removed. */
export function transpile(snippet: Snippet): string {
  return ts.transpileModule(snippet.code, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: false },
    fileName: snippet.language === "ts" ? "snippet.mts" : "snippet.mjs",
  }).outputText;
}

/** The output a snippet's comments promise: `console.log(…); // what it prints`, in order. */
export function promisedOutput(code: string): { lines: string[]; unannotated: number } {
  const calls = [...code.matchAll(/^\s*console\.log\(.*$/gm)].map((match) => match[0]);
  const annotated = calls.map((call) => /\);\s*\/\/ (.*)$/.exec(call)?.[1]);
  return { lines: annotated.filter((line) => line !== undefined), unannotated: annotated.filter((line) => line === undefined).length };
}
