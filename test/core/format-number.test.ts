import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatNumber } from "../../src/text.js";

// formatNumber stands in for toLocaleString("en-US") in every message, so that no start pays for loading ICU.
describe("formatNumber writes numbers as toLocaleString('en-US') does", () => {
  it("whole numbers, grouped by thousands", () => {
    fc.assert(fc.property(fc.integer({ min: -1e15, max: 1e15 }), (value) => formatNumber(value) === value.toLocaleString("en-US")));
    expect(formatNumber(30_000)).toBe("30,000");
    expect(formatNumber(999)).toBe("999");
  });

  it("fractions, to three digits without trailing zeros; or fixed to the digits asked", () => {
    // Quarters and eighths are exact in binary, so both round them alike.
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 0, max: 7 }), (whole, eighths) => {
        const value = whole + eighths / 8;
        return formatNumber(value) === value.toLocaleString("en-US");
      }),
    );
    expect(formatNumber(0.5)).toBe("0.5");
    expect(formatNumber(1234.5678)).toBe("1,234.568");
    expect(formatNumber(0.0421, { fractionDigits: 4, fixed: true })).toBe("0.0421");
    expect(formatNumber(12, { fractionDigits: 4, fixed: true })).toBe("12.0000");
    expect(formatNumber(-0.0001)).toBe("0");
  });

  it("what is not a finite number", () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])
      expect(formatNumber(value)).toBe(value.toLocaleString("en-US"));
  });
});

it("rounds a half up as the decimal reads, as toLocaleString does (0.00165 → 0.0017), where toFixed would not", () => {
  expect((0.00165).toFixed(4)).toBe("0.0016");
  expect(formatNumber(0.00165, { fractionDigits: 4, fixed: true })).toBe("0.0017");
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 1e7 }), (units) => {
      const value = units / 1e5; // five decimals, rounded to four or three
      return (
        formatNumber(value, { fractionDigits: 4, fixed: true }) ===
          value.toLocaleString("en-US", { minimumFractionDigits: 4, maximumFractionDigits: 4 }) &&
        formatNumber(value) === value.toLocaleString("en-US")
      );
    }),
  );
});
