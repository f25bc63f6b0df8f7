import { stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { sep } from "node:path";
import { Worker } from "node:worker_threads";
import picomatch from "picomatch";
import { ToolError, toAbortError, UsageError } from "../../errors.js";
import type { Tool } from "../../tools/tool.js";
import { walkFiles } from "../walk-files.js";
import { fileError, type Workspace } from "../workspace.js";
import { formatSize, plural } from "./file-text.js";

/** Limits of the {@link createGrepTool Grep tool}. */
export type GrepToolOptions = {
  /** Entries (lines, files or counts) shown when the call gives no `head_limit` (default 250). */
  defaultHeadLimit?: number | undefined;
  /** Larger files are not searched, and the output names them (default 50 MB). */
  maxFileBytes?: number | undefined;
  /**
   * Milliseconds the pattern may spend on one file (default 2,000): a file that takes longer is given up and
   * named in the output; after three such files the search stops. This is what bounds a backtracking pattern.
   */
  maxFileMilliseconds?: number | undefined;
  /** Threads that read and search files (default: the machine's parallelism, at most 4). */
  threads?: number | undefined;
  /**
   * Files the tool must leave out of its results, by absolute path: those a `Read(…)` deny rule covers
   * (`permissions.isReadDenied`), so that searching a folder never shows what reading the file would refuse.
   */
  isHidden?: ((path: string) => boolean) | undefined;
};

type OutputMode = "content" | "files_with_matches" | "count";

type GrepArguments = {
  pattern: string;
  path?: string | undefined;
  glob?: string | undefined;
  type?: string | undefined;
  output_mode?: OutputMode | undefined;
  "-i"?: boolean | undefined;
  "-n"?: boolean | undefined;
  "-A"?: number | undefined;
  "-B"?: number | undefined;
  "-C"?: number | undefined;
  head_limit?: number | undefined;
  multiline?: boolean | undefined;
};

/** Entries kept when `head_limit` is 0 ("no limit"): more would be cut by the registry anyway. */
const unlimitedEntries = 10_000;
/** Most characters of output (as Read's): the registry would cut a longer one without saying how to see the rest. */
const maxOutputCharacters = 40_000;
/** Shown lines are cut to this many characters, around the match. */
const maxColumns = 500;
/** Files where the pattern ran out of time before the search stops. */
const maxSlowFiles = 3;
/** Files sent to a search thread at once. */
const batchSize = 32;

/**
 * Claude Code's `Grep { pattern, path?, glob?, type?, output_mode?, -i?, -n?, -A?, -B?, -C?, head_limit?, multiline? }`:
 * searches file contents with a JavaScript regular expression, respecting .gitignore (nested ones and
 * `.git/info/exclude` too, see {@link walkFiles}) and skipping binary files. `output_mode` is `files_with_matches`
 * (the default: paths, most recently modified first), `content` (matching lines as `path:line:text`, with context
 * lines as `path-line-text` and `--` between groups) or `count` (matching lines per file). Output stops after
 * `head_limit` entries (default 250; 0 for no limit) with a note saying how many there were. `type` picks files
 * like ripgrep's `--type` (js, ts, py, rust, go, java, md, json…), `glob` like its `--glob`.
 *
 * Files are read and searched in worker threads, a literal part of the pattern first found in the raw bytes,
 * the pattern then run over the whole text, lines split only where it matched. The threads are what make a
 * catastrophic pattern harmless: a file that takes over `maxFileMilliseconds` is given up (its thread killed
 * and replaced) and named in the output; the call's signal (an abort or the tool's timeout) kills them all.
 * A leading `.*` is dropped (the same lines match; on a minified line it costs quadratic time). Read-only.
 * @example registry.add(createGrepTool(workspace))
 */
export function createGrepTool(workspace: Workspace, options: GrepToolOptions = {}): Tool {
  const defaultHeadLimit = positiveInteger("defaultHeadLimit", options.defaultHeadLimit ?? 250);
  const limits = {
    maxFileBytes: positiveInteger("maxFileBytes", options.maxFileBytes ?? 50 * 1024 * 1024),
    maxFileMilliseconds: positiveInteger("maxFileMilliseconds", options.maxFileMilliseconds ?? 2000),
    threads: positiveInteger("threads", options.threads ?? Math.min(availableParallelism(), 4)),
  };
  return {
    name: "Grep",
    description: [
      "Search file contents with a regular expression (JavaScript syntax, as in `new RegExp`: escape ( ) [ ] { } . * + ? | with a backslash to match them literally).",
      "Searches the workspace, or `path` (a folder or a file), skipping files ignored by .gitignore, version-control folders and binary files.",
      'Narrow the files with `glob` (e.g. "*.ts", "src/**/*.{ts,tsx}") or `type` (js, ts, py, rust, go, java, md, json…).',
      'output_mode: "files_with_matches" (default: the paths, most recently modified first), "content" (the matching lines, with line numbers',
      'and -A/-B/-C context lines) or "count" (matching lines per file). A match stays within one line unless multiline is true (then . also matches',
      `line breaks). Output stops after head_limit entries (default ${defaultHeadLimit}). Use this rather than grep or rg in Bash.`,
    ].join(" "),
    parameters: {
      type: "object",
      properties: {
        pattern: { type: "string", description: "The regular expression to search for (JavaScript syntax)." },
        path: { type: "string", description: "File or folder to search, absolute or relative to the workspace root. Default: the root." },
        glob: {
          type: "string",
          description: 'Only files matching this glob, e.g. "*.js" or "src/**/*.{ts,tsx}"; several separated by spaces; "!x" excludes.',
        },
        type: {
          type: "string",
          description: "Only files of this type: js, ts, py, rust, go, java, c, cpp, md, json, yaml, html, css, sh…",
        },
        output_mode: {
          type: "string",
          enum: ["content", "files_with_matches", "count"],
          description: 'What to show. Default "files_with_matches".',
        },
        "-i": { type: "boolean", description: "Ignore case." },
        "-n": { type: "boolean", description: 'Show line numbers (output_mode "content"). Default true.' },
        "-A": { type: "integer", minimum: 0, description: 'Lines of context after each match (output_mode "content").' },
        "-B": { type: "integer", minimum: 0, description: 'Lines of context before each match (output_mode "content").' },
        "-C": { type: "integer", minimum: 0, description: 'Lines of context before and after each match (output_mode "content").' },
        head_limit: {
          type: "integer",
          minimum: 0,
          description: `Show at most this many lines, files or counts (default ${defaultHeadLimit}; 0 for no limit).`,
        },
        multiline: { type: "boolean", description: "Let matches span lines (. matches line breaks too). Default false." },
      },
      required: ["pattern"],
    },
    readOnly: true,
    execute: (args, context) =>
      grep(workspace, args as GrepArguments, { ...limits, defaultHeadLimit, isHidden: options.isHidden }, context.signal),
  };
}

type GrepLimits = {
  maxFileBytes: number;
  maxFileMilliseconds: number;
  threads: number;
  defaultHeadLimit: number;
  isHidden: GrepToolOptions["isHidden"];
};

async function grep(workspace: Workspace, args: GrepArguments, limits: GrepLimits, signal: AbortSignal): Promise<string> {
  const mode = args.output_mode ?? "files_with_matches";
  const multiline = args.multiline === true;
  const pattern = compileSearchPattern(args.pattern, { ignoreCase: args["-i"] === true, multiline });
  const headLimit = args.head_limit === 0 ? unlimitedEntries : (args.head_limit ?? limits.defaultHeadLimit);
  const accepts = fileFilter(args.glob, args.type);
  const start = args.path === undefined ? workspace.root : await workspace.resolve(args.path);
  const info = await stat(start).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") throw new ToolError(`Path does not exist: ${workspace.display(start)}.`);
    throw fileError(error, `search ${workspace.display(start)}`);
  });
  if (!info.isDirectory() && !info.isFile())
    throw new ToolError(`${workspace.display(start)} is not a regular file or a folder (a device, socket or pipe); Grep searches files.`);
  const produce = info.isDirectory()
    ? (add: (path: string) => void) =>
        walkFiles({
          start,
          boundary: workspace.directories.find((folder) => start === folder || start.startsWith(folder + sep)) ?? workspace.root,
          signal,
          onFile: (file) => {
            if (accepts(file.relative) && !limits.isHidden?.(file.path)) add(file.path);
          },
        })
    : async (add: (path: string) => void) => add(start); // a file named explicitly is searched whatever its name
  const context = mode === "content" ? contextLines(args) : { before: 0, after: 0 };
  const collected: Collected = { files: [], keptEntries: 0, totalEntries: 0 };
  const report = await searchInThreads(
    produce,
    { ...pattern, ...context, mode, multiline, maxEntries: headLimit, maxFileBytes: limits.maxFileBytes, maxColumns },
    limits,
    signal,
    (file) => collect(collected, file, mode, headLimit),
  );
  const shown = (path: string) => workspace.display(path);
  const lines =
    mode === "files_with_matches"
      ? listFiles(collected.files, headLimit, shown)
      : mode === "count"
        ? listCounts(collected.files, headLimit, shown, multiline)
        : listContent(collected, headLimit, shown, args["-n"] !== false, context.before + context.after > 0);
  const notes = describeSkipped(report, collected.files.length === 0, args.pattern, multiline, limits, shown);
  return [...lines, ...notes].join("\n");
}

