/** What to hide and how much to keep. */
export type ScrubOptions = {
  /**
   * Exact values that must never be written, such as `process.env.ANTHROPIC_API_KEY`.
   * `undefined` and values shorter than 4 characters are ignored (hiding every "a" helps no one).
   */
  secrets?: readonly (string | undefined)[];
  /** More object keys whose values are always hidden (matched case-insensitively), e.g. `["sessionId"]`. */
  secretKeys?: readonly string[];
  /** Longest payload or text kept, in characters; longer ones are cut with a marker (default 8,000). */
  maxPayloadLength?: number;
};

/** Replaces hidden values. */
export const redacted = "[redacted]";

/** Object keys whose values are credentials, whatever the value looks like. */
const secretKeyNames = [
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "apikey",
  "api_key",
  "access_token",
  "access-token",
  "accesstoken",
  "refresh_token",
  "refreshtoken",
  "token",
  "secret",
  "client_secret",
  "password",
  "passwd",
  "cookie",
  "set-cookie",
];

/**
 * Credentials recognised in free text. `key: value` pairs go first so that "Authorization: Bearer x"
 * loses the whole value, not just the token.
 */
const secretPatterns: readonly [RegExp, string][] = [
  [
    /\b(authorization|x-api-key|api[-_]?key|access[-_]?token|client[-_]?secret|password)(["']?\s*[:=]\s*["']?)(?:(?:Bearer|Basic)\s+)?[^\s"',;&]+/gi,
    `$1$2${redacted}`,
  ],
  // A credential has 16+ characters and a digit somewhere: "Basic principles" is prose, not a password.
  [/\b(Bearer|Basic)\s+(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{16,}/g, `$1 ${redacted}`],
  // OpenAI and Anthropic (sk-ant-…) keys; no word boundary, so a key glued to other text is still found.
  [/sk-[A-Za-z0-9_-]{20,}/g, redacted],
  [/\bAKIA[0-9A-Z]{16}\b/g, redacted], // AWS access key ids
  [/\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, redacted], // GitHub tokens
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, redacted], // Google API keys
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, redacted], // Slack tokens
];

/**
 * Every text any pattern above can match contains one of these: text without them (most of it) is
 * scanned once instead of once per pattern.
 */
const secretShapes =
  /authorization|api[-_]?key|access[-_]?token|client[-_]?secret|password|bearer|basic|sk-|akia|gh[pousr]_|aiza|xox[abposr]-/i;

/** Hides secrets in what a trace or a cassette is about to store. */
export type SecretScrubber = {
  /** The text with every recognised secret replaced by `[redacted]`, then truncated. */
  text(value: string): string;
  /** A value as JSON with secrets hidden (secret keys' values included), then truncated. */
  payload(value: unknown): string;
  /**
   * Like `payload`, for JSON text the caller writes itself instead of building a value to stringify.
   * `write` gets `embed` (a nested value as JSON, secret keys' values hidden; undefined when too long)
   * and `budget`, the characters that can matter; when `write` returns undefined (the text would be
   * longer), `value()` goes through `payload`, which writes only what it keeps.
   */
  written(write: (embed: (value: unknown) => string | undefined, budget: number) => string | undefined, value: () => unknown): string;
  /** A deep copy of a JSON value with secrets hidden and nothing truncated (for cassettes, which must replay exactly). */
  value<T>(value: T): T;
};

/**
 * Creates the scrubber traces and cassettes share: built-in patterns for API keys, bearer tokens and
 * `authorization: …` text, secret object keys, and the values the user marks secret.
 * Secrets are hidden before truncating, so a cut can never leave half a key behind.
 */
