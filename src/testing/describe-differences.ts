/** One place where two JSON-like values differ. */
export type Difference = {
  /** Where, as `messages[0].content`; "" for the values themselves. */
  path: string;
  /** The value on the left (recorded, expected); `undefined` when absent. */
  expected: unknown;
  /** The value on the right (now, actual); `undefined` when absent. */
  actual: unknown;
};

/**
 * Lists where `actual` differs from `expected`, deepest first, at most `limit` places. Made for
 * messages and schemas: objects compare key by key, arrays index by index, the rest with `Object.is`.
 */
export function describeDifferences(expected: unknown, actual: unknown, limit = 20): Difference[] {
  const found: Difference[] = [];
  const visit = (left: unknown, right: unknown, path: string): void => {
    if (found.length >= limit || Object.is(left, right)) return;
    if (Array.isArray(left) && Array.isArray(right)) {
      for (let i = 0; i < Math.max(left.length, right.length); i++) visit(left[i], right[i], `${path}[${i}]`);
      return;
    }
    if (isPlainObject(left) && isPlainObject(right)) {
      for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) visit(left[key], right[key], path ? `${path}.${key}` : key);
      return;
    }
    found.push({ path, expected: left, actual: right });
  };
  visit(expected, actual, "");
  return found;
}

/** The differences as indented lines: the path, then both values. */
export function formatDifferences(differences: readonly Difference[], labels: { expected: string; actual: string }): string {
  const width = Math.max(labels.expected.length, labels.actual.length) + 1;
  return differences
    .map(({ path, expected, actual }) =>
      [
        `  ${path || "(the whole value)"}:`,
        `    ${`${labels.expected}:`.padEnd(width)} ${show(expected)}`,
        `    ${`${labels.actual}:`.padEnd(width)} ${show(actual)}`,
      ].join("\n"),
    )
    .join("\n");
}

/** A value on one line, cut at 300 characters. */
export function show(value: unknown): string {
  if (value === undefined) return "(absent)";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
