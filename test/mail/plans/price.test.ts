// Prices at every tier's edges: the monthly price covers the included emails, each tier after
// charges its emails per 1,000, pro rata and rounded up to the cent per tier.
import { expect, test } from "bun:test";
import { plans } from "../../../server/mail/plans/plans.ts";
import { priceOf } from "../../../server/mail/plans/price.ts";

const totals = (plan: keyof typeof plans, emails: number[]) => emails.map((count) => priceOf(plans[plan], count).totalMinor);

test("free costs nothing up to its cap", () => {
  expect(priceOf(plans.free, 10_000)).toEqual({ monthlyMinor: 0, tiers: [], totalMinor: 0 });
});

test("growth: $20 for 50,000, then $0.80 per 1,000 to 500,000, then $0.60", () => {
  expect(totals("growth", [0, 50_000, 50_001, 51_000, 51_001, 500_000, 500_001, 501_000])).toEqual([2_000, 2_000, 2_001, 2_080, 2_081, 38_000, 38_001, 38_060]);
  expect(priceOf(plans.growth, 500_001)).toEqual({
    monthlyMinor: 2_000,
    tiers: [
      { firstEmail: 50_001, lastEmail: 500_000, perThousandMinor: 80, emails: 450_000, amountMinor: 36_000 },
      { firstEmail: 500_001, lastEmail: null, perThousandMinor: 60, emails: 1, amountMinor: 1 },
    ],
    totalMinor: 38_001,
  });
});

test("scale: $90 for 200,000, then $0.50 per 1,000 to 2,000,000, then $0.35", () => {
  expect(totals("scale", [0, 200_000, 200_001, 202_000, 2_000_000, 2_000_001, 2_001_000, 3_000_000])).toEqual([9_000, 9_000, 9_001, 9_100, 99_000, 99_001, 99_035, 134_000]);
  expect(priceOf(plans.scale, 100).tiers.map((tier) => tier.emails)).toEqual([0, 0]);
});
