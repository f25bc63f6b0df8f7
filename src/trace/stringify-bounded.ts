/** The start of a value's JSON text, and the length of the whole text. */
export type BoundedJson = {
  /** The JSON text up to at least `budget` characters (all of it when it is shorter). */
  text: string;
  /** Characters of the whole JSON text; past the budget, strings are counted without their escapes. */
  length: number;
};

/**
 * Writes a value as JSON (as `JSON.stringify` would) but only as far as `budget` characters; the rest
 * is measured, never written, so a megabyte tool result costs a tracer what its first kilobytes cost.
 * Values of object keys in `hiddenKeys` (lower case) are written as `hiddenValue`.
 */
export function stringifyBounded(value: unknown, budget: number, hiddenKeys: ReadonlySet<string>, hiddenValue: string): BoundedJson {
  let text = "";
  let length = 0;
  const open = new Set<object>();
  const write = (piece: string): void => {
    length += piece.length;
    if (text.length < budget) text += piece;
  };
  const writeString = (string: string): void => {
    const room = budget - text.length;
    if (string.length <= room) {
      write(JSON.stringify(string));
      return;
    }
    // Past the budget: count it. At the budget: write what fits, without a closing quote.
    if (room > 0) text += JSON.stringify(string.slice(0, room)).slice(0, -1);
    length += string.length + 2;
  };
  // Returns false for what JSON leaves out (undefined, functions, symbols).
  const writeValue = (key: string, raw: unknown): boolean => {
    let item = raw;
    if (typeof item === "object" && item !== null && typeof (item as { toJSON?: unknown }).toJSON === "function") {
      item = (item as { toJSON: (key: string) => unknown }).toJSON(key);
    }
    switch (typeof item) {
      case "string":
        writeString(item);
        return true;
      case "number":
      case "boolean":
        write(JSON.stringify(item));
        return true;
      case "bigint":
        write(String(item));
        return true;
      case "object":
        if (item === null) write("null");
        else if (open.has(item)) writeString("[Circular]");
        else writeObject(item);
        return true;
      default:
        return false;
    }
  };
  const writeObject = (object: object): void => {
    open.add(object);
    if (Array.isArray(object)) {
      write("[");
      for (let i = 0; i < object.length; i++) {
        if (i > 0) write(",");
        if (!writeValue(String(i), object[i])) write("null");
      }
      write("]");
    } else {
      write("{");
      let first = true;
      for (const key of Object.keys(object)) {
        const item = (object as Record<string, unknown>)[key];
        if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
        write(first ? JSON.stringify(key) : `,${JSON.stringify(key)}`);
        write(":");
        first = false;
        if (hiddenKeys.has(key.toLowerCase())) writeString(hiddenValue);
        else writeValue(key, item);
      }
      write("}");
    }
    open.delete(object);
  };
  if (!writeValue("", value)) return { text: String(value), length: String(value).length };
  return { text, length };
}

/**
 * The length of a value's JSON text, not counting string escapes, or Infinity once it exceeds `limit`
 * (so it costs at most `limit` characters' worth of walking).
 */
export function measureJson(value: unknown, limit: number): number {
  let length = 0;
  const measure = (item: unknown, depth: number): void => {
    if (length > limit) return;
    switch (typeof item) {
      case "string":
        length += item.length + 2;
        return;
      case "object": {
        // Deep nesting, a cycle or a toJSON method: leave it to the bounded writer.
        if (item === null) length += 4;
        else if (depth > 20 || typeof (item as { toJSON?: unknown }).toJSON === "function") length = Number.POSITIVE_INFINITY;
        else if (Array.isArray(item)) {
          length += 1 + item.length;
          for (const element of item) measure(element, depth + 1);
        } else {
          length += 1;
          for (const key in item) {
            length += key.length + 4;
            measure((item as Record<string, unknown>)[key], depth + 1);
          }
        }
        return;
      }
      default:
        // Numbers, booleans, bigints; what JSON leaves out counts as little as it costs.
        length += 8;
    }
  };
  measure(value, 0);
  return length > limit ? Number.POSITIVE_INFINITY : length;
}
