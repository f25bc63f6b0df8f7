import { truncate } from "../text.js";
/** What to hide and how much to keep. Every field may be left out or `undefined` (the default applies). */
export type ScrubOptions = {
  /**
   * Exact values that must never be written, such as `process.env.ANTHROPIC_API_KEY`.
   * `undefined` and values shorter than 4 characters are ignored (hiding every "a" helps no one).
   */
  secrets?: readonly (string | undefined)[] | undefined;
  /**
   * More object keys whose values are always hidden, e.g. `["sessionId"]`. Matched like the built-in
   * ones: case-insensitively and ignoring `-`, `_`, `.` and spaces (`sessionId` also hides `session_id`).
   */
  secretKeys?: readonly string[] | undefined;
  /** Longest payload or text kept, in characters; longer ones are cut with a marker (default 8,000). */
  maxPayloadLength?: number | undefined;
};

/** Replaces hidden values. */
export const redacted = "[redacted]";

// Object keys. A key is compared in a normal form: lower case, without "-", "_", "." and spaces, so that
// `apiKey`, `api_key`, `API-KEY` and `x-api-key` are one family.

/** Keys ending like this hold credentials: `token`, `auth_token`, `client_secret`, `aws_secret_access_key`, `set-cookie`… */
const secretKeySuffixes = [
  "token",
  "secret",
  "password",
  "passwd",
  "passphrase",
  "apikey",
  "secretkey",
  "privatekey",
  "secretaccesskey",
  "authorization",
  "cookie",
];

/** `<word>token` names that are not credentials: tokenizers' special tokens, limits and pagination cursors. */
const notCredentialTokens = ["bos", "eos", "pad", "unk", "sep", "cls", "mask", "max", "next", "page", "nextpage", "continuation"];
const notSecretKeys = new Set(notCredentialTokens.map((word) => `${word}token`));

const normalizeKey = (key: string): string => key.toLowerCase().replace(/[-_. ]/g, "");

/** A regular expression source matching `word` in any case, with an optional separator between any two letters. */
const looseWord = (word: string): string => [...word].map(anyCase).join("[-_. ]?");

/** A regular expression source matching `text` in any case (the quick tests below must not use the `i` flag). */
function anyCase(text: string): string {
  return [...text]
    .map((char) => (char.toLowerCase() === char.toUpperCase() ? escapeRegExp(char) : `[${char.toUpperCase()}${char.toLowerCase()}]`))
    .join("");
}

// Free text. Names whose value is a credential in `name: value` and `name=value` text (headers, .env
// files, YAML, JSON inside a string): a name ending in one of these. A bare "token" or "secret" counts
// only before `=` ("The secret: practice" is prose); a compound one (`auth_token`, `JWT_SECRET`,
// `authToken`) before `:` too.
// At most 40 characters before the suffix, so the scan stays linear.
const credentialName = String.raw`[a-z0-9_.-]{0,40}?(?:api[-_]?key|secret[-_]?(?:access[-_]?)?key|private[-_]?key|password|passwd|passphrase|authorization)|[a-z0-9_.-]{0,39}?[a-z0-9][-_.]?(?:secret|(?<!\b(?:${notCredentialTokens.map(looseWord).join("|")})[-_. ]?)token)`;

/**
 * A value after a credential's name: quoted (also inside JSON text, where the quotes are `\"`; an
 * unclosed quote runs to the end, as when the text was cut), or a word (with its `Bearer`/`Basic` scheme)
 * other than `true`, `false` and `null`, which are flags, not credentials, and must stay valid JSON.
 */
const credentialValue = String.raw`(\\?")(?:[^"\\]|\\[^"])*(\\?"|$)|(')[^'\n]*('|$)|(?!(?:true|false|null)\b)(?:(?:Bearer|Basic)\s+)?(?:[^\s"'\\,;&]|\\(?![nrt"\\]))+`;

