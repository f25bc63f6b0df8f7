import { realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { UsageError } from "../../errors.js";
import { type MemoryFileLocation, type MemoryLocationOptions, memoryFileLocations } from "./memory-file-paths.js";
import { findMemoryImports, type ImportBounds, importLocation, maxImportDepth } from "./memory-imports.js";
import { type MemoryFile, readMemoryFile } from "./read-memory-file.js";

/** Settings of {@link loadProjectMemory}: where to look, and how much of a file to keep. */
export type ProjectMemoryOptions = MemoryLocationOptions & {
  /** Characters kept of each file (default 30,000, about 7,500 tokens); a longer file is cut with a note. */
  maxFileCharacters?: number | undefined;
  /** The home directory, for `@~/…` imports and the bound of a user file's imports (default: the user's). */
  home?: string | undefined;
  /** A Read deny rule's test (`permissions.isReadDenied`): a memory file's `@path` import of a denied path is refused. */
  isReadDenied?: ((path: string) => boolean) | undefined;
};

/** The project memory as loaded: its files, and the system prompt section made of them. */
export type ProjectMemory = {
  /** The files found, in the order they are read (unreadable ones included, with their `error`). */
  readonly files: readonly MemoryFile[];
  /** The system prompt section: every file's text under its path as a heading; "" when there is none. */
  readonly text: string;
  /** One line per `@path` import that was not read (missing, outside its bounds, denied, too deep), naming the file that asked. */
  readonly warnings: readonly string[];
};

/** Default of `maxFileCharacters`. */
export const defaultMaxMemoryFileCharacters = 30_000;

/**
 * Loads the memory files — `AGENTS.md` (the cross-tool convention) and `MINAGENT.md` — from `~/.minagent/`, then
 * from the project root and every directory below it down to the working directory, and makes the system prompt
 * section of them ({@link formatProjectMemory}). A file reached twice (a symbolic link) is read once; one whose real
 * path is outside the project root (a user file: outside the user's folder) is not read, but listed with an `error`.
 *
 * A line's `@path` imports another file (relative to the importing file, `@~/` from home), read right after the file
 * that names it, up to {@link maxImportDepth} imports deep, each file once: a project file may import from the project
 * and the user's own folders (`~/.claude`, `~/.minagent`), a user file from the home directory; a Read deny rule
 * (`isReadDenied`) keeps a path out. An import that is not read is one line in `warnings`, never an error.
 * @example
 * const memory = await loadProjectMemory({ root: workspace.root, cwd: process.cwd() });
 * const system = `${codingSystemPrompt({ workspace })}\n\n${memory.text}`;
 */
export async function loadProjectMemory(options: ProjectMemoryOptions): Promise<ProjectMemory> {
  const maxCharacters = options.maxFileCharacters ?? defaultMaxMemoryFileCharacters;
  if (!Number.isInteger(maxCharacters) || maxCharacters < 1)
    throw new UsageError(`maxFileCharacters must be a positive integer, got ${maxCharacters}.`);
  const home = options.home ?? homedir();
  const bounds: ImportBounds = {
    root: options.root,
    home,
    userFolders: [
      ...(options.claudeDirectory === undefined ? [] : [options.claudeDirectory]),
      ...(options.userDirectory === false ? [] : [options.userDirectory ?? join(home, ".minagent")]),
    ],
    isReadDenied: options.isReadDenied,
  };
  const files: MemoryFile[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  // Reads a file, then what it imports right after it (depth first, so an import stands next to the text naming it).
  const visit = async (location: MemoryFileLocation, depth: number, importedAs?: { by: string; written: string }): Promise<void> => {
    const file = await readMemoryFile(location, maxCharacters);
    const importedBy = importedAs?.by;
    if (!file) {
      if (importedAs) warnings.push(`${importedAs.by} imports @${importedAs.written}, which does not exist: the import is skipped.`);
      return;
    }
    // A file that was not read is listed each time it is met (two links out may share a target).
    if (file.error === undefined) {
      const real = await realpath(file.path).catch(() => file.path);
      if (seen.has(real)) return;
      seen.add(real);
    }
    files.push(importedBy === undefined ? file : { ...file, importedBy });
    if (file.error !== undefined) return;
    for (const target of findMemoryImports(file.text, file.path, home)) {
      if (depth === maxImportDepth) {
        warnings.push(`${file.path} imports @${target.written}, deeper than ${maxImportDepth} imports: the import is skipped.`);
        continue;
      }
      const place = importLocation(target, location.scope, bounds);
      if ("refused" in place) warnings.push(`${file.path} imports @${target.written}, which is not read: ${place.refused}.`);
      else await visit(place.location, depth + 1, { by: file.path, written: target.written });
    }
  };
  for (const location of memoryFileLocations(options)) await visit(location, 0);
  return { files, text: formatProjectMemory(files), warnings };
}

/**
 * The system prompt section of memory files: a short preamble, then each file that has text under its path as a
 * heading, in the order given (most general first). Unreadable and empty files are left out.
 */
export function formatProjectMemory(files: readonly MemoryFile[]): string {
  const shown = files.filter((file) => file.error === undefined && file.text.trim() !== "");
  if (shown.length === 0) return "";
  const sections = shown.map((file) => `## ${file.path}${file.importedBy ? ` (imported by ${file.importedBy})` : ""}\n\n${file.text}`);
  return [
    "# Project memory",
    "",
    "Instructions kept in memory files (CLAUDE.md, AGENTS.md, MINAGENT.md), most general first: the user's own, then the project's from its root down to the working directory. Follow them; where two disagree, the later, more specific one wins.",
    "",
    sections.join("\n\n"),
  ].join("\n");
}

/** What `/memory` shows of a file. */
export type MemoryFileSummary = Pick<MemoryFile, "path" | "scope" | "bytes" | "truncated" | "error" | "importedBy">;

/**
 * The memory files as they are on disk now, with their sizes, for a `/memory` command (read afresh: a file edited
 * since the session started shows its new size; the model sees the new text after the next compaction or session).
 */
export async function listMemoryFiles(options: ProjectMemoryOptions): Promise<MemoryFileSummary[]> {
  const { files } = await loadProjectMemory(options);
  return files.map(({ path, scope, bytes, truncated, error, importedBy }) => ({
    path,
    scope,
    bytes,
    truncated,
    ...(error !== undefined && { error }),
    ...(importedBy !== undefined && { importedBy }),
  }));
}