function positiveInteger(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`Grep tool option ${option} must be a positive integer, got ${value}.`);
  return value;
}

// ---------------------------------------------------------------------------------------------------------------
// The pattern

/** A pattern ready for the search threads. */
export type SearchPattern = {
  /** The regular expression's source, after the rewrites below. */
  source: string;
  /** Its flags: always `m` (`^` and `$` at line ends), `i` for -i, `s` for multiline, `u` when it compiles so. */
  flags: string;
  /** Texts every match contains (runs of plain characters, longest first): a file without one of them is not decoded. */
  literals: string[];
};

const posixClasses: Record<string, string> = {
  alnum: "a-zA-Z0-9",
  alpha: "a-zA-Z",
  digit: "0-9",
  lower: "a-z",
  upper: "A-Z",
  space: "\\s",
  word: "\\w",
  xdigit: "0-9a-fA-F",
  punct: "!-\\/:-@\\[-`{-~",
};

/**
 * Turns the model's pattern into a JavaScript regular expression: a leading inline flag group as ripgrep takes it
 * (`(?i)`, `(?s)`) becomes a flag, POSIX classes (`[[:alpha:]]`) become ranges, and outside multiline mode a
 * leading `.*` is dropped. Unicode mode when the pattern allows it (`\p{L}` works), else without (`\-` works).
 * Throws a ToolError saying what is wrong with an invalid pattern.
 */
