import { createHash, randomBytes } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { access, type FileHandle, lstat, mkdir, open, readFile, readlink, realpath, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ToolError, UsageError } from "../errors.js";

/** Settings of a {@link Workspace}. */
export type WorkspaceOptions = {
  /** The folder the agent works in: every path a tool touches must resolve inside it. */
  root: string;
  /** More folders the tools may use (Claude Code's `--add-dir`); relative ones are taken from the root. */
  additionalDirectories?: readonly string[] | undefined;
  /**
   * The editor's view of files, when an editor drives the agent (ACP's `fs` capabilities): Read, Edit and Write
   * then read a file's text through it (unsaved buffers included) and write whole new texts through it. Paths are
   * still resolved and confined here first.
   */
  editor?: EditorFiles | undefined;
};

/** An editor's view of files (ACP's fs/read_text_file and fs/write_text_file): its open buffers, unsaved edits included. */
export type EditorFiles = {
  /** The file's whole text as the editor has it (its buffer when open, else the file on disk). */
  readText(absolute: string): Promise<string>;
  /** Replaces the file's whole text through the editor (which updates its buffer and saves the file). */
  writeText(absolute: string, content: string): Promise<void>;
};

/** What a file looked like when the agent last read (or wrote) it. */
export type FileVersion = {
  /** Last modification time, in milliseconds (`stat().mtimeMs`). */
  mtimeMs: number;
  /** Size in bytes. */
  size: number;
  /**
   * The sha256 (hex) of the text seen or written, when it came from or went through an {@link EditorFiles editor}:
   * the editor's text may differ from the disk, so it is what a later change is checked against.
   */
  digest?: string | undefined;
};

const maxLinkHops = 40;

// Flags Windows lacks count as none there.
const noFollow = constants.O_NOFOLLOW ?? 0;
const directoryOnly = constants.O_DIRECTORY ?? 0;
const nonBlocking = constants.O_NONBLOCK ?? 0;

/**
 * The folders an agent's tools may touch, and what the agent has read of them. Every path is resolved against
 * the root and must stay inside the root or an added directory once symlinks are followed (dangling ones too):
 * `..`, absolute paths elsewhere and links that lead out are refused with an observation (a ToolError). A file
 * must have been read before Edit or Write may change it, and not changed on disk since; writes are atomic and
 * go through symlinks to the file they point to; changes to one file are made one at a time ({@link exclusive}).
 * With an {@link editor}, file texts are read and written through it, and "changed since" means the editor's text.
 *
 * {@link writeAtomic} and {@link openFile} resolve the path again and work through the folder it leads to, held
 * open: a folder on the way swapped for a symlink that leads out between the check and the write makes the call
 * fail instead of writing or reading outside. On Linux that is closed; elsewhere a lost race may leave an empty
 * file or folder outside, never content, but for a window inside one rename (see HeldFolder).
 * A file with more than one hard link may have a name outside that no path check can see:
 * {@link isLocationUncertain} says so, and the file tools ask before touching one. Resolving, reading metadata
 * and listing folders still go by path. These checks keep a model inside its folders; they are not a sandbox
 * against a hostile local process.
 */
export class Workspace {
  /** The root folder, absolute. */
  readonly root: string;
  /** The root, then the additional directories, absolute. */
  readonly directories: readonly string[];
  /** The editor the file tools read and write through, when one drives the agent ({@link WorkspaceOptions.editor}). */
  readonly editor: EditorFiles | undefined;
  readonly #versions = new Map<string, FileVersion>();
  readonly #locks = new Map<string, Promise<unknown>>();
  /** The last path `exclusive` resolves: the next waits for it, so that locks are taken in call order. */
  #resolving: Promise<unknown> = Promise.resolve();
  #realDirectories: Promise<string[]> | undefined;

  constructor(options: WorkspaceOptions) {
    this.root = resolve(options.root);
    this.directories = [this.root, ...(options.additionalDirectories ?? []).map((directory) => resolve(this.root, directory))];
    this.editor = options.editor;
  }

