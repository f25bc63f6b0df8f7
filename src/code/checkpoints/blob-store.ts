import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";

const compress = promisify(gzip);
const decompress = promisify(gunzip);

/** The sha-256 of some bytes, in hex: a blob's name. */
export function hashContent(content: Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

/**
 * File contents kept by their sha-256, compressed, each once however many checkpoints refer to it. A blob is
 * written to a temporary name and renamed into place, so a process killed mid-write leaves a stray temporary
 * file (removed by {@link sweep}), never a blob with the wrong bytes under a right name.
 */
export class BlobStore {
  readonly directory: string;
  readonly #known = new Set<string>();
  /** The two-letter folders made so far (256 at most): each is made once, not before every blob. */
  readonly #folders = new Set<string>();

  constructor(directory: string) {
    this.directory = directory;
  }

  /** Stores `content` unless a blob of it exists; resolves to its hash. */
  async put(content: Uint8Array): Promise<string> {
    const hash = hashContent(content);
    if (this.#known.has(hash)) return hash;
    const path = this.#path(hash);
    if (!(await exists(path))) {
      const folder = hash.slice(0, 2);
      if (!this.#folders.has(folder)) {
        await mkdir(join(this.directory, folder), { recursive: true, mode: 0o700 });
        this.#folders.add(folder);
      }
      const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
      await writeFile(temporary, await compress(content, { level: 1 }), { mode: 0o600 });
      await rename(temporary, path);
    }
    this.#known.add(hash);
    return hash;
  }

  /** The bytes of a blob; rejects when there is none (pruned, or never stored). */
  async get(hash: string): Promise<Buffer> {
    return decompress(await readFile(this.#path(hash)));
  }

  /** Whether a blob of this hash is stored. */
  async has(hash: string): Promise<boolean> {
    return this.#known.has(hash) || exists(this.#path(hash));
  }

  /**
   * Deletes every blob whose hash is not in `live`, and temporary files left by a killed writer (older than an
   * hour, so that a writer at work keeps its own). Resolves to the bytes freed and the bytes kept.
   */
  async sweep(live: ReadonlySet<string>, now = Date.now()): Promise<{ freedBytes: number; keptBytes: number }> {
    let freedBytes = 0;
    let keptBytes = 0;
    const folders = await readdir(this.directory).catch(() => [] as string[]);
    for (const folder of folders) {
      const names = await readdir(join(this.directory, folder)).catch(() => [] as string[]);
      for (const name of names) {
        const path = join(this.directory, folder, name);
        const info = await stat(path).catch(() => undefined);
        if (!info) continue;
        const stray = name.endsWith(".tmp") && now - info.mtimeMs > 60 * 60 * 1000;
        if (stray || (!name.endsWith(".tmp") && !live.has(name))) {
          await rm(path, { force: true });
          this.#known.delete(name);
          freedBytes += info.size;
        } else keptBytes += info.size;
      }
    }
    return { freedBytes, keptBytes };
  }

  #path(hash: string): string {
    return join(this.directory, hash.slice(0, 2), hash);
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