export function compileSearchPattern(pattern: string, options: { ignoreCase: boolean; multiline: boolean }): SearchPattern {
  let source = pattern;
  let ignoreCase = options.ignoreCase;
  let dotAll = options.multiline;
  const inline = /^\(\?([imsU]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    ignoreCase ||= inline[1]?.includes("i") === true;
    dotAll ||= inline[1]?.includes("s") === true;
  }
  source = source.replace(/\[:([a-z]+):\]/g, (whole, name: string) => posixClasses[name] ?? whole);
  if (!dotAll) source = source.replace(/^\^?\.\*\??(?![*+?{])/, "");
  const flags = `m${ignoreCase ? "i" : ""}${dotAll ? "s" : ""}`;
  for (const candidate of [`${flags}u`, flags]) {
    try {
      new RegExp(source, candidate);
      return { source, flags: candidate, literals: ignoreCase ? [] : requiredLiterals(source) };
    } catch (error) {
      if (candidate === flags) {
        const reason = String((error as Error).message).replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "");
        throw new ToolError(
          `Invalid regular expression ${JSON.stringify(pattern)}: ${reason}. Grep takes JavaScript regular expressions: put a backslash before ( ) [ ] { } . * + ? | \\ ^ $ to match the character itself.`,
        );
      }
    }
  }
  throw new Error("unreachable");
}

/**
 * Runs of plain characters that every match must contain (two characters or more, the longest four, longest
 * first), or none when an alternation at the top makes every part optional. Groups, classes, escapes such as
 * `\w` and quantified characters end a run; `\.` and other escaped punctuation are plain characters.
 */
export function requiredLiterals(source: string): string[] {
  const runs: string[] = [];
  let run = "";
  const endRun = () => {
    if (run.length >= 2) runs.push(run);
    run = "";
  };
  for (let index = 0; index < source.length; ) {
    const char = source[index] as string;
    let atom: string | undefined;
    let next = index + 1;
    if (char === "\\") {
      const escaped = source[index + 1];
      if (escaped === undefined) return [];
      if (/[A-Za-z0-9]/.test(escaped)) next = skipEscape(source, index);
      else [atom, next] = [escaped, index + 2];
    } else if (char === "(" || char === "[") {
      next = char === "(" ? skipGroup(source, index) : skipClass(source, index);
      if (next === -1) return [];
    } else if (char === "|" || char === ")") return [];
    else if (!"^$.*+?{".includes(char)) atom = char;
    const quantifier = quantifierAt(source, next);
    if (quantifier?.optional) endRun();
    else if (atom !== undefined) run += atom;
    if (quantifier || atom === undefined) endRun();
    index = quantifier?.end ?? next;
  }
  endRun();
  return runs.sort((a, b) => b.length - a.length).slice(0, 4);
}

function quantifierAt(source: string, at: number): { optional: boolean; end: number } | undefined {
  const char = source[at];
  let end: number;
  if (char === "*" || char === "?" || char === "+") end = at + 1;
  else if (char === "{") {
    const braces = /^\{\d+(?:,\d*)?\}/.exec(source.slice(at, at + 24));
    if (!braces) return undefined;
    end = at + braces[0].length;
  } else return undefined;
  if (source[end] === "?") end += 1;
  return { optional: char !== "+", end };
}

function skipEscape(source: string, index: number): number {
  const kind = source[index + 1] as string;
  const closing = (open: string, close: string) =>
    source[index + 2] === open ? source.indexOf(close, index + 3) + 1 || source.length : index + 2;
  if (kind === "x") return index + 4;
  if (kind === "c") return index + 3;
  if (kind === "u") return source[index + 2] === "{" ? closing("{", "}") : index + 6;
  if (kind === "p" || kind === "P") return closing("{", "}");
  if (kind === "k") return closing("<", ">");
  let end = index + 2;
  if (/[0-9]/.test(kind)) while (/[0-9]/.test(source[end] ?? "")) end += 1;
  return end;
}

function skipGroup(source: string, index: number): number {
  let depth = 0;
  for (let at = index; at < source.length; at += 1) {
    const char = source[at];
    if (char === "\\") at += 1;
    else if (char === "[") {
      const end = skipClass(source, at);
      if (end === -1) return -1;
      at = end - 1;
    } else if (char === "(") depth += 1;
    else if (char === ")" && --depth === 0) return at + 1;
  }
  return -1;
}

function skipClass(source: string, index: number): number {
  for (let at = index + 1; at < source.length; at += 1) {
    if (source[at] === "\\") at += 1;
    else if (source[at] === "]") return at + 1;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------------------------
// Which files

/** ripgrep's file types (`rg --type-list`), the common ones, by extension. */
const fileTypes: Record<string, readonly string[]> = {
  js: ["js", "jsx", "mjs", "cjs"],
  ts: ["ts", "tsx", "mts", "cts"],
  py: ["py", "pyi"],
  rust: ["rs"],
  go: ["go"],
  java: ["java", "jsp"],
  kotlin: ["kt", "kts"],
  scala: ["scala", "sbt", "sc"],
  swift: ["swift"],
  c: ["c", "h"],
  cpp: ["cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "h", "inl"],
  cs: ["cs"],
  ruby: ["rb", "erb", "gemspec", "rake"],
  php: ["php"],
  lua: ["lua"],
  dart: ["dart"],
  elixir: ["ex", "exs", "eex", "heex"],
  haskell: ["hs", "lhs"],
  zig: ["zig"],
  sh: ["sh", "bash", "zsh", "fish"],
  md: ["md", "markdown", "mdx", "mkd"],
  json: ["json", "jsonc", "jsonl", "json5", "geojson"],
  yaml: ["yaml", "yml"],
  toml: ["toml"],
  xml: ["xml", "xsd", "xsl", "xslt", "svg"],
  html: ["html", "htm", "xhtml"],
  css: ["css", "scss", "sass", "less"],
  sql: ["sql"],
  txt: ["txt"],
  vue: ["vue"],
  svelte: ["svelte"],
  protobuf: ["proto"],
};

const typeAliases: Record<string, string> = {
  javascript: "js",
  typescript: "ts",
  python: "py",
  rs: "rust",
  golang: "go",
  kt: "kotlin",
  "c++": "cpp",
  csharp: "cs",
  rb: "ruby",
  bash: "sh",
  shell: "sh",
  markdown: "md",
  yml: "yaml",
  text: "txt",
  proto: "protobuf",
};

/** Whether a file (its path relative to the folder searched) passes `glob` and `type`. */
function fileFilter(glob: string | undefined, type: string | undefined): (relative: string) => boolean {
  const checks: ((relative: string) => boolean)[] = [];
  if (type !== undefined) {
    const name = type.trim().toLowerCase();
    const extensions = fileTypes[typeAliases[name] ?? name];
    if (!extensions)
      throw new ToolError(
        `Unknown file type ${JSON.stringify(type)}. Known types: ${Object.keys(fileTypes).join(", ")}. Or use glob, e.g. "*.${name}".`,
      );
    const wanted = new Set(extensions);
    checks.push((relative) => wanted.has(relative.slice(relative.lastIndexOf(".") + 1).toLowerCase()));
  }
  const globs = glob?.match(/(?:\{[^}]*\}|[^\s,{])+/g) ?? [];
  if (globs.length > 0) {
    const matcher = (pattern: string) => picomatch(pattern, { dot: true, basename: !pattern.includes("/") });
    const included = globs.filter((pattern) => !pattern.startsWith("!")).map(matcher);
    const excluded = globs.filter((pattern) => pattern.startsWith("!")).map((pattern) => matcher(pattern.slice(1)));
    checks.push(
      (relative) => (included.length === 0 || included.some((test) => test(relative))) && !excluded.some((test) => test(relative)),
    );
  }
  return (relative) => checks.every((check) => check(relative));
}

function contextLines(args: GrepArguments): { before: number; after: number } {
  const both = args["-C"] ?? 0;
  return { before: args["-B"] ?? both, after: args["-A"] ?? both };
}

// ---------------------------------------------------------------------------------------------------------------
// Output

/** A line of content output: its number, ":" for a match, "-" for context, "--" between groups; its text. */
type Entry = [lineNumber: number, kind: ":" | "-" | "--", text: string];

/** What a search thread found in one file. */
type FoundFile = { path: string; mtimeMs: number; count: number; entries?: Entry[]; entryCount?: number; cutLines?: boolean };

/** What the search found, as much of it as can still be shown. */
type Collected = { files: FoundFile[]; keptEntries: number; totalEntries: number };

/**
 * Adds a file to what is kept. Content output is in path order and stops at `limit` lines, so only the files that
 * can still be shown are kept: a pattern matching a million lines costs a limit's worth of memory.
 */
function collect(collected: Collected, file: FoundFile, mode: OutputMode, limit: number): void {
  const { files } = collected;
  if (mode !== "content") return void files.push(file);
  collected.totalEntries += file.entryCount ?? 0;
  let low = 0;
  let high = files.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((files[middle] as FoundFile).path < file.path) low = middle + 1;
    else high = middle;
  }
  files.splice(low, 0, file);
  collected.keptEntries += file.entries?.length ?? 0;
  for (let last = files.at(-1) as FoundFile; files.length > 1; last = files.at(-1) as FoundFile) {
    const without = collected.keptEntries - (last.entries?.length ?? 0);
    if (without < limit) break;
    collected.keptEntries = without;
    files.pop();
  }
}

function listFiles(files: FoundFile[], limit: number, shown: (path: string) => string): string[] {
  if (files.length === 0) return ["No files found."];
  files.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1));
  const paths = files.map((file) => shown(file.path));
  const count = fitting(paths, limit);
  const lines = [`Found ${plural(files.length, "file")}`, ...paths.slice(0, count)];
  if (files.length > count)
    lines.push(
      `[Showing the ${count} most recently modified of ${files.length.toLocaleString("en-US")} files${budgetNote(count, limit)}; narrow the search with path, glob or type, or raise head_limit.]`,
    );
  return lines;
}

function listCounts(files: FoundFile[], limit: number, shown: (path: string) => string, multiline: boolean): string[] {
  if (files.length === 0) return ["No matches found."];
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  const total = files.reduce((sum, file) => sum + file.count, 0);
  const what = multiline ? `${total.toLocaleString("en-US")} match${total === 1 ? "" : "es"}` : plural(total, "matching line");
  const counts = files.map((file) => `${shown(file.path)}:${file.count}`);
  const count = fitting(counts, limit);
  const lines = counts.slice(0, count);
  if (files.length > count)
    lines.push(
      `[Showing ${count} of ${files.length.toLocaleString("en-US")} files, in path order${budgetNote(count, limit)}; raise head_limit to see more.]`,
    );
  lines.push(`Found ${what} in ${plural(files.length, "file")}.`);
  return lines;
}

function listContent(
  collected: Collected,
  limit: number,
  shown: (path: string) => string,
  numbers: boolean,
  withContext: boolean,
): string[] {
  const lines: string[] = [];
  let count = 0;
  let characters = 0;
  files: for (const file of collected.files) {
    const path = shown(file.path);
    if (withContext && lines.length > 0) lines.push("--");
    for (const [lineNumber, kind, text] of file.entries ?? []) {
      const line = kind === "--" ? "--" : numbers ? `${path}${kind}${lineNumber}${kind}${text}` : `${path}${kind}${text}`;
      characters += line.length + 1;
      if (count >= limit || (count > 0 && characters > maxOutputCharacters)) break files;
      count += 1;
      lines.push(line);
    }
  }
  if (lines.at(-1) === "--") lines.pop();
  if (lines.length === 0) return ["No matches found."];
  if (collected.totalEntries > count)
    lines.push(
      `[Showing the first ${count} of ${collected.totalEntries.toLocaleString("en-US")} lines, in path order${budgetNote(count, limit)}; narrow the search with path, glob or type, or raise head_limit.]`,
    );
  if (collected.files.some((file) => file.cutLines))
    lines.push(`[Lines longer than ${maxColumns} characters are shown in part, around the match; Read shows a whole line.]`);
  return lines;
}

/** How many of `lines` to show: at most `limit`, and no more than fit in {@link maxOutputCharacters} (one at least). */
function fitting(lines: readonly string[], limit: number): number {
  let characters = 0;
  const most = Math.min(limit, lines.length);
  for (let index = 0; index < most; index += 1) {
    characters += (lines[index] as string).length + 1;
    if (characters > maxOutputCharacters) return Math.max(index, 1);
  }
  return most;
}

function budgetNote(count: number, limit: number): string {
  return count < limit ? ` (output is limited to ${maxOutputCharacters.toLocaleString("en-US")} characters)` : "";
}

/** Notes on what was not searched, and why a search found nothing when the pattern explains it. */
function describeSkipped(
  report: SearchReport,
  nothingFound: boolean,
  pattern: string,
  multiline: boolean,
  limits: GrepLimits,
  shown: (path: string) => string,
): string[] {
  const notes: string[] = [];
  const list = (paths: string[]) => paths.slice(0, 5).map(shown).join(", ") + (paths.length > 5 ? ", …" : "");
  if (report.tooBig.length > 0)
    notes.push(
      `[Not searched: ${plural(report.tooBig.length, "file")} larger than ${formatSize(limits.maxFileBytes)} (${list(report.tooBig)}). Search them with Bash (grep -n) if you need to.]`,
    );
  if (report.slow.length > 0) {
    const seconds = `${(limits.maxFileMilliseconds / 1000).toLocaleString("en-US")} s`;
    const what = report.stopped
      ? `The search stopped, so the results are incomplete: the pattern took over ${seconds} on each of ${list(report.slow)}.`
      : `Gave up on ${list(report.slow)}: the pattern took over ${seconds} there.`;
    notes.push(
      `[${what} The pattern backtracks on long lines: avoid nested quantifiers such as (a+)+ and .* between common words, or search fewer files with path, glob or type.]`,
    );
  }
  if (nothingFound && !multiline && /\\n|\n/.test(pattern))
    notes.push("[The pattern contains a line break, which never matches within one line: pass multiline: true to match across lines.]");
  return notes;
}

// ---------------------------------------------------------------------------------------------------------------
// The search threads

/** What every search thread is told. */
type SearchSettings = SearchPattern & {
  mode: OutputMode;
  multiline: boolean;
  before: number;
  after: number;
  /** Content lines kept per file (all are counted). */
  maxEntries: number;
  maxFileBytes: number;
  maxColumns: number;
};

type SearchReport = { tooBig: string[]; slow: string[]; stopped: boolean };

type Batch = { id: number; files: string[] };
type ThreadResult = Omit<FoundFile, "path"> & { index: number; tooBig?: number };
type Searcher = { worker: Worker; progress: Int32Array; batches: Batch[]; completed: number; seen: number; since: number };

/**
 * Searches the files `produce` adds, in worker threads: each is sent batches of paths (two at most ahead) and
 * answers with what it found. A thread counts the files it has finished in shared memory; a watchdog gives up a
 * file (kills the thread, starts another, sends the rest again) when that count stands still for longer than
 * `maxFileMilliseconds`. The signal kills every thread at once.
 */
function searchInThreads(
  produce: (add: (path: string) => void) => Promise<void>,
  settings: SearchSettings,
  limits: Pick<GrepLimits, "threads" | "maxFileMilliseconds">,
  signal: AbortSignal,
  onFound: (file: FoundFile) => void,
): Promise<SearchReport> {
  if (signal.aborted) return Promise.reject(toAbortError(signal));
  return new Promise((resolve, reject) => {
    const report: SearchReport = { tooBig: [], slow: [], stopped: false };
    const queue: string[] = [];
    const searchers: Searcher[] = [];
    let produced = false;
    let settled = false;
    let nextBatch = 0;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      clearInterval(watchdog);
      signal.removeEventListener("abort", onAbort);
      for (const searcher of searchers) void searcher.worker.terminate();
      if (error === undefined) resolve(report);
      else reject(error);
    };
    const onAbort = () => finish(toAbortError(signal));
    const start = () => {
      const progress = new SharedArrayBuffer(4);
      Atomics.store(new Int32Array(progress), 0, -1); // -1 while the thread starts up
      const worker = new Worker(searchThreadSource, { eval: true, workerData: { ...settings, progress } });
      const searcher: Searcher = { worker, progress: new Int32Array(progress), batches: [], completed: 0, seen: 0, since: 0 };
      worker.on("message", (message: { id: number; results: ThreadResult[] }) => receive(searcher, message));
      worker.on("error", (error) => finish(new ToolError(`The search failed: ${error.message}`, { cause: error })));
      searchers.push(searcher);
    };
    const receive = (searcher: Searcher, { id, results }: { id: number; results: ThreadResult[] }) => {
      if (settled || !searchers.includes(searcher) || searcher.batches[0]?.id !== id) return;
      const batch = searcher.batches.shift() as Batch;
      searcher.completed += batch.files.length;
      for (const { index, tooBig, ...found } of results) {
        const path = batch.files[index] as string;
        if (tooBig !== undefined) report.tooBig.push(path);
        else onFound({ ...found, path });
      }
      dispatch();
    };
    const dispatch = () => {
      if (settled) return;
      if (searchers.length < limits.threads && (searchers.length === 0 ? queue.length > 0 : queue.length > batchSize)) start();
      for (const searcher of searchers) {
        while (searcher.batches.length < 2 && (queue.length >= batchSize || (produced && queue.length > 0))) {
          const batch = { id: nextBatch++, files: queue.splice(-batchSize) };
          if (searcher.batches.length === 0) [searcher.seen, searcher.since] = [Atomics.load(searcher.progress, 0), performance.now()];
          searcher.batches.push(batch);
          searcher.worker.postMessage(batch);
        }
      }
      if (produced && queue.length === 0 && searchers.every((searcher) => searcher.batches.length === 0)) finish();
    };
    const giveUp = (searcher: Searcher, done: number) => {
      const files = searcher.batches.flatMap((batch) => batch.files);
      const stuck = done - searcher.completed;
      report.slow.push(files[stuck] as string);
      queue.push(...files.filter((_, index) => index !== stuck));
      searchers.splice(searchers.indexOf(searcher), 1);
      void searcher.worker.terminate();
      if (report.slow.length >= maxSlowFiles) {
        report.stopped = true;
        finish();
      } else dispatch();
    };
    const watchdog = setInterval(
      () => {
        const now = performance.now();
        for (const searcher of [...searchers]) {
          const done = Atomics.load(searcher.progress, 0);
          if (searcher.batches.length === 0 || done < 0) continue;
          if (done !== searcher.seen) [searcher.seen, searcher.since] = [done, now];
          else if (now - searcher.since > limits.maxFileMilliseconds) giveUp(searcher, done);
        }
      },
      Math.min(250, limits.maxFileMilliseconds / 4),
    );
    signal.addEventListener("abort", onAbort, { once: true });
    produce((path) => {
      queue.push(path);
      if (queue.length >= batchSize) dispatch();
    }).then(() => {
      produced = true;
      dispatch();
    }, finish);
  });
}

