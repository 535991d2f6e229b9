import { describe, expect, test } from "bun:test";
import { roundMinor } from "../../../../engine/revenue/conversion.ts";
import { monthlyMinor, monthlyShare } from "../../../../server/ingest/revenue/providers/mrr.ts";

describe("monthly recurring minor units", () => {
  test("each period normalises to a month as engine/revenue-events.ts defines", () => {
    expect([monthlyMinor(12_000, "year", 1), monthlyMinor(1_200, "week", 1), monthlyMinor(1_200, "day", 1), monthlyMinor(3_000, "month", 3), monthlyMinor(999, "month", 1)])
      .toEqual([1_000, 5_200, 36_500, 1_000, 999]);
    expect(monthlyMinor(24_000, "year", 2)).toBe(1_000);
  });

  test("rounding is half away from zero, once after a sum", () => {
    expect([roundMinor(2.5), roundMinor(-2.5), roundMinor(2.4999), roundMinor(0)]).toEqual([3, -3, 2, 0]);
    // 1 + 1 cents a year are 0.1667 a month: rounded per item they would be 0.
    expect(roundMinor(monthlyShare(1, "year", 1) + monthlyShare(1, "year", 1))).toBe(0);
    expect(roundMinor(monthlyShare(6, "year", 1) + monthlyShare(6, "year", 1))).toBe(1);
    expect(monthlyMinor(6, "year", 1)).toBe(1);
  });
});