  /**
   * The absolute path `path` names (relative paths are taken from the root), checked to lie inside the workspace
   * once symlinks are followed — for a path that does not exist yet, its nearest existing ancestor is checked,
   * and a dangling symlink is judged by where it points. Throws a ToolError the model can read otherwise.
   */
  async resolve(path: string): Promise<string> {
    if (typeof path !== "string" || path.trim() === "") throw new ToolError("The path is empty; give a file path inside the workspace.");
    if (path.includes("\0")) throw new ToolError("The path contains a NUL character; give a plain file path.");
    if (path === "~" || path.startsWith("~/"))
      throw new ToolError(
        `"~" is not expanded here; give a path relative to the workspace root (${this.root}) or an absolute path inside it.`,
      );
    const absolute = isAbsolute(path) ? resolve(path) : resolve(this.root, path);
    const real = await realExisting(absolute);
    // The real path decides; the lexical one only tells which message fits (a link led out, or the path itself is out).
    if (!isInside(real, await this.#realDirs())) throw this.#outside(path, isInside(absolute, this.directories));
    return absolute;
  }

  /**
   * Whether the file `path` names (as {@link resolve} takes it) may also be reached by a name outside the workspace
   * that no path check can see: a regular file with more than one hard link (`ln /etc/passwd p`, or a link to
   * `~/.ssh/config`). Its other name may be anywhere on the same file system, so it counts as possibly outside,
   * like a symlink that leads out, and the file tools ask before reading or changing it. False for a path that
   * does not exist or is refused (the call then says why).
   */
  async isLocationUncertain(path: string): Promise<boolean> {
    const absolute = await this.resolve(path).catch(() => undefined);
    if (absolute === undefined) return false;
    const info = await stat(absolute).catch(() => undefined);
    return info?.isFile() === true && info.nlink > 1;
  }

  /** `absolute` relative to the root, for observations ("src/app.ts"); paths outside the root stay absolute. */
  display(absolute: string): string {
    const relativePath = relative(this.root, absolute);
    return relativePath === "" ? "." : relativePath.startsWith("..") || isAbsolute(relativePath) ? absolute : relativePath;
  }

  /**
   * Records that the agent has seen the file as it is now (after a Read, or its own Write or Edit). Pass the
   * `version` read from the open file when you have it, so that a change made during the read is not taken as seen,
   * with the `digest` ({@link digestText}) of the editor's text when the text came from the editor.
   */
  async remember(absolute: string, version?: FileVersion): Promise<void> {
    const seen = version ?? (await stat(absolute));
    const digest = version?.digest === undefined ? {} : { digest: version.digest };
    this.#versions.set(await realExisting(absolute), { mtimeMs: seen.mtimeMs, size: seen.size, ...digest });
  }

  /** The version the agent last saw of `absolute`, or undefined if it has not read it in this session. */
  async seenVersion(absolute: string): Promise<FileVersion | undefined> {
    return this.#versions.get(await realExisting(absolute));
  }

  /**
   * Throws a ToolError unless the agent may change `absolute` now: a file that exists must be a regular file the
   * agent may write, read in this session and not changed since: with an editor and a version seen through it, the
   * editor's text now must be the text seen (its digest); otherwise the disk's modification time and size must be
   * as seen. A new file needs no read.
   */
  async checkWritable(absolute: string): Promise<void> {
    const shown = this.display(absolute);
    const info = await stat(absolute).catch(() => undefined);
    if (!info) return;
    if (info.isDirectory()) throw new ToolError(`${shown} is a directory, not a file.`);
    if (!info.isFile()) throw new ToolError(`${shown} is not a regular file (a device, socket or pipe); it cannot be edited.`);
    const seen = await this.seenVersion(absolute);
    if (!seen) throw new ToolError(`Read ${shown} before changing it: it exists and has not been read in this session.`);
    if (this.editor && seen.digest !== undefined) {
      // The editor's text is what the model saw; the disk may lag behind an unsaved buffer, or be saved at any time.
      const buffer = await this.readEditorText(absolute);
      if (digestText(buffer) !== seen.digest)
        throw new ToolError(`${shown} has changed in the editor or on disk since it was read; read it again before changing it.`);
      // A command (a formatter, sed -i) may have changed the file on disk under an unchanged buffer: writing the
      // buffer back would undo that change unseen.
      if ((seen.mtimeMs !== info.mtimeMs || seen.size !== info.size) && (await readFile(absolute, "utf8").catch(() => buffer)) !== buffer)
        throw new ToolError(
          `${shown} has changed on disk since it was read, and the editor's buffer does not have that change; read it again before changing it.`,
        );
    } else if (seen.mtimeMs !== info.mtimeMs || seen.size !== info.size)
      throw new ToolError(`${shown} has changed on disk since it was read; read it again before changing it.`);
    if (!(await isWritable(absolute))) throw new ToolError(`${shown} is read-only (no write permission); it was left unchanged.`);
  }

  /**
   * Writes `content` atomically: to a temporary file beside the target, flushed, then renamed over it, so a crash
   * never leaves half a file and a failure leaves the original as it was (and no temporary file behind). A
   * symlink is written through: the file it points to changes, the link stays. Missing parent directories are
   * created. Keeps an existing file's permission bits. Remembers the new version. Failures are ToolErrors.
   *
   * The target is resolved again here and its folder opened and held: the temporary file is made in that folder,
   * and renamed into place only if the folder is, once the temporary file exists, still where it was resolved or
   * inside the workspace. A hard-linked target loses the link: its other names keep the old content.
   *
   * With an {@link editor}, the same checks are made and missing folders created, then the whole text goes through
   * the editor's `writeText` (which saves it: how atomically is the editor's business); the version remembered
   * carries the text's digest. An editor that fails makes a ToolError, and nothing else is written.
   */
  async writeAtomic(absolute: string, content: string): Promise<void> {
    const shown = this.display(absolute);
    const target = await this.#realInside(absolute, shown);
    const name = basename(target);
    let folder: HeldFolder;
    try {
      folder = await this.#holdFolder(dirname(target), shown, true);
    } catch (error) {
      throw fileError(error, `create the folder for ${shown}`);
    }
    if (this.editor) return this.#writeThroughEditor(this.editor, folder, target, shown, content);
    const temporaryName = `.${name}.${randomBytes(6).toString("hex")}.minagent-tmp`;
    const temporary = folder.entry(temporaryName);
    let version: Stats;
    try {
      const existing = await lstat(folder.entry(name)).catch(() => undefined);
      // The target was resolved with every link followed: a link there now was put in its place since.
      if (existing?.isSymbolicLink())
        throw new ToolError(`${shown} was replaced by a symbolic link while it was being written; it was left unchanged.`);
      const existingMode = existing === undefined ? undefined : existing.mode & 0o7777;
      // O_EXCL refuses any file or link already there; a new file gets the usual 0o666 less the umask, an existing
      // one keeps its bits exactly (open would apply the umask).
      const handle = await open(temporary, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | noFollow, existingMode ?? 0o666);
      try {
        // Checked before any content goes in: where the temporary file cannot be made through the held folder, a
        // swap may have put it elsewhere, and then it stays there, empty.
        await this.#checkHeld(folder, shown, { name: temporaryName, identity: await handle.stat() });
        if (existingMode !== undefined) await handle.chmod(existingMode);
        await handle.writeFile(content, "utf8");
        await handle.sync();
        version = await handle.stat();
      } finally {
        await handle.close();
      }
      // Checked again once the file is complete: the folder may have moved out meanwhile.
      await this.#checkHeld(folder, shown, { name: temporaryName, identity: version });
      // Within one folder, so the file cannot leave it; a symlink swapped in at the target's name is replaced, not followed.
      await rename(temporary, folder.entry(name));
    } catch (error) {
      await rm(temporary, { force: true });
      throw fileError(error, `write ${shown}`);
    } finally {
      await folder.close();
    }
    await this.remember(target, version);
  }

  /**
   * The whole text of `absolute` as the {@link editor} has it, asked for by its real path once that is checked
   * again to lie inside. Throws a ToolError when the editor cannot give it; misuse without an editor.
   */
  async readEditorText(absolute: string): Promise<string> {
    if (!this.editor) throw new UsageError("Workspace.readEditorText needs a workspace with an editor (WorkspaceOptions.editor).");
    const shown = this.display(absolute);
    const target = await this.#realInside(absolute, shown);
    try {
      return await this.editor.readText(target);
    } catch (error) {
      throw new ToolError(`Could not read ${shown} through the editor: ${describeFailure(error)}.`, { cause: error });
    }
  }

  async #writeThroughEditor(editor: EditorFiles, folder: HeldFolder, target: string, shown: string, content: string): Promise<void> {
    try {
      // The target was resolved with every link followed: a link there now was put in its place since.
      if ((await lstat(folder.entry(basename(target))).catch(() => undefined))?.isSymbolicLink())
        throw new ToolError(`${shown} was replaced by a symbolic link while it was being written; it was left unchanged.`);
    } finally {
      await folder.close();
    }
    try {
      await editor.writeText(target, content);
    } catch (error) {
      throw new ToolError(`Could not write ${shown} through the editor: ${describeFailure(error)}; it was left unchanged.`, {
        cause: error,
      });
    }
    // The editor may save after it answers: the digest decides later checks, the disk's numbers are only a record.
    const saved = await stat(target).catch(() => undefined);
    await this.remember(target, {
      mtimeMs: saved?.mtimeMs ?? 0,
      size: saved?.size ?? Buffer.byteLength(content),
      digest: digestText(content),
    });
  }

  /**
   * Opens the existing file `absolute` for reading, through the folder it resolves to (held open as
   * {@link writeAtomic} does) and without following a symlink in the file's own place: a link that resolved
   * inside is followed when the path is resolved, but one swapped in since, or a folder on the way swapped for a
   * link that leads out, makes the open fail. A FIFO does not block it; the caller checks what it opened. Errors
   * are the file system's (ENOENT, EACCES…) or a ToolError for a path that now leads outside.
   */
  async openFile(absolute: string): Promise<FileHandle> {
    const shown = this.display(absolute);
    const target = await this.#realInside(absolute, shown);
    const folder = await this.#holdFolder(dirname(target), shown, false);
    try {
      const handle = await open(folder.entry(basename(target)), constants.O_RDONLY | noFollow | nonBlocking);
      try {
        await this.#checkHeld(folder, shown, { name: basename(target), identity: await handle.stat() });
        return handle;
      } catch (error) {
        await handle.close();
        throw error;
      }
    } finally {
      await folder.close();
    }
  }

  /**
   * Runs `work` when no other `exclusive` work on the same file (after following symlinks) is running: parallel
   * tool calls that change one file then apply one after the other, in the order of the calls, each seeing the
   * previous one's result.
   */
  async exclusive<T>(absolute: string, work: () => Promise<T>): Promise<T> {
    // Paths are resolved one at a time in call order, and each call queues on its file's lock as soon as its path
    // is resolved: a call whose path resolves faster (no symlink to follow) cannot overtake an earlier one.
    const queued = this.#resolving.then(async () => {
      const key = await realExisting(absolute);
      const current = (this.#locks.get(key) ?? Promise.resolve()).then(work, work);
      const settled = current.then(ignore, ignore);
      this.#locks.set(key, settled);
      return { key, current, settled };
    });
    this.#resolving = queued.then(ignore, ignore);
    const { key, current, settled } = await queued;
    try {
      return await current;
    } finally {
      if (this.#locks.get(key) === settled) this.#locks.delete(key);
    }
  }

  /** The real path of `absolute`, checked again to lie inside: a link may have changed since it was resolved. */
  async #realInside(absolute: string, shown: string): Promise<string> {
    const real = await realExisting(absolute);
    if (!isInside(real, await this.#realDirs())) throw this.#movedOut(shown);
    return real;
  }

  /**
   * The folder at the real path `path`, opened and checked to be there still or inside the workspace. With
   * `create`, missing folders are made one at a time, each inside the one opened before it.
   */
  async #holdFolder(path: string, shown: string, create: boolean): Promise<HeldFolder> {
    let folder: HeldFolder;
    try {
      folder = await this.#openFolder(path, path, shown);
    } catch (error) {
      const parent = dirname(path);
      if (!create || (error as NodeJS.ErrnoException).code !== "ENOENT" || parent === path) throw error;
      const above = await this.#holdFolder(parent, shown, true);
      try {
        await mkdir(above.entry(basename(path))).catch((failure: NodeJS.ErrnoException) => {
          if (failure.code !== "EEXIST") throw failure;
        });
        folder = await this.#openFolder(path, above.entry(basename(path)), shown);
      } finally {
        await above.close();
      }
    }
    try {
      await this.#checkHeld(folder, shown);
    } catch (error) {
      await folder.close();
      throw error;
    }
    return folder;
  }

  /** {@link HeldFolder.open}, with a symlink found in the folder's place (it resolved as a folder) said so. */
  async #openFolder(path: string, openedAs: string, shown: string): Promise<HeldFolder> {
    try {
      return await HeldFolder.open(path, openedAs);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === "ENOTDIR" || code === "ELOOP") && (await lstat(openedAs).catch(() => undefined))?.isSymbolicLink())
        throw this.#movedOut(shown);
      throw error;
    }
  }

  /**
   * Throws a ToolError unless `folder` is now where it was opened, or anywhere inside the workspace (moved within
   * it). Where its entries are named by path, the `entry` named must also be the very file opened or made there.
   */
  async #checkHeld(folder: HeldFolder, shown: string, entry?: { name: string; identity: Stats }): Promise<void> {
    const where = await folder.location();
    if (where === undefined || (where !== folder.path && !isInside(where, await this.#realDirs()))) throw this.#movedOut(shown);
    if (entry && !folder.throughDescriptor) {
      const found = await lstat(join(where, entry.name)).catch(() => undefined);
      if (!found || !sameFile(found, entry.identity)) throw this.#movedOut(shown);
    }
  }

  #realDirs(): Promise<string[]> {
    this.#realDirectories ??= Promise.all(this.directories.map((directory) => realExisting(directory)));
    return this.#realDirectories;
  }

  #outside(path: string, throughLink: boolean): ToolError {
    const how = throughLink ? " through a symbolic link" : "";
    return new ToolError(
      `${JSON.stringify(path)} leads outside the workspace${how}; only paths inside ${this.directories.join(", ")} may be used.`,
    );
  }

  #movedOut(shown: string): ToolError {
    return new ToolError(
      `${shown} now leads outside the workspace: a folder or link on its way changed while it was being used, so it was left alone. Check the path and try again.`,
    );
  }
}