/**
 * The search thread's program (run with `eval`, so that it needs no file of its own next to the compiled one):
 * reads each file with synchronous calls (no thread-pool round trips), skips binary ones, looks for the literal in
 * the bytes, decodes (latin1 when the bytes are ASCII: faster, and the same text) and runs the pattern.
 */
const searchThreadSource = String.raw`
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const settings = workerData;
const progress = new Int32Array(settings.progress);
const regex = new RegExp(settings.source, settings.flags + "g");
const lineRegex = new RegExp(settings.source, settings.flags);
const literals = settings.literals.map((literal) => Buffer.from(literal, "utf8"));
const content = settings.mode === "content";
const firstOnly = settings.mode === "files_with_matches";
const head = Buffer.allocUnsafe(65536);
let done = 0;
Atomics.store(progress, 0, 0); // started: the watchdog's clock runs from now, not from the thread's start-up

parentPort.on("message", (batch) => {
  const results = [];
  for (let index = 0; index < batch.files.length; index++) {
    const result = searchFile(batch.files[index]);
    if (result !== undefined) {
      result.index = index;
      results.push(result);
    }
    Atomics.store(progress, 0, ++done);
  }
  parentPort.postMessage({ id: batch.id, results });
});

function searchFile(path) {
  const file = readText(path);
  try {
    if (file === undefined || file.tooBig !== undefined) return file;
    const text = file.text;
    const found = settings.multiline ? matchSpans(text) : matchLines(text);
    if (found.count === 0) return undefined;
    const result = { mtimeMs: firstOnly ? fs.fstatSync(file.fd).mtimeMs : 0, count: found.count };
    if (content) describeLines(text, found.lines, result);
    return result;
  } finally {
    if (file !== undefined && file.tooBig === undefined) fs.closeSync(file.fd);
  }
}

// The file's text, or undefined for what is not searched (unreadable, empty, binary, without a literal). Three
// calls for most files: open, read (a short read is the end), close; fstat only for a match's date.
function readText(path) {
  let fd;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK); // a FIFO must not block the thread
  } catch {
    return undefined;
  }
  let kept = false;
  try {
    const first = fs.readSync(fd, head, 0, head.length, 0);
    let bytes = head.subarray(0, first);
    if (first === 0 || bytes.includes(0)) return undefined;
    if (first === head.length) {
      const size = fs.fstatSync(fd).size;
      if (size > settings.maxFileBytes) return { tooBig: size };
      let whole = Buffer.allocUnsafe(Math.max(size, first) + 1);
      bytes.copy(whole);
      let length = first;
      for (;;) {
        if (length === whole.length) {
          if (length > settings.maxFileBytes) return { tooBig: length }; // it grows while being read
          const larger = Buffer.allocUnsafe(whole.length * 2);
          whole.copy(larger);
          whole = larger;
        }
        const read = fs.readSync(fd, whole, length, whole.length - length, length);
        if (read === 0) break;
        length += read;
      }
      bytes = whole.subarray(0, length);
      if (bytes.indexOf(0, first) !== -1) return undefined;
    }
    for (const literal of literals) if (bytes.indexOf(literal) === -1) return undefined;
    kept = true;
    return { text: bytes.toString("utf8"), fd };
  } catch {
    return undefined;
  } finally {
    if (!kept) fs.closeSync(fd);
  }
}

// Line mode: the regular expression runs over the whole text, and a match is kept when it lies within one line
// (else that line is tried alone). The search goes on from the next line: each line counts once. In a text with
// "\r" (or U+2028, U+2029), which JavaScript's ^ and $ also take for line ends, every line is tried alone,
// without its final "\r": "b$" matches "b\r\n", "^$" does not.
function matchLines(text) {
  const lines = [];
  let count = 0;
  let from = 0;
  let otherBreaks;
  while (from < text.length) {
    regex.lastIndex = from;
    const match = regex.exec(text);
    if (match === null) break;
    const at = match.index;
    if (at === text.length && text.charCodeAt(at - 1) === 10) break; // after the last line break: no line there
    const start = at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
    let end = text.indexOf("\n", at);
    if (end === -1) end = text.length;
    let hit = at;
    otherBreaks ??= /[\r\u2028\u2029]/.test(text);
    if (at + match[0].length > end || otherBreaks) {
      const alone = lineRegex.exec(text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end));
      hit = alone === null ? -1 : start + alone.index;
    }
    if (hit !== -1) {
      count++;
      if (content) lines.push({ start, end, at: hit });
      if (firstOnly) break;
    }
    from = end + 1;
  }
  return { count, lines };
}

// Multiline mode: matches may span lines; each counts once, and every line it touches is shown.
function matchSpans(text) {
  const lines = [];
  let count = 0;
  let lastStart = -1;
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    const at = match.index;
    if (at === text.length && at > 0 && text.charCodeAt(at - 1) === 10) break;
    count++;
    if (firstOnly) break;
    if (match[0] === "") regex.lastIndex++;
    if (!content) continue;
    const last = at + Math.max(match[0].length - 1, 0);
    let start = at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
    while (start <= last && start <= text.length) {
      let end = text.indexOf("\n", start);
      if (end === -1) end = text.length;
      if (start > lastStart) lines.push({ start, end, at: Math.max(start, at) });
      lastStart = start;
      start = end + 1;
    }
  }
  return { count, lines };
}

// The lines to print, with their numbers and context, as [line number, ":" (match) or "-" (context), text];
// [0, "--", ""] separates groups that are not adjacent. Only the first maxEntries are kept, all are counted.
function describeLines(text, lines, result) {
  const entries = [];
  let total = 0;
  const push = (lineNumber, kind, start, end, at) => {
    total++;
    if (entries.length < settings.maxEntries) entries.push([lineNumber, kind, kind === "--" ? "" : show(text, start, end, at, result)]);
  };
  let position = 0;
  let lineNumber = 1;
  for (const line of lines) {
    for (let next = text.indexOf("\n", position); next !== -1 && next < line.start; next = text.indexOf("\n", position)) {
      lineNumber++;
      position = next + 1;
    }
    line.number = lineNumber;
  }
  const withContext = settings.before > 0 || settings.after > 0;
  let printed = 0;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    const from = Math.max(line.number - settings.before, printed + 1, 1);
    if (withContext && printed > 0 && from > printed + 1) push(0, "--");
    const before = [];
    for (let number = line.number - 1, start = line.start; number >= from; number--) {
      const previousStart = start >= 2 ? text.lastIndexOf("\n", start - 2) + 1 : 0;
      before.push([number, previousStart, start - 1]);
      start = previousStart;
    }
    for (let k = before.length - 1; k >= 0; k--) push(before[k][0], "-", before[k][1], before[k][2], before[k][1]);
    push(line.number, ":", line.start, line.end, line.at);
    printed = line.number;
    const next = lines[index + 1];
    const until = Math.min(line.number + settings.after, next === undefined ? Number.MAX_SAFE_INTEGER : next.number - 1);
    for (let number = line.number + 1, start = line.end + 1; number <= until && start < text.length; number++) {
      let end = text.indexOf("\n", start);
      if (end === -1) end = text.length;
      push(number, "-", start, end, start);
      printed = number;
      start = end + 1;
    }
  }
  result.entries = entries;
  result.entryCount = total;
}

// A line as shown: without its "\r"; a long one cut to maxColumns characters around "at".
function show(text, start, end, at, result) {
  if (end > start && text.charCodeAt(end - 1) === 13) end--;
  if (end - start <= settings.maxColumns) return text.slice(start, end);
  result.cutLines = true;
  const from = Math.max(start, Math.min(at - 100, end - settings.maxColumns));
  const to = Math.min(end, from + settings.maxColumns);
  return (from > start ? "…" : "") + text.slice(from, to) + (to < end ? "…" : "");
}
`;
