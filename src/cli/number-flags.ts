import { UsageError } from "../errors.js";

// The numeric flags that `minagent run` and `minagent code` share, read and checked the same way.

/** A whole number ≥ `minimum`; undefined when the flag was not given. */
export function parseWholeNumber(value: string | undefined, flag: string, minimum = 1): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < minimum) throw new UsageError(`${flag} must be a whole number ≥ ${minimum}, got "${value}"`);
  return parsed;
}

/** A number of seconds > 0, as whole milliseconds (rounded up); undefined when the flag was not given. */
export function parseSeconds(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!(parsed > 0 && Number.isFinite(parsed))) throw new UsageError(`${flag} must be a number of seconds > 0, got "${value}"`);
  return Math.ceil(parsed * 1000);
}