/**
 * A folder held open while a file in it is read or written, so that the file lands in the folder that was checked.
 *
 * On Linux its entries are named through the open descriptor (`/proc/self/fd/N/name`): the kernel resolves that
 * to this very folder, wherever it is now and whatever its path's components have become, so open, mkdir and
 * rename act as openat, mkdirat and renameat would (Node has none of them). What stays open: the folder itself
 * moved out of the workspace (a rename of it, not a link) after the last {@link location} check.
 *
 * Elsewhere (macOS, Linux without /proc) entries are named by the path the folder was opened at, and every step
 * is checked after it is taken: {@link location} says whether that path still leads to this folder, and the
 * Workspace checks that the file found at the entry is the one it opened. A component swapped for a link out
 * just as a folder or the temporary file is made puts that empty folder or file outside (where it stays if the
 * link is gone again before it can be removed); the content is written only once the check has passed, and a
 * swap after the last check makes the rename miss its source (ENOENT). Left open: a swap between the two path
 * lookups inside the one rename call. On Windows a folder cannot be opened, so it is held by its identity only.
 */
class HeldFolder {
  private constructor(
    /** The real path it was opened at. */
    readonly path: string,
    readonly handle: FileHandle | undefined,
    readonly identity: Stats,
    /** Whether {@link entry} names entries through the open descriptor (Linux). */
    readonly throughDescriptor: boolean,
  ) {}