/** `$1`-style text, or a function of the match and its groups (an unmatched group is undefined). */
type Replacement = string | ((match: string, ...groups: (string | undefined)[]) => string);

/** Credentials recognised in free text, in the order they are applied. */
const secretPatterns: readonly [RegExp, Replacement][] = [
  // PEM private keys (RSA, EC, OpenSSH, PKCS#8, PGP): the body goes, the armour lines stay. A block cut
  // before its END line (a truncated payload) loses everything after BEGIN.
  [
    /(-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)[\s\S]*?(-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    (_, begin, end) => `${begin}${redacted}${end}`,
  ],
  // `name: value` pairs go before token shapes, so that "Authorization: Bearer x" loses the whole value.
  // The match starts at the `:` or `=` and looks back for the name: starting at every word would be
  // ten times slower (the name is kept anyway).
  [
    new RegExp(
      String.raw`([:=])(?<=(?<![a-z0-9_.-])(?:(?:${credentialName})\\?["']?\s*[:=]|(?:token|secret)\\?["']?\s*=))(\s*)(?:${credentialValue})`,
      "gi",
    ),
    (_, separator, space, open = "", close = "", openSingle = "", closeSingle = "") =>
      `${separator}${space}${open}${openSingle}${redacted}${close}${closeSingle}`,
  ],
  // Credentials in URLs: the user information when it has a password (`https://user:pass@host`), and
  // the values of credential query parameters (`?token=`, `&key=`, `?api_key=`, `&sig=`…).
  [/:\/\/[^\s/?#@:"'<>\\]*:[^\s/?#@"'<>\\]+@/g, `://${redacted}@`],
  [
    /([?&](?:[\w-]*token|key|api[-_]?key|[\w-]*secret|password|passwd|pwd|auth|sig|signature|x-amz-credential)=)[^&#\s"'<>\\]+/gi,
    `$1${redacted}`,
  ],
  // `Bearer`/`Basic` credentials of 16+ characters. What follows may be a word of prose ("Bearer
  // responsibilities"): a lower-case word (capitalised, hyphenated) of at most 23 letters stays.
  [/\b(Bearer|Basic)\s+(?![A-Z]?[a-z]{1,23}(?:-[a-z]{1,23})*(?![\w~+/=]|[.-][A-Za-z0-9]))[A-Za-z0-9._~+/=-]{16,}/g, `$1 ${redacted}`],
  // OpenAI and Anthropic (sk-ant-…) keys; no word boundary, so a key glued to other text is still found.
  [/sk-[A-Za-z0-9_-]{20,}/g, redacted],
  [/\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g, redacted], // Stripe secret and restricted keys
  // AWS access key ids (AKIA… long-term, ASIA… temporary), and a secret access key (40 characters, not
  // all hex) that follows one within 100 characters, as in credentials files, CSV exports and `id:secret`.
  [
    /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b(?:([\s\S]{0,100}?)(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[g-zG-Z/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=]))?/g,
    (_, between) => (between === undefined ? redacted : `${redacted}${between}${redacted}`),
  ],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, redacted], // GitHub tokens
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, redacted], // GitHub fine-grained tokens
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, redacted], // Google API keys
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, redacted], // Slack tokens
];

/** The last word of every credential name the patterns above look for (`secret_access_key` ends in `key`). */
const shapeNames = [
  "key",
  "token",
  "secret",
  "passwd",
  "password",
  "passphrase",
  "authorization",
  "pwd",
  "auth",
  "sig",
  "signature",
  "credential",
];

/**
 * Every text any pattern above can match contains one of these shapes: text without them (most of it)
 * is scanned once instead of once per pattern. Each shape starts at a rare character (`:`, `=`, `@`,
 * `_`, `-`, `A`, `B`) and looks back from it, which keeps that one scan as fast as a search for a few
 * literals: a case-insensitive alternation of words would be tried at every letter of every text.
 */
