import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { MemoryFileLocation, MemoryScope } from "./memory-file-paths.js";

/** How many imports deep a memory file may reach (a file imported by an imported file is depth 2), as in Claude Code. */
export const maxImportDepth = 5;

/** Where an `@path` import may lead, and who may not be read. */
export type ImportBounds = {
  /** The project root: a project file imports from inside it. */
  root: string;
  /** The home directory, for `@~/…`, and where a user file may import from. */
  home: string;
  /**
   * The user's own configuration folders (`~/.claude`, `~/.minagent`): a project file may import from them too —
   * Claude Code's way of keeping personal instructions for a project out of its repository.
   */
  userFolders: readonly string[];
  /** A Read deny rule's test: a denied path is not imported (an `@.env` must not carry the secrets into the prompt). */
  isReadDenied?: ((path: string) => boolean) | undefined;
};

/** One `@path` import found in a memory file: the path as written and where it resolves. */
export type MemoryImport = { written: string; path: string };

/**
 * The `@path` imports of a memory file's text, in order, resolved against the file's folder (`@~/` against the home
 * directory; an absolute path as it is). An import is `@` at the start of a line or after a space, followed by a
 * path; text in fenced code blocks and in `inline code` is not read for imports, so examples stay examples.
 * Trailing punctuation (`.`, `,`, `;`, `:`, `)`) is not part of the path.
 */
export function findMemoryImports(text: string, file: string, home: string = homedir()): MemoryImport[] {
  const imports: MemoryImport[] = [];
  let fence: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker;
      else if (marker.startsWith(fence)) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const prose = line.replace(/`[^`]*`/g, " ");
    for (const match of prose.matchAll(/(?:^|\s)@((?:~\/|\.{1,2}\/|\/)?[^\s@`]+)/g)) {
      const written = (match[1] ?? "").replace(/[.,;:)\]]+$/, "");
      if (written === "" || written === "~") continue;
      const path = written.startsWith("~/") ? join(home, written.slice(2)) : resolve(dirname(file), written);
      imports.push({ written, path });
    }
  }
  return imports;
}

/**
 * Where an import may be read from, as a {@link MemoryFileLocation} (its `folder` is the one its real path must stay
 * in), or why it may not: a project file imports from the project or the user's configuration folders, a user file
 * from anywhere in the home directory; a Read deny rule keeps a path out either way.
 */
export function importLocation(
  target: MemoryImport,
  scope: MemoryScope,
  bounds: ImportBounds,
): { location: MemoryFileLocation } | { refused: string } {
  // The real path too: a link must not carry a denied file (`docs/env.md -> ../.env`) into the prompt.
  const real = realPathOf(target.path);
  for (const path of new Set([target.path, real])) if (bounds.isReadDenied?.(path)) return { refused: `a Read deny rule covers ${path}` };
  const folders = scope === "project" ? [bounds.root, ...bounds.userFolders] : [bounds.home];
  const folder = folders.map((candidate) => resolve(candidate)).find((candidate) => isWithin(candidate, target.path));
  // From the person's own folders a project file may import notes only: Markdown, and none of minagent's records
  // (settings, credentials, MCP configuration, other projects' sessions), which a repository must not reach.
  if (scope === "project" && folder !== undefined && folder !== resolve(bounds.root) && !isUserNote(folder, real))
    return { refused: `a project's memory file may import only Markdown notes from ${folder}, not ${target.path}` };
  const folderName =
    folder === resolve(bounds.root) ? "the project root" : folder === resolve(bounds.home) ? "the home directory" : "the user's folder";
  if (folder === undefined) {
    const where =
      scope === "project" ? `the project (${bounds.root}) or ${bounds.userFolders.join(", ")}` : `the home directory (${bounds.home})`;
    return { refused: `${target.path} is outside ${where}` };
  }
  return { location: { path: target.path, scope, folder, folderName } };
}

/** Whether `path` (real) in the person's folder is a note a project may import: a `.md` file outside minagent's records. */
function isUserNote(folder: string, path: string): boolean {
  const inside = relative(folder, path).split(sep);
  return path.endsWith(".md") && !["projects", "session-locks", "sessions", "todos", "shell-snapshots"].includes(inside[0] ?? "");
}

/** The path with symbolic links followed, or as given when it does not exist (yet). */
function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function isWithin(folder: string, path: string): boolean {
  const inside = relative(folder, path);
  return inside !== "" && !inside.startsWith("..") && !isAbsolute(inside);
}
