import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, mkdir, open, readlink, realpath, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ToolError } from "../errors.js";

/** Settings of a {@link Workspace}. */
export type WorkspaceOptions = {
  /** The folder the agent works in: every path a tool touches must resolve inside it. */
  root: string;
  /** More folders the tools may use (Claude Code's `--add-dir`); relative ones are taken from the root. */
  additionalDirectories?: readonly string[] | undefined;
};

/** What a file looked like when the agent last read (or wrote) it. */
export type FileVersion = {
  /** Last modification time, in milliseconds (`stat().mtimeMs`). */
  mtimeMs: number;
  /** Size in bytes. */
  size: number;
};

const maxLinkHops = 40;

/**
 * The folders an agent's tools may touch, and what the agent has read of them. Every path is resolved against
 * the root and must stay inside the root or an added directory once symlinks are followed (dangling ones too):
 * `..`, absolute paths elsewhere and links that lead out are refused with an observation (a ToolError). A file
 * must have been read before Edit or Write may change it, and not changed on disk since; writes are atomic and
 * go through symlinks to the file they point to; changes to one file are made one at a time ({@link exclusive}).
 *
 * The checks are made when a path is resolved: a link swapped between that moment and the file operation is
 * not caught. They keep a model inside its folders; they are not a sandbox against a hostile local process.
 */
export class Workspace {
  /** The root folder, absolute. */
  readonly root: string;
  /** The root, then the additional directories, absolute. */
  readonly directories: readonly string[];
  readonly #versions = new Map<string, FileVersion>();
  readonly #locks = new Map<string, Promise<unknown>>();
  /** The last path `exclusive` resolves: the next waits for it, so that locks are taken in call order. */
  #resolving: Promise<unknown> = Promise.resolve();
  #realDirectories: Promise<string[]> | undefined;

  constructor(options: WorkspaceOptions) {
    this.root = resolve(options.root);
    this.directories = [this.root, ...(options.additionalDirectories ?? []).map((directory) => resolve(this.root, directory))];
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

  /** `absolute` relative to the root, for observations ("src/app.ts"); paths outside the root stay absolute. */
  display(absolute: string): string {
    const relativePath = relative(this.root, absolute);
    return relativePath === "" ? "." : relativePath.startsWith("..") || isAbsolute(relativePath) ? absolute : relativePath;
  }

  /**
   * Records that the agent has seen the file as it is now (after a Read, or its own Write or Edit). Pass the
   * `version` read from the open file when you have it, so that a change made during the read is not taken as seen.
   */
  async remember(absolute: string, version?: FileVersion): Promise<void> {
    const seen = version ?? (await stat(absolute));
    this.#versions.set(await realExisting(absolute), { mtimeMs: seen.mtimeMs, size: seen.size });
  }

  /** The version the agent last saw of `absolute`, or undefined if it has not read it in this session. */
  async seenVersion(absolute: string): Promise<FileVersion | undefined> {
    return this.#versions.get(await realExisting(absolute));
  }

  /**
   * Throws a ToolError unless the agent may change `absolute` now: a file that exists must be a regular file the
   * agent may write, read in this session and not changed on disk since (modification time and size). A new file
   * needs no read.
   */
  async checkWritable(absolute: string): Promise<void> {
    const shown = this.display(absolute);
    const info = await stat(absolute).catch(() => undefined);
    if (!info) return;
    if (info.isDirectory()) throw new ToolError(`${shown} is a directory, not a file.`);
    if (!info.isFile()) throw new ToolError(`${shown} is not a regular file (a device, socket or pipe); it cannot be edited.`);
    const seen = await this.seenVersion(absolute);
    if (!seen) throw new ToolError(`Read ${shown} before changing it: it exists and has not been read in this session.`);
    if (seen.mtimeMs !== info.mtimeMs || seen.size !== info.size)
      throw new ToolError(`${shown} has changed on disk since it was read; read it again before changing it.`);
    if (!(await isWritable(absolute))) throw new ToolError(`${shown} is read-only (no write permission); it was left unchanged.`);
  }

  /**
   * Writes `content` atomically: to a temporary file beside the target, flushed, then renamed over it, so a crash
   * never leaves half a file and a failure leaves the original as it was (and no temporary file behind). A
   * symlink is written through: the file it points to changes, the link stays. Missing parent directories are
   * created. Keeps an existing file's permission bits. Remembers the new version. Failures are ToolErrors.
   */
  async writeAtomic(absolute: string, content: string): Promise<void> {
    const target = await realExisting(absolute);
    const shown = this.display(absolute);
    try {
      await mkdir(dirname(target), { recursive: true });
    } catch (error) {
      throw fileError(error, `create the folder for ${shown}`);
    }
    const existingMode = await stat(target).then(
      (info) => info.mode & 0o7777,
      () => undefined,
    );
    const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.minagent-tmp`);
    try {
      // A new file gets the usual 0o666 less the umask; an existing one keeps its bits exactly (open would apply the umask).
      const handle = await open(temporary, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, existingMode ?? 0o666);
      try {
        if (existingMode !== undefined) await handle.chmod(existingMode);
        await handle.writeFile(content, "utf8");
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw fileError(error, `write ${shown}`);
    }
    await this.remember(target);
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
  };
  const reason = (code && reasons[code]) ?? (error instanceof Error ? error.message : String(error));
  return new ToolError(`Could not ${action}: ${reason}${code ? ` (${code})` : ""}.`, { cause: error });
}
