/**
 * Text for any value, never throwing: strings as they are, everything else as JSON (a bigint as its
 * digits; inside JSON as a string of them), or as a last resort a tag like `[object Object]` for what
 * JSON cannot represent (cycles, objects without a prototype that refuse String()).
 */
export function toText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "bigint") return value.toString();
  // Plain stringify first: a replacer function makes every call several times slower, and bigints are rare.
  const json = attempt(() => JSON.stringify(value)) ?? attempt(() => JSON.stringify(value, bigIntsAsStrings));
  if (json !== undefined) return json;
  return attempt(() => String(value)) ?? Object.prototype.toString.call(value);
}

function bigIntsAsStrings(_key: string, item: unknown): unknown {
  return typeof item === "bigint" ? item.toString() : item;
}

/** The function's result, or undefined if it throws (cycles, throwing toJSON or getters). */
function attempt(make: () => string | undefined): string | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}
