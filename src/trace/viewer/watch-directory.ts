import { type FSWatcher, watch } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { isTraceFileName } from "./trace-directory.js";

/** Which trace files appeared or changed, and which went away. */
export type DirectoryChange = { changed: string[]; removed: string[] };

export type WatchOptions = {
  /** Only this file of the directory is watched. */
  only?: string | undefined;
  /** How often the directory is scanned when fs.watch cannot be used, or as a safety net when it can (ms). */
  pollMs?: number | undefined;
};

/**
 * Watches a directory's trace files and calls `onChange` when one appears, grows or goes away. fs.watch says
 * when to look (quickly, debounced), and a slower scan catches what it misses (network file systems, editors that
 * replace files); where fs.watch fails, the scan alone does it. Returns a function that stops watching.
 */
export function watchTraceDirectory(root: string, onChange: (change: DirectoryChange) => void, options: WatchOptions = {}): () => void {
  let known = new Map<string, string>();
  let stopped = false;
  let scanning: Promise<void> | undefined;
  let again = false;
  let debounce: NodeJS.Timeout | undefined;

  const scan = async (report: boolean): Promise<void> => {
    const names = options.only ? [options.only] : (await readdir(root).catch(() => [] as string[])).filter(isTraceFileName);
    const next = new Map<string, string>();
    for (const name of names) {
      const stats = await stat(join(root, name)).catch(() => undefined);
      if (stats?.isFile()) next.set(name, `${stats.size}:${stats.mtimeMs}`);
    }
    const changed = [...next].filter(([name, version]) => known.get(name) !== version).map(([name]) => name);
    const removed = [...known.keys()].filter((name) => !next.has(name));
    known = next;
    if (report && !stopped && (changed.length > 0 || removed.length > 0)) onChange({ changed, removed });
  };

  // One scan at a time; a request during a scan runs one more after it.
  const request = (): void => {
    if (stopped) return;
    if (scanning) {
      again = true;
      return;
    }
    scanning = scan(true).finally(() => {
      scanning = undefined;
      if (again) {
        again = false;
        request();
      }
    });
  };

  let poll: NodeJS.Timeout | undefined;
  const pollEvery = (milliseconds: number): void => {
    clearInterval(poll);
    poll = setInterval(request, milliseconds);
    poll.unref();
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(root, { persistent: false }, () => {
      clearTimeout(debounce);
      debounce = setTimeout(request, 50);
    });
    // fs.watch can fail later too (the directory removed and made again, too many watchers): scan more often then.
    watcher.on("error", () => {
      watcher?.close();
      watcher = undefined;
      if (!stopped) pollEvery(options.pollMs ?? 500);
    });
  } catch {
    watcher = undefined;
  }
  pollEvery(options.pollMs ?? (watcher ? 2000 : 500));
  scanning = scan(false).finally(() => {
    scanning = undefined;
  });

  return () => {
    stopped = true;
    clearInterval(poll);
    clearTimeout(debounce);
    watcher?.close();
  };
}
