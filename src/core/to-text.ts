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

/**
 * Text for a tool's result: like {@link toText}, but what plain JSON would lose or refuse becomes readable —
 * a Map its entries (an object when its keys are strings or numbers), a Set its items, an Error its name,
 * message and own fields, a cycle `"[Circular]"`, a function `"[Function name]"`. Slower than plain JSON,
 * so it is only used for values that are not strings.
 */
export function toReadableText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value !== "object" || value === null) return toText(value);
  if (value instanceof Error) return describeErrorValue(value);
  // The objects JSON is inside of now (what it descends into, and the value each stands for), for cycles.
  const holders: unknown[] = [];
  const originals: unknown[] = [];
  const replacer = function (this: unknown, _key: string, item: unknown): unknown {
    // `this` is the object holding `item`: whatever was entered after it has been left.
    while (holders.length > 0 && holders.at(-1) !== this) {
      holders.pop();
      originals.pop();
    }
    if (typeof item === "bigint") return item.toString();
    if (typeof item === "function") return `[Function${item.name ? ` ${item.name}` : ""}]`;
    if (typeof item === "symbol") return item.toString();
    if (typeof item !== "object" || item === null) return item;
    if (originals.includes(item)) return "[Circular]";
    const replacement = readableObject(item);
    holders.push(replacement);
    originals.push(item);
    return replacement;
  };
  return attempt(() => JSON.stringify(value, replacer)) ?? toText(value);
}

function readableObject(item: object): unknown {
  if (item instanceof Map) {
    const entries = [...item.entries()];
    const plainKeys = entries.every(([key]) => typeof key === "string" || typeof key === "number");
    return plainKeys ? Object.fromEntries(entries) : entries;
  }
  if (item instanceof Set) return [...item];
  if (item instanceof Error) return Object.assign({ name: item.name, message: item.message }, item);
  return item;
}

function describeErrorValue(error: Error): string {
  const fields = Object.keys(error).length > 0 ? ` ${toReadableText({ ...error })}` : "";
  return `${error.name}: ${error.message}${fields}`;
}
