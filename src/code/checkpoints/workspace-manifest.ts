import { lstatSync, type Stats } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { BlobStore } from "./blob-store.js";
import type { FileState } from "./checkpoint-types.js";

/** What the manifest knows of one file: its state and the metadata that says whether it can have changed since. */
type ManifestEntry = FileState & { mtimeMs: number; ctimeMs: number; ino: number; racy: boolean };

/** A file whose state a look at it found different from what the manifest knew. */
export type ObservedChange = { path: string; before: FileState | null; after: FileState | null };

/** How the manifest reads files: where their contents go, and the largest it keeps. */
export type ManifestOptions = { blobs: BlobStore; maxFileBytes: number };

const manifestVersion = 1;

/**
 * The last known state of every tracked file, and the stat data that lets a scan skip files that have not changed
 * (size, modification and change times, inode: as git's index does). Every state it holds has its content in the
 * blob store (unless over the size cap), so a file a command changes can be restored to what it was.
 *
 * A file whose modification time is too close to the moment it was looked at is "racy": a second change within
 * the same clock tick would leave its metadata alike, so the next look reads it again instead of trusting them.
 */
export class WorkspaceManifest {
  readonly #entries = new Map<string, ManifestEntry>();
  readonly #options: ManifestOptions;
  #dirty = false;

  constructor(options: ManifestOptions) {
    this.#options = options;
  }

  /** How many files it knows. */
  get size(): number {
    return this.#entries.size;
  }

  /** The paths it knows. */
  paths(): IterableIterator<string> {
    return this.#entries.keys();
  }

  /** The hashes it refers to (blobs a sweep must keep). */
  *hashes(): IterableIterator<string> {
    for (const entry of this.#entries.values()) if (entry.hash !== undefined) yield entry.hash;
  }

  /** The state last known of `path` (`null`: absent), without looking. */
  known(path: string): FileState | null {
    const entry = this.#entries.get(path);
    return entry ? stateOf(entry) : null;
  }

  /**
   * Looks at `path` now: reads it only when its metadata differ from what is known (or it is racy), keeps its
   * content, and records what it is. Resolves to the change seen, or undefined when it is as it was.
   */
  async observe(path: string): Promise<ObservedChange | undefined> {
    const before = this.#entries.get(path);
    const info = lstatOrUndefined(path);
    if (!info?.isFile()) {
      if (!before) return undefined;
      this.#entries.delete(path);
      this.#dirty = true;
      return { path, before: stateOf(before), after: null };
    }
    if (before && !before.racy && sameMetadata(before, info)) return undefined;
    const entry = await this.#read(path, info);
    if (!entry) return undefined; // vanished while being read: the next look sees it gone
    this.#entries.set(path, entry);
    this.#dirty = true;
    if (before && before.hash === entry.hash && before.size === entry.size && before.mode === entry.mode && entry.stored) return undefined;
    return { path, before: before ? stateOf(before) : null, after: stateOf(entry) };
  }

  /** Whether `path` must be looked at: unknown, racy, or its metadata differ from those known. Reads nothing. */
  needsLook(path: string): boolean {
    const entry = this.#entries.get(path);
    if (!entry || entry.racy) return true;
    const info = lstatOrUndefined(path);
    return !info?.isFile() || !sameMetadata(entry, info);
  }

  /**
   * Takes `state` (a session log's last record of `path`) as what the file was last seen to be, when the manifest
   * says otherwise (it was saved before the session's last changes, by a process killed since, or by another session
   * since): the next look reads the file again and compares it with that.
   */
  adopt(path: string, state: FileState | null): void {
    const entry = this.#entries.get(path);
    if (state === null) {
      this.forget(path);
      return;
    }
    if (entry && entry.hash === state.hash && entry.size === state.size && entry.mode === state.mode && entry.stored === state.stored)
      return;
    this.#entries.set(path, { ...state, mtimeMs: 0, ctimeMs: 0, ino: 0, racy: true });
    this.#dirty = true;
  }

  /** Forgets a path (a rewind wrote it: the next look reads it again). */
  forget(path: string): void {
    if (this.#entries.delete(path)) this.#dirty = true;
  }

  async #read(path: string, info: Stats): Promise<ManifestEntry | undefined> {
    const { blobs, maxFileBytes } = this.#options;
    const metadata = { mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino, mode: info.mode & 0o7777 };
    // A clock tick is at most a few milliseconds on the file systems in use; closer than that, trust nothing.
    const racy = Date.now() - Math.max(info.mtimeMs, info.ctimeMs) < 5;
    if (info.size > maxFileBytes) return { ...metadata, hash: undefined, size: info.size, stored: false, racy };
    const content = await readFile(path).catch(() => undefined);
    if (content === undefined) return undefined;
    return { ...metadata, hash: await blobs.put(content), size: content.length, stored: true, racy };
  }

  /** Loads a manifest saved by {@link save}; an unreadable or older one is an empty manifest (every file is read again). */
  static async load(file: string, options: ManifestOptions): Promise<WorkspaceManifest> {
    const manifest = new WorkspaceManifest(options);
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text === undefined) return manifest;
    try {
      const saved = JSON.parse(text) as { version: number; files: SavedEntry[] };
      if (saved.version !== manifestVersion || !Array.isArray(saved.files)) return manifest;
      for (const [path, hash, size, mode, mtimeMs, ctimeMs, ino] of saved.files)
        manifest.#entries.set(path, { hash: hash ?? undefined, size, mode, stored: hash !== null, mtimeMs, ctimeMs, ino, racy: false });
    } catch {
      // A manifest torn by a crash is only a cache: start over.
    }
    return manifest;
  }

  /** Saves the manifest (written beside and renamed: a crash leaves the old one or the new one), if it changed. */
  async save(file: string): Promise<void> {
    if (!this.#dirty) return;
    this.#dirty = false;
    const files: SavedEntry[] = [];
    for (const [path, entry] of this.#entries)
      files.push([path, entry.hash ?? null, entry.size, entry.mode, entry.mtimeMs, entry.ctimeMs, entry.racy ? 0 : entry.ino]);
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify({ version: manifestVersion, files }), { mode: 0o600 });
    await rename(temporary, file);
  }
}

/** One saved entry: path, hash (null: not stored), size, mode, mtime, ctime, inode (0: read again next time). */
type SavedEntry = [string, string | null, number, number, number, number, number];

function stateOf(entry: ManifestEntry): FileState {
  return { hash: entry.hash, size: entry.size, mode: entry.mode, stored: entry.stored };
}

function sameMetadata(entry: ManifestEntry, info: Stats): boolean {
  return (
    entry.size === info.size &&
    entry.mtimeMs === info.mtimeMs &&
    entry.ctimeMs === info.ctimeMs &&
    entry.ino === info.ino &&
    entry.mode === (info.mode & 0o7777)
  );
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
