import { stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { sep } from "node:path";
import type { Tool } from "../../../engine.js";
import { ToolError, UsageError } from "../../../errors.js";
import { walkFiles } from "../../walk-files.js";
import { fileError, type Workspace } from "../../workspace.js";
import { fileFilter } from "./file-types.js";
import { type Collected, collect, describeSkipped, listContent, listCounts, listFiles, maxColumns } from "./output.js";
import { compileSearchPattern } from "./pattern.js";
import type { OutputMode } from "./protocol.js";
import { searchInThreads } from "./search-pool.js";

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

/**
 * Claude Code's `Grep { pattern, path?, glob?, type?, output_mode?, -i?, -n?, -A?, -B?, -C?, head_limit?, multiline? }`:
 * searches file contents with a JavaScript regular expression, respecting .gitignore (nested ones and
 * `.git/info/exclude` too, see {@link walkFiles}) and skipping binary files. `output_mode` is `files_with_matches`
 * (the default: paths, most recently modified first), `content` (matching lines as `path:line:text`, with context
 * lines as `path-line-text` and `--` between groups) or `count` (matching lines per file). Output stops after
 * `head_limit` entries (default 250; 0 for no limit) with a note saying how many there were. `type` picks files
 * like ripgrep's `--type` (js, ts, py, rust, go, java, md, json…), `glob` like its `--glob`.
 *
 * Files are read and searched in worker threads (see {@link searchInThreads}), a literal part of the pattern first found in the raw bytes,
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
      "Searches the workspace, or `path` (a folder or a file), skipping files ignored by .gitignore (or .ignore), version-control folders and binary files.",
      'Narrow the files with `glob` (e.g. "*.ts", "src/**/*.{ts,tsx}") or `type` (js, ts, py, rust, go, java, md, json…).',
      'output_mode: "files_with_matches" (default: the paths, most recently modified first), "content" (the matching lines, with line numbers',
      'and -A/-B/-C context lines) or "count" (matching lines per file). A match stays within one line unless multiline is true (then . also matches',
      `line breaks). Output stops after head_limit entries (default ${defaultHeadLimit}). Use this rather than grep or rg in Bash.`,
    ].join(" "),
    compileOnFirstCall: true,
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

function contextLines(args: GrepArguments): { before: number; after: number } {
  const both = args["-C"] ?? 0;
  return { before: args["-B"] ?? both, after: args["-A"] ?? both };
}