const secretShapes = new RegExp(
  [
    // `name: value`, `name=value` and query parameters, the name ending in one of these words
    String.raw`[:=](?<=(?:${shapeNames.map(anyCase).join("|")})\\?["']?\s*[:=])`,
    String.raw`@(?<=:\/\/[^\s/?#@]*@)`, // user:password@ in a URL
    "_(?<=[rs]k_(?:live|test)_|gh[pousr]_|github_pat_)",
    "-(?<=sk-|xox[abposr]-)",
    "-----BEGIN",
    "A(?:[KS]IA|Iza)",
    "B(?:earer|asic)",
  ].join("|"),
);

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
  /** Whether an object key's value is hidden (built-in secret keys and `secretKeys`), e.g. `true` for `"X-Api-Key"`. */
  isSecretKey(key: string): boolean;
};

/**
 * Creates the scrubber traces, cassettes and provider errors share: built-in patterns for API keys,
 * tokens, private keys, credentials in URLs and `name: value` text, secret object keys, and the values
 * the user marks secret (docs/tracing.md lists them). Secrets are hidden before truncating, so a cut
 * can never leave half a key behind.
 */
export function createSecretScrubber(options: ScrubOptions = {}): SecretScrubber {
  const secrets = (options.secrets ?? []).filter((secret): secret is string => typeof secret === "string" && secret.length >= 4);
  // Longest first, so a secret that contains another is hidden whole.
  secrets.sort((a, b) => b.length - a.length);
  const extraKeys = (options.secretKeys ?? []).map(normalizeKey).filter((key) => key !== "");
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
    for (const [pattern, replacement] of secretPatterns) {
      result = typeof replacement === "string" ? result.replace(pattern, replacement) : result.replace(pattern, replacement);
    }
    return result;
  };
  /** Hides secrets in text that is the start of `total` characters, then cuts it to the limit. */
  const hideAndCut = (text: string, total: number): string => truncate(hide(text), limit, total - text.length);
  const userKeys = new Set(extraKeys);
  // Keys recur in every payload ("role", "content"…): remember the verdicts.
  const verdicts = new Map<string, boolean>();
  const isSecretKey = (key: string): boolean => {
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      const normal = normalizeKey(key);
      verdict = userKeys.has(normal) || (!notSecretKeys.has(normal) && secretKeySuffixes.some((suffix) => normal.endsWith(suffix)));
      if (verdicts.size >= 1_000) verdicts.clear();
      verdicts.set(key, verdict);
    }
    return verdict;
  };
  // A quick test of JSON text for a key that may be secret (`isSecretKey` decides for each key): from each
  // closing quote of a key, look back for a secret ending.
  const quotedKey = new RegExp(`"(?=\\s*:)(?<=(?:${[...secretKeySuffixes, ...extraKeys].map(looseWord).join("|")})")`);
  const replacer = (key: string, value: unknown): unknown => {
    // A flag (`has_password: false`) or an empty value is not a credential; undefined stays absent.
    if (key !== "" && value !== null && value !== undefined && typeof value !== "boolean" && isSecretKey(key)) return redacted;
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
      const { text: start, length } = stringifyBounded(value, window, isSecretKey, redacted);
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
    isSecretKey,
  };
}

/**
 * Cuts text to `limit` characters with a marker saying how much is gone; `rest` characters that
 * followed it were never read. The marker is the tool executor's (`…[truncated N of M characters]`).
 */

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
 * Values of object keys in `hiddenKeys` (a set of lower-case keys, or a test) are written as `hiddenValue`,
 * unless they are booleans or null (a flag such as `has_password: false` is not a credential).
 */
export function stringifyBounded(
  value: unknown,
  budget: number,
  hiddenKeys: ReadonlySet<string> | ((key: string) => boolean),
  hiddenValue: string,
): BoundedJson {
  const isHidden = typeof hiddenKeys === "function" ? hiddenKeys : (key: string) => hiddenKeys.has(key.toLowerCase());
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
        if (item !== null && typeof item !== "boolean" && isHidden(key)) writeString(hiddenValue);
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
