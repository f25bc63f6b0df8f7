// Text helpers every floor uses (the engine, the coding tools, the CLI): one way to turn a value into text, one way
// to put a text on one line, one way to cut a long text. Nothing here imports anything.

/**
 * `text` on one line, for messages and lists: runs of white space (newlines included) become one space, and a line
 * longer than `limit` characters is cut with an ellipsis (which counts in the limit), never inside a surrogate pair.
 */
export function toOneLine(text: string, limit: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (line.length <= limit) return line;
  return `${line.slice(0, cutPoint(line, limit - 1))}…`;
}

/**
 * `text` cut to `limit` characters, with a line saying how much was left out of how much; `more` counts characters
 * already left out before it was given (a text cut once upstream). Never cuts inside a surrogate pair.
 */
export function truncate(text: string, limit: number, more = 0): string {
  if (text.length <= limit && more <= 0) return text;
  const end = cutPoint(text, Math.min(limit, text.length));
  const total = text.length + Math.max(more, 0);
  return `${text.slice(0, end)}\n…[truncated ${total - end} of ${total} characters]`;
}

/** `end`, or one less when the character before it is the first half of a surrogate pair. */
function cutPoint(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

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

/** What the model reads of a tool's return value: "" for undefined, a string as it is, anything else readable. */
export function serialize(value: unknown): string {
  return value === undefined ? "" : toReadableText(value);
}

/**
 * A number as en-US writes it (`30,000`, `1,234.5`), without `Intl`: a process's first `toLocaleString` loads ICU's
 * data, some 25 ms that a CLI's start would pay for one tool description. At most `fractionDigits` digits after the
 * point (default 3, as `toLocaleString`), trailing zeros dropped unless `fixed`.
 * @example formatNumber(1234567.891) // "1,234,567.891"
 * @example formatNumber(0.5, { fractionDigits: 4, fixed: true }) // "0.5000"
 */
export function formatNumber(value: number, options: { fractionDigits?: number; fixed?: boolean } = {}): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "-∞";
  const digits = options.fractionDigits ?? 3;
  let text = roundHalfUp(Math.abs(value), digits).toFixed(digits);
  if (digits > 0 && !options.fixed) text = text.replace(/\.?0+$/, "");
  const [whole = "", fraction] = text.split(".");
  const sign = value < 0 && /[1-9]/.test(text) ? "-" : "";
  return `${sign}${whole.replace(/\B(?=(\d{3})+$)/g, ",")}${fraction === undefined ? "" : `.${fraction}`}`;
}

/**
 * `value` (not negative) rounded to `digits` decimals as its shortest decimal form reads, as ICU rounds it: 0.00165
 * to four is 0.0017, where `toFixed` rounds the binary value just below it down.
 */
function roundHalfUp(value: number, digits: number): number {
  const shortest = String(value);
  if (shortest.includes("e")) return value;
  return Number(`${Math.round(Number(`${shortest}e${digits}`))}e-${digits}`);
}