  /**
   * Opens the folder at the real path `path`, by the name `openedAs` (an entry of its open parent, or `path`
   * itself), refusing a symlink in its own place.
   */
  static async open(path: string, openedAs = path): Promise<HeldFolder> {
    if (process.platform === "win32") {
      const info = await stat(openedAs);
      if (!info.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, ${path}`), { code: "ENOTDIR" });
      return new HeldFolder(path, undefined, info, false);
    }
    const handle = await open(openedAs, constants.O_RDONLY | directoryOnly | noFollow);
    try {
      const info = await handle.stat();
      // /proc may be missing (a container, a chroot): then the path is used, and checked.
      const linked = process.platform === "linux" ? await stat(descriptorPath(handle)).catch(() => undefined) : undefined;
      return new HeldFolder(path, handle, info, linked !== undefined && sameFile(linked, info));
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** A path naming the entry `name` of this folder. */
  entry(name: string): string {
    return this.throughDescriptor && this.handle ? `${descriptorPath(this.handle)}/${name}` : join(this.path, name);
  }

  /** The folder's real path now, or undefined when no path leads to it (deleted, or its path now leads elsewhere). */
  async location(): Promise<string | undefined> {
    const where =
      this.throughDescriptor && this.handle
        ? await readlink(descriptorPath(this.handle)).catch(() => undefined)
        : await realpath(this.path).catch(() => undefined);
    // A deleted folder reads as "path (deleted)", and a realpath may lead to another folder: the identity decides.
    const found = where === undefined ? undefined : await stat(where).catch(() => undefined);
    return found && sameFile(found, this.identity) ? where : undefined;
  }

  async close(): Promise<void> {
    await this.handle?.close();
  }
}

function descriptorPath(handle: FileHandle): string {
  return `/proc/self/fd/${handle.fd}`;
}

function sameFile(one: Stats, other: Stats): boolean {
  return one.dev === other.dev && one.ino === other.ino;
}

function ignore(): undefined {
  return undefined;
}

function isWritable(path: string): Promise<boolean> {
  return access(path, constants.W_OK).then(
    () => true,
    () => false,
  );
}

/** Whether `path` is one of `directories` or inside one of them (paths absolute and resolved). */
export function isInside(path: string, directories: readonly string[]): boolean {
  return directories.some((directory) => path === directory || path.startsWith(directory.endsWith(sep) ? directory : directory + sep));
}

/**
 * The real path of `path`: every symlink followed, a dangling one to where it points, and the part that does
 * not exist yet joined to the real path of its nearest existing ancestor.
 */
async function realExisting(path: string): Promise<string> {
  let current = path;
  const rest: string[] = [];
  for (let hops = 0; ; ) {
    try {
      const real = await realpath(current);
      return rest.length > 0 ? join(real, ...[...rest].reverse()) : real;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ELOOP") throw new ToolError(`${path} goes through a loop of symbolic links.`);
      const target = await readlink(current).catch(() => undefined);
      if (target !== undefined) {
        // A dangling symlink is not a missing file: where it points decides.
        if (++hops > maxLinkHops) throw new ToolError(`${path} goes through too many symbolic links.`);
        current = resolve(dirname(current), target);
        continue;
      }
      const parent = dirname(current);
      if (parent === current) return rest.length > 0 ? join(current, ...[...rest].reverse()) : current;
      rest.push(basename(current));
      current = parent;
    }
  }
}

/** The sha256 of `text` (as UTF-8), in hex: what {@link FileVersion.digest} holds. */
export function digestText(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** A failure's message, for an observation. */
function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/[.\s]+$/, "") || "no reason given";
}

/** A file-system failure as an observation: what could not be done, and why in plain words. */
export function fileError(error: unknown, action: string): ToolError {
  if (error instanceof ToolError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reasons: Record<string, string> = {
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    ENOSPC: "the disk is full",
    EROFS: "the file system is read-only",
    ENOTDIR: "a part of the path is a file, not a folder",
    EISDIR: "it is a directory",
    ENOENT: "a folder on the way does not exist",
    EEXIST: "something is already there",
    EDQUOT: "the disk quota is exceeded",
    ENAMETOOLONG: "the name is too long",
    ELOOP: "a symbolic link was found where a file or folder was expected",
  };
  const reason = (code && reasons[code]) ?? (error instanceof Error ? error.message : String(error));
  return new ToolError(`Could not ${action}: ${reason}${code ? ` (${code})` : ""}.`, { cause: error });
}
