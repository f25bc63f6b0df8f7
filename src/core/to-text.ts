/**
 * Text for any value, never throwing: strings as they are, everything else as JSON (a bigint as
 * its digits; inside JSON as a string of them), or as a last resort a tag like `[object Object]` for what JSON cannot represent
 * (cycles, objects without a prototype that refuse String()).
 */
export function toText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "bigint") return value.toString();
  try {
    const json = JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item));
    if (json !== undefined) return json;
  } catch {
    // fall through: cycles, throwing toJSON or getters
  }
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
