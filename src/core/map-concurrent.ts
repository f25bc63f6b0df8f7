/**
 * Maps `items` through `fn` with at most `limit` calls in flight; results keep the order of `items`,
 * whatever order the calls finish in. Rejects with the first rejection.
 */
export function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  // One item (a turn's usual single call): a `then`, not an async function's frame and awaits, on every step.
  if (items.length === 1) {
    try {
      return fn(items[0] as T).then(inArray);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return mapAll(items, limit, fn);
}

function inArray<R>(result: R): R[] {
  return [result];
}

async function mapAll<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
  return results;
}
