/**
 * Loads of trace files, shared and bounded. A load asked for while the same one (the same key, of the same file
 * version) is in flight gets that load's promise: sixteen requests for one large trace read and parse it once,
 * and hold one copy of it in memory, not sixteen. At most `concurrency` different loads run at once; the others
 * wait for a slot, so the memory of the loads in flight stays bounded whatever the number of requests. Nothing is
 * kept once a load settles: the next request reads the file again (it may have changed).
 */
export class SharedLoads {
  readonly #concurrency: number;
  readonly #inFlight = new Map<string, { version: string; promise: Promise<unknown> }>();
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(concurrency: number) {
    this.#concurrency = Math.max(1, concurrency);
  }

  /**
   * The result of `start()`, or of the load of `key` already in flight for the same `version` (a file's size and
   * modification time: a file changed since is loaded again).
   */
  load<T>(key: string, version: string, start: () => Promise<T>): Promise<T> {
    const current = this.#inFlight.get(key);
    if (current?.version === version) return current.promise as Promise<T>;
    const promise = this.#inSlot(start).finally(() => {
      if (this.#inFlight.get(key)?.promise === promise) this.#inFlight.delete(key);
    });
    this.#inFlight.set(key, { version, promise });
    return promise;
  }

  async #inSlot<T>(start: () => Promise<T>): Promise<T> {
    if (this.#running < this.#concurrency) this.#running++;
    // A load that ends hands its slot to the next waiting one directly: none can slip in between.
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await start();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
