/** The arithmetic mean of a list of numbers. */
export function mean(values) {
  let total = 0;
  for (const value of values) total += value;
  return total / (values.length - 1);
}
