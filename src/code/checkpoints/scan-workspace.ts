import ignore from "ignore";
import { walkFiles } from "../walk-files.js";
import type { ObservedChange, WorkspaceManifest } from "./workspace-manifest.js";

/** Folders left out of checkpoints by default besides what the project ignores: installed packages and caches. */
export const defaultCheckpointExclusions: readonly string[] = [
  "node_modules/",
  ".venv/",
  "venv/",
  "__pycache__/",
  ".pytest_cache/",
  ".mypy_cache/",
  ".tox/",
  ".next/",
  ".turbo/",
  ".gradle/",
];

/** What a scan walks: the folders, what it leaves out, and the most files it takes on. */
export type ScanOptions = {
  /** Absolute folders: the workspace root and the added directories. */
  roots: readonly string[];
  /** gitignore-style patterns left out, relative to each root (default {@link defaultCheckpointExclusions}). */
  exclude: readonly string[];
  /** Whether the project's ignore files (.gitignore, .git/info/exclude) leave files out too. */
  gitignore: boolean;
  /** A workspace with more files than this is not scanned (a scan would cost too much): `tooManyFiles`. */
  maxFiles: number;
};

/** What a scan found: the files that changed since the manifest's last look, and how many it walked. */
export type ScanResult = { changes: ObservedChange[]; files: number; tooManyFiles: boolean };

/**
 * Walks the roots (the project's ignore files and the exclusions applied, symbolic links not followed), compares
 * each file's metadata with the manifest's, and reads only those that differ, or are new; files the manifest
 * knows that the walk did not meet (deleted, or tracked although excluded because a file tool changed them) are
 * looked at one by one. The manifest ends up current, every new content in the blob store.
 */
export async function scanWorkspace(manifest: WorkspaceManifest, options: ScanOptions): Promise<ScanResult> {
  const excluded = ignore({ ignorecase: false }).add([...options.exclude]);
  const exclude = (relative: string, isFolder: boolean) => excluded.ignores(isFolder ? `${relative}/` : relative);
  const walked = new Set<string>();
  let tooManyFiles = false;
  for (const root of options.roots) {
    const controller = new AbortController();
    await walkFiles({
      start: root,
      boundary: root,
      exclude,
      gitignore: options.gitignore,
      signal: controller.signal,
      onFile: (file) => {
        walked.add(file.path);
        if (walked.size > options.maxFiles && !tooManyFiles) {
          tooManyFiles = true;
          controller.abort();
        }
      },
    }).catch((error: unknown) => {
      if (!tooManyFiles) throw error;
    });
    if (tooManyFiles) return { changes: [], files: walked.size, tooManyFiles };
  }
  const toLook: string[] = [];
  for (const path of walked) if (manifest.needsLook(path)) toLook.push(path);
  for (const path of manifest.paths()) if (!walked.has(path)) toLook.push(path);
  const changes: ObservedChange[] = [];
  // Reads and compression overlap a little; more at once only adds memory.
  let next = 0;
  const worker = async () => {
    while (next < toLook.length) {
      const change = await manifest.observe(toLook[next++] as string);
      if (change) changes.push(change);
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, toLook.length) }, worker));
  changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { changes, files: walked.size, tooManyFiles };
}