export function createSecretScrubber(options: ScrubOptions = {}): SecretScrubber {
  const secrets = (options.secrets ?? []).filter((secret): secret is string => typeof secret === "string" && secret.length >= 4);
  // Longest first, so a secret that contains another is hidden whole.
  secrets.sort((a, b) => b.length - a.length);
  const keys = new Set([...secretKeyNames, ...(options.secretKeys ?? [])].map((key) => key.toLowerCase()));
  const limit = options.maxPayloadLength ?? 8_000;
  // As they appear inside JSON text too, where quotes and backslashes are escaped.
  const secretForms = [...new Set(secrets.flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]))];
  // Only the first `window` characters of a long payload are scrubbed: past the limit plus the longest
  // secret, nothing can reach the kept part (a key that starts inside it is matched within the window).
  const window = limit + Math.max(256, ...secretForms.map((secret) => secret.length));
  const hide = (text: string): string => {
    let result = text;
    for (const secret of secretForms) if (result.includes(secret)) result = result.replaceAll(secret, redacted);
    if (!secretShapes.test(result)) return result;
    for (const [pattern, replacement] of secretPatterns) result = result.replace(pattern, replacement);
    return result;
  };
  /** Hides secrets in text that is the start of `total` characters, then cuts it to the limit. */
  const hideAndCut = (text: string, total: number): string => cut(hide(text), limit, total - text.length);
  const quotedKey = new RegExp(`"(?:${[...keys].map(escapeRegExp).join("|")})"\\s*:`, "i");
  const replacer = (key: string, value: unknown): unknown => {
    if (key !== "" && keys.has(key.toLowerCase())) return redacted;
    return typeof value === "string" ? hide(value) : value;
  };
  const scrubString = (value: string): string =>
    value.length > window ? hideAndCut(value.slice(0, window), value.length) : hideAndCut(value, value.length);
  // Names and ids (tools, models, call ids) recur in every span; remember short ones instead of re-scanning them.
  const remembered = new Map<string, string>();
  const text = (value: string): string => {
    if (value.length > 100) return scrubString(value);
    let result = remembered.get(value);
    if (result === undefined) {
      if (remembered.size >= 1_000) remembered.clear();
      result = scrubString(value);
      remembered.set(value, result);
    }
    return result;
  };
  const embed = (value: unknown): string | undefined => {
    if (measureJson(value, window) > window) return undefined;
    const json = stringify(value);
    return quotedKey.test(json) ? stringify(value, replacer) : json;
  };
  const payload = (value: unknown): string => {
    if (typeof value === "string") return scrubString(value);
    if (measureJson(value, window) > window) {
      // Large: write only the part that can be kept, hiding secret keys' values on the way.
      const { text: start, length } = stringifyBounded(value, window, keys, redacted);
      return hideAndCut(start, length);
    }
    // Fast path: scan the JSON text once. Only a payload that has a secret key pays for the per-key walk.
    let json = stringify(value);
    if (quotedKey.test(json)) json = stringify(value, replacer);
    return hideAndCut(json, json.length);
  };
  return {
    text,
    payload,
    written: (write, value) => {
      const json = write(embed, window);
      return json === undefined ? payload(value()) : hideAndCut(json, json.length);
    },
    value: (value) => (value === undefined ? value : (JSON.parse(stringify(value, replacer)) as typeof value)),
  };
}

/**
 * Cuts text to `limit` characters with a marker saying how much is gone; `rest` characters that
 * followed it were never read. The marker is the tool executor's (`…[truncated N of M characters]`).
 */
function cut(text: string, limit: number, rest: number): string {
  if (text.length <= limit && rest <= 0) return text;
  let end = Math.min(limit, text.length);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--; // never split a surrogate pair
  const total = text.length + Math.max(rest, 0);
  return `${text.slice(0, end)}\n…[truncated ${total - end} of ${total} characters]`;
}

function stringify(value: unknown, replacer?: (key: string, value: unknown) => unknown): string {
  try {
    return JSON.stringify(value, replacer) ?? String(value);
  } catch {
    return String(value);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// The bounded JSON writer lives here rather than in a file of its own: every module `import "minagent"`
// loads costs the ESM loader about a millisecond.

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
